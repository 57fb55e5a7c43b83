/**
 * The emulator's clock: S3's `Last-Modified` of what it stores and the `Date`
 * header of every answer. Tests move it (`PUT /_emulator/clock`) to stand for
 * time passing on AWS's side — an object written an hour ago, say — without
 * waiting, and to tell a skew between AWS's clock and the caller's. Process-wide:
 * every emulator in one process shares it; a reset sets it back.
 */
let offsetMs = 0;

/** The emulator's time, ms. */
export function emulatorNow(): number {
  return Date.now() + offsetMs;
}

export function emulatorDate(): Date {
  return new Date(emulatorNow());
}

/** How far the emulator's clock runs ahead of the host's (negative: behind). */
export function clockOffset(): number {
  return offsetMs;
}

export function setClockOffset(ms: number): void {
  offsetMs = ms;
}

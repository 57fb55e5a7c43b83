/**
 * oclif's command-line parse errors (unknown flag, bad option value, missing or
 * extra argument) as one short message: the error, a guess at the flag meant
 * when one is close, and one line pointing to `--help` — instead of oclif's
 * full help page, which scrolls the error out of sight.
 */

interface ParseErrorLike extends Error {
  parse: unknown;
  flags?: string[];
}

/** True for the errors oclif's parser throws (they carry the parse input). */
export function isParseError(err: unknown): err is ParseErrorLike {
  return err instanceof Error && 'parse' in err && typeof (err as { oclif?: unknown }).oclif === 'object';
}

/** The message to print for a parse error of `commandId`, whose flags are `flags`. */
export function describeParseError(
  err: ParseErrorLike,
  commandId: string,
  flags: Record<string, { char?: string }>,
): string {
  const first = err.message.replace(/\n?See more help with --help\s*$/, '').trim();
  const guesses = (err.flags ?? [])
    .map((f) => closestFlag(f, Object.keys(flags)))
    .filter((g): g is string => g !== undefined);
  const hint = guesses.length
    ? ` Did you mean ${[...new Set(guesses)].map((g) => `--${g}`).join(', ')}?`
    : '';
  const command = commandId.replace(/:/g, ' ');
  return `${first}${hint}\nRun 'cdkd ${command ? `${command} ` : ''}--help' for the flags it takes.`;
}

/** The flag name nearest to `typed` (`--requre-approval`), within a small edit distance. */
export function closestFlag(typed: string, names: readonly string[]): string | undefined {
  const bare = typed.replace(/^-+/, '').split('=')[0];
  if (!bare) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of names) {
    const distance = editDistance(bare, name);
    if (distance <= Math.max(1, Math.floor(name.length / 4)) && (!best || distance < best.distance))
      best = { name, distance };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

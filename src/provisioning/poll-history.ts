/**
 * How long Cloud Control requests took in earlier runs, kept on the local disk
 * (oclif's cache folder) so a run's first request of a type is checked at the
 * expected time instead of being discovered. One entry per endpoint (real AWS,
 * or an endpoint override such as an emulator), since their timings differ.
 *
 * A cache, not state: a missing, unreadable or damaged file means "nothing
 * known", and a write that fails is only logged. Concurrent runs merge what
 * they learnt, last writer wins per type and operation.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DurationSample } from './poll-schedule';

const FORMAT_VERSION = 1;
/** Endpoints remembered at most (emulators on random ports would grow the file otherwise). */
const MAX_ENDPOINTS = 16;

interface HistoryFile {
  version: number;
  endpoints: Record<string, { updatedAt: number; samples: Record<string, DurationSample[]> }>;
}

/** The file the history lives in, inside a cache folder. */
export function pollHistoryPath(cacheDir: string): string {
  return path.join(cacheDir, 'cloudcontrol-timings.json');
}

function readFile(file: string): HistoryFile {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as HistoryFile;
    if (parsed?.version === FORMAT_VERSION && typeof parsed.endpoints === 'object' && parsed.endpoints)
      return parsed;
  } catch {
    // Missing or damaged: start over.
  }
  return { version: FORMAT_VERSION, endpoints: {} };
}

/** Samples recorded for the endpoint (`aws` for AWS itself), by type and operation. */
export function readPollHistory(file: string, endpoint: string): Record<string, DurationSample[]> {
  return readFile(file).endpoints[endpoint]?.samples ?? {};
}

/**
 * Merges this run's samples into the file (replacing what it had for the same
 * type and operation) and writes it atomically.
 */
export function writePollHistory(
  file: string,
  endpoint: string,
  samples: Record<string, DurationSample[]>,
  now = Date.now(),
): void {
  if (Object.keys(samples).length === 0) return;
  const history = readFile(file);
  const previous = history.endpoints[endpoint]?.samples ?? {};
  history.endpoints[endpoint] = { updatedAt: now, samples: { ...previous, ...samples } };
  const kept = Object.entries(history.endpoints)
    .sort(([, a], [, b]) => b.updatedAt - a.updatedAt)
    .slice(0, MAX_ENDPOINTS);
  history.endpoints = Object.fromEntries(kept);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(history)}\n`);
  fs.renameSync(temp, file);
}

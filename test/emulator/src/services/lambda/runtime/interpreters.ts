/**
 * The programs execution environments run: Node.js handlers on the Node.js
 * running the emulator, Python handlers on a host `python3` — the first of
 * `$AWS_EMULATOR_PYTHON`, `python3`, `/usr/bin/python3` that can `import
 * boto3` (as Lambda's Python runtimes ship boto3), else the first that runs.
 */
import { execFile } from 'node:child_process';

export interface Interpreter {
  command: string;
  /** Whether `import boto3` works with it. */
  boto3: boolean;
}

function probe(command: string, code: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(command, ['-c', code], { timeout: 60_000 }, (err) => resolve(!err));
  });
}

let python: Promise<Interpreter | undefined> | undefined;

/** The Python interpreter handlers run on (probed once per process). */
export function pythonInterpreter(): Promise<Interpreter | undefined> {
  python ??= (async () => {
    const candidates = [process.env.AWS_EMULATOR_PYTHON, 'python3', '/usr/bin/python3'].filter(
      (c, i, all): c is string => !!c && all.indexOf(c) === i,
    );
    let fallback: Interpreter | undefined;
    for (const command of candidates) {
      if (await probe(command, 'import boto3')) return { command, boto3: true };
      if (!fallback && (await probe(command, 'import sys'))) fallback = { command, boto3: false };
    }
    return fallback;
  })();
  return python;
}

/**
 * The last line of defence for "never printed in clear": every text cdkd writes
 * to stdout or stderr (progress, --verbose logs, errors, --json documents, the
 * help a command prints) passes through the secret masker first. The engine
 * masks where it builds a message too; this catches what no one thought of —
 * an AWS error quoting a request, a third-party library's log line.
 */
import { hasSecrets, redactSecretsInText } from '../template/redaction';

let installed = false;

function guard(stream: NodeJS.WriteStream): void {
  const write = stream.write.bind(stream) as (...args: unknown[]) => boolean;
  stream.write = ((chunk: unknown, ...rest: unknown[]): boolean => {
    if (!hasSecrets()) return write(chunk, ...rest);
    if (typeof chunk === 'string') return write(redactSecretsInText(chunk), ...rest);
    if (chunk instanceof Uint8Array)
      return write(redactSecretsInText(Buffer.from(chunk).toString('utf8')), ...rest);
    return write(chunk, ...rest);
  }) as typeof stream.write;
}

/** Masks secrets in everything this process writes to stdout and stderr (once per process). */
export function redactProcessOutput(): void {
  if (installed) return;
  installed = true;
  guard(process.stdout);
  guard(process.stderr);
}

/**
 * Runs the built CLI on a pseudo-terminal (util-linux `script`), so it sees a
 * TTY as a person's shell gives it, and answers its questions: each answer is
 * typed when the output shows the question, never after a delay.
 */
import { spawn } from 'node:child_process';
import { BIN } from './cdkd-cli';

export interface TerminalResult {
  code: number | null;
  /** Everything the terminal showed (stdout and stderr together, with escape codes). */
  output: string;
}

const quote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

export function runOnTerminal(
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; answers: Array<{ when: RegExp; type: string }> },
): Promise<TerminalResult> {
  const command = [process.execPath, BIN, ...args].map(quote).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qefc', command, '/dev/null'], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const pending = [...options.answers];
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      while (pending.length > 0 && pending[0].when.test(output))
        child.stdin.write(`${pending.shift()!.type}\n`);
    });
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

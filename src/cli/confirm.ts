/**
 * A yes/no question on the terminal, for destructive commands. The question goes
 * to stderr (stdout is for payloads). Without a terminal there is nobody to ask:
 * the caller must pass `--force`, so this refuses instead of guessing.
 */
import * as readline from 'node:readline/promises';
import { ValidationError } from '../util/errors';

export async function confirmOrRefuse(question: string, forceFlag = '--force'): Promise<boolean> {
  if (!process.stdin.isTTY) {
    throw new ValidationError(
      `${question} Refusing to proceed without confirmation: stdin is not a terminal.`,
      {
        code: 'CONFIRMATION_REQUIRED',
        remedy: `Pass ${forceFlag} to proceed without a prompt.`,
      },
    );
  }
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

/**
 * Asks on a terminal; without one there is nobody to ask and the answer is yes
 * (CI runs destroy non-interactively). Callers skip it entirely with `--force`.
 */
export async function confirmIfInteractive(question: string): Promise<boolean> {
  if (!process.stdin.isTTY || !process.stderr.isTTY) return true;
  return confirmOrRefuse(question);
}

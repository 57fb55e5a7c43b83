/**
 * Yes/no questions for destructive or security-relevant steps, asked as the CDK
 * CLI asks them: on a terminal the user answers (stderr carries the question;
 * stdout is for payloads); `--yes` answers yes for them; without a terminal (or
 * with `--ci`) nobody can answer, so the step is refused and the error names
 * the flag that approves it in advance.
 */
import * as readline from 'node:readline/promises';
import type { CdkdConfig } from '../config/config';
import { ValidationError } from '../util/errors';
import type { Logger } from '../util/io-host';

/** Who can answer a question in this invocation. */
export interface Terminal {
  /** A person can answer: stdin and stderr are terminals and the run is not `--ci`. */
  interactive: boolean;
  /** `--yes`: every confirmation is answered yes. */
  assumeYes: boolean;
  /** Why nobody can answer, for the refusal. */
  whyNotInteractive: string;
}

/** The terminal of this process under the resolved configuration and `--yes`. */
export function currentTerminal(config: Pick<CdkdConfig, 'ci'>, assumeYes: boolean): Terminal {
  const tty = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  return {
    interactive: tty && !config.ci,
    assumeYes,
    whyNotInteractive: config.ci
      ? 'this is a CI run (--ci, or the CI environment variable)'
      : 'stdin is not a terminal',
  };
}

export interface ConfirmOptions {
  terminal: Terminal;
  /** The flag that approves the step in advance, for the refusal: `--force`, `--require-approval never`. */
  approveFlag: string;
  logger: Logger;
  /** Error code of the refusal. Default `CONFIRMATION_REQUIRED`. */
  code?: string;
  /** Holds other output while the question is on screen (the live progress view). */
  pauseOutput?: <T>(fn: () => Promise<T>) => Promise<T>;
}

/** One question on screen at a time (stacks deploying in parallel may each ask). */
let promptQueue: Promise<unknown> = Promise.resolve();

/** Runs `fn` (something that shows a question) after every question asked before it is answered. */
export function oneAtATime<T>(fn: () => Promise<T>): Promise<T> {
  const done = promptQueue.then(fn, fn);
  promptQueue = done.catch(() => undefined);
  return done;
}

/** Asks `question`; true to go ahead. Throws when nobody can answer. */
export function confirm(question: string, options: ConfirmOptions): Promise<boolean> {
  const show = (): Promise<boolean> => confirmNow(question, options);
  return oneAtATime(() => (options.pauseOutput ? options.pauseOutput(show) : show()));
}

/** {@link confirm} without waiting for other questions: for a caller already inside {@link oneAtATime}. */
export async function confirmNow(
  question: string,
  options: Omit<ConfirmOptions, 'pauseOutput'>,
): Promise<boolean> {
  const { terminal } = options;
  if (terminal.assumeYes) {
    options.logger.info(`${question} yes (--yes)`);
    return true;
  }
  if (!terminal.interactive) {
    throw new ValidationError(
      `${question} Refusing to go ahead without confirmation: ${terminal.whyNotInteractive}.`,
      {
        code: options.code ?? 'CONFIRMATION_REQUIRED',
        remedy: `Pass ${options.approveFlag} (or --yes) to go ahead without a prompt.`,
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

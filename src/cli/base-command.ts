/**
 * Base class of every cdkd command: the global flags, configuration and error
 * rendering. Commands stay thin: parse flags, resolve config, call one engine
 * function, render its result.
 */
import { Command, Flags } from '@oclif/core';
import type { Interfaces } from '@oclif/core';
import { resolveConfig } from '../config/config';
import type { CdkdConfig, ConfigFlags } from '../config/config';
import { CdkdError, formatError } from '../util/errors';
import { StreamIoHost, createLogger } from '../util/io-host';
import type { IoHost, Logger } from '../util/io-host';
import { currentTerminal } from './confirm';
import type { Terminal } from './confirm';
import { describeParseError, isParseError } from './parse-errors';
import { redactProcessOutput } from './redacting-output';

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof CdkdCommand)['baseFlags'] & T['flags']
>;

/** The global flags every command's configuration reads. */
interface GlobalFlagValues {
  region?: string;
  profile?: string;
  'endpoint-url'?: string;
  verbose?: boolean;
  ci?: boolean;
  color?: boolean;
}

export abstract class CdkdCommand extends Command {
  static override baseFlags = {
    region: Flags.string({
      description: 'AWS region (default: AWS_REGION, then the profile, then us-east-1)',
      helpGroup: 'GLOBAL',
    }),
    profile: Flags.string({ description: 'AWS profile from the shared config files', helpGroup: 'GLOBAL' }),
    'endpoint-url': Flags.string({
      description: 'Send every AWS API call to this endpoint (e.g. a local emulator)',
      helpGroup: 'GLOBAL',
    }),
    verbose: Flags.boolean({
      char: 'v',
      description: 'Show debug output',
      helpGroup: 'GLOBAL',
      default: false,
    }),
    json: Flags.boolean({
      char: 'j',
      description: 'Format output as json (stdout carries only the JSON document).',
      helpGroup: 'GLOBAL',
    }),
    yes: Flags.boolean({
      char: 'y',
      description: 'Answer yes to every confirmation (security-change approval, destroy)',
      helpGroup: 'GLOBAL',
      default: false,
    }),
    ci: Flags.boolean({
      description:
        'Run as in CI: never prompt (a step that needs a confirmation is refused unless approved by flag), no live progress. Default: on when the CI environment variable is set',
      allowNo: true,
      helpGroup: 'GLOBAL',
    }),
    color: Flags.boolean({
      description: 'Colour the output (default: on a terminal; --no-color or NO_COLOR turn it off)',
      allowNo: true,
      helpGroup: 'GLOBAL',
    }),
  };

  private _ioHost?: IoHost;

  /** `-j` means `--json`: oclif only recognises the long form when it decides to print JSON. */
  override async init(): Promise<void> {
    redactProcessOutput();
    const end = this.argv.indexOf('--');
    this.argv = this.argv.map((a, i) => (a === '-j' && (end === -1 || i < end) ? '--json' : a));
    await super.init();
  }

  /** Where the engine's messages go: stderr, debug lines only with --verbose. */
  protected ioHost(verbose: boolean): IoHost {
    this._ioHost ??= new StreamIoHost({ verbose });
    return this._ioHost;
  }

  protected logger(verbose: boolean): Logger {
    return createLogger(this.ioHost(verbose));
  }

  /** Who can answer a confirmation in this run (a terminal, `--yes`, `--ci`). */
  protected terminal(config: CdkdConfig, flags: { yes?: boolean }): Terminal {
    return currentTerminal(config, flags.yes ?? false);
  }

  /** Resolves configuration from the global flags plus the command's own settings. */
  protected resolveConfig(flags: GlobalFlagValues, extra: ConfigFlags = {}): CdkdConfig {
    return resolveConfig({
      flags: {
        region: flags.region,
        profile: flags.profile,
        endpointUrl: flags['endpoint-url'],
        verbose: flags.verbose,
        ci: flags.ci,
        color: flags.color,
        ...extra,
      },
    });
  }

  /**
   * cdkd errors are shown as message + remedy, with their exit code and without a
   * stack trace (under --json also as `{ error }` on stdout); a mistyped flag or
   * argument gets its error and one line pointing to --help, not the whole help.
   */
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (isParseError(err)) {
      process.stderr.write(
        `Error: ${describeParseError(err, this.id ?? '', { ...this.ctor.baseFlags, ...this.ctor.flags })}\n`,
      );
      this.exit(2);
    }
    if (CdkdError.isCdkdError(err)) {
      process.stderr.write(`Error: ${formatError(err)}\n`);
      if (this.jsonEnabled()) {
        this.logJson({
          error: {
            code: err.code,
            message: err.message,
            ...(err.remedy ? { remedy: err.remedy } : {}),
            ...(err.details !== undefined ? { details: err.details } : {}),
          },
        });
      }
      this.exit(err.exitCode);
    }
    return super.catch(err);
  }
}

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

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof CdkdCommand)['baseFlags'] & T['flags']
>;

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
  };

  private _ioHost?: IoHost;

  /** Where the engine's messages go: stderr, debug lines only with --verbose. */
  protected ioHost(verbose: boolean): IoHost {
    this._ioHost ??= new StreamIoHost({ verbose });
    return this._ioHost;
  }

  protected logger(verbose: boolean): Logger {
    return createLogger(this.ioHost(verbose));
  }

  /** Resolves configuration from the global flags plus the command's own settings. */
  protected resolveConfig(
    flags: { region?: string; profile?: string; 'endpoint-url'?: string; verbose?: boolean },
    extra: ConfigFlags = {},
  ): CdkdConfig {
    return resolveConfig({
      flags: {
        region: flags.region,
        profile: flags.profile,
        endpointUrl: flags['endpoint-url'],
        verbose: flags.verbose,
        ...extra,
      },
    });
  }

  /** cdkd errors are shown as message + remedy, with their exit code and without a stack trace. */
  protected override async catch(err: Error & { exitCode?: number }): Promise<unknown> {
    if (CdkdError.isCdkdError(err)) {
      this.logToStderr(`Error: ${formatError(err)}`);
      this.exit(err.exitCode);
    }
    return super.catch(err);
  }
}

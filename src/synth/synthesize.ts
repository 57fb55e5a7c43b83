/**
 * Synthesizes the CDK app with @aws-cdk/toolkit-lib: runs the app command (an
 * existing cloud assembly directory is read without toolkit-lib, see
 * assembly-directory.ts), performs context lookups and
 * persists their results to `cdk.context.json` as the CDK CLI does, and
 * returns the stacks. The app runs once per call.
 */
import type * as ToolkitLib from '@aws-cdk/toolkit-lib';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ICloudAssemblySource, IReadableCloudAssembly } from '@aws-cdk/toolkit-lib';
import type { CdkdConfig } from '../config/config';
import type { AwsClientFactory } from '../config/aws-clients';
import { CdkdError, ConfigError, SynthesisError } from '../util/errors';
import { createLogger } from '../util/io-host';
import type { IoHost, Logger } from '../util/io-host';
import { readAssemblyDirectory } from './assembly-directory';
import type { DirectoryAssembly } from './assembly-directory';
import { SynthesizedAssembly, readAssembly } from './cloud-assembly';
import type { CloudAssemblyLike, DefaultEnvironment } from './cloud-assembly';
import { ToolkitIoHostAdapter } from './toolkit-io-host';

export interface SynthesizeOptions {
  /** Resolved configuration: `app`, `output`, `context`, `cwd`, `profile`, `region`. */
  config: Pick<CdkdConfig, 'cwd' | 'app' | 'output' | 'context' | 'profile' | 'region'> &
    Partial<Pick<CdkdConfig, 'endpointUrl'>>;
  ioHost: IoHost;
  /**
   * The caller's account and region: given to the app as `CDK_DEFAULT_ACCOUNT`
   * / `CDK_DEFAULT_REGION`, and filled into the environment of stacks that do
   * not fix one. Default: the configured region, no account.
   */
  defaultEnvironment?: DefaultEnvironment;
  /** Perform context lookups (default true). When false, an app that needs one fails. */
  lookups?: boolean;
}

/** Synthesizes the app once and returns its stacks. Dispose the result when done. */
export async function synthesize(options: SynthesizeOptions): Promise<SynthesizedAssembly> {
  const { config, ioHost } = options;
  const log = createLogger(ioHost);
  if (!config.app) {
    throw new ConfigError('No CDK app to synthesize.', {
      remedy: `Pass --app (e.g. --app "node bin/app.js" or --app cdk.out), or set "app" in ${path.join(config.cwd, 'cdk.json')}.`,
    });
  }
  const defaults: DefaultEnvironment = {
    account: options.defaultEnvironment?.account,
    region: options.defaultEnvironment?.region ?? config.region,
  };

  const appPath = path.resolve(config.cwd, config.app);
  if (isDirectory(appPath)) {
    log.debug(`Reading the cloud assembly in ${appPath}`);
    return fromDirectory(appPath, defaults, ioHost, config.app);
  }

  const { Toolkit, CdkAppMultiContext, BaseCredentials } =
    require('@aws-cdk/toolkit-lib') as typeof ToolkitLib;
  const toolkit = new Toolkit({
    ioHost: new ToolkitIoHostAdapter(ioHost),
    color: false,
    emojis: false,
    // Context lookups use the same profile and region as the rest of cdkd.
    sdkConfig: {
      baseCredentials: BaseCredentials.awsCliCompatible({
        profile: config.profile,
        defaultRegion: defaults.region,
      }),
    },
  });

  const outdir = path.resolve(config.cwd, config.output);
  const env: Record<string, string> = {};
  if (defaults.account) env.CDK_DEFAULT_ACCOUNT = defaults.account;
  if (defaults.region) env.CDK_DEFAULT_REGION = defaults.region;
  log.debug(`Synthesizing: ${config.app}`);
  const source: ICloudAssemblySource = await toolkit.fromCdkApp(config.app, {
    workingDirectory: config.cwd,
    outdir,
    // Command-line context wins over cdk.json and cdk.context.json; lookup results are written to cdk.context.json.
    contextStore: new CdkAppMultiContext(config.cwd, config.context),
    lookups: options.lookups ?? true,
    // cdkd resolves the caller's account itself (options.defaultEnvironment) so synthesis makes no STS call of its own.
    resolveDefaultEnvironment: false,
    env,
  });

  let produced: IReadableCloudAssembly;
  try {
    produced = await withEndpointOverride(config.endpointUrl, () => source.produce());
  } catch (err) {
    throw toSynthesisError(err, config.app, outdir);
  }
  try {
    const assembly = produced.cloudAssembly as unknown as CloudAssemblyLike;
    const { stacks, unattributed } = readAssembly(assembly, defaults);
    return new SynthesizedAssembly(
      assembly.directory,
      stacks,
      ioHost,
      () => produced.dispose(),
      unattributed,
    );
  } catch (err) {
    await produced.dispose();
    throw toSynthesisError(err, config.app, outdir);
  }
}

/** An existing assembly directory: read without toolkit-lib (src/synth/assembly-directory.ts). */
function fromDirectory(
  directory: string,
  defaults: DefaultEnvironment,
  ioHost: IoHost,
  app: string,
): SynthesizedAssembly {
  let read: DirectoryAssembly;
  try {
    read = readAssemblyDirectory(directory);
  } catch (err) {
    if (CdkdError.isCdkdError(err)) throw err;
    throw new SynthesisError(`The cloud assembly in ${directory} cannot be read: ${(err as Error).message}`, {
      cause: err,
      remedy: `Synthesize it again with a CDK CLI or cdkd of this release (cdkd synth -o ${app}), or pass the app command to --app.`,
    });
  }
  try {
    const { stacks, unattributed } = readAssembly(read.assembly, defaults);
    return new SynthesizedAssembly(
      read.assembly.directory,
      stacks,
      ioHost,
      () => read.dispose(),
      unattributed,
    );
  } catch (err) {
    void read.dispose();
    throw err;
  }
}

/**
 * The environment every command synthesizes the app with, by the CDK CLI's
 * rule: the region the SDK configuration resolves (flag, AWS_REGION, the
 * profile, else us-east-1) and the caller's account when the credentials
 * resolve one (STS GetCallerIdentity); without credentials the app runs with no
 * default account, as under `cdk synth`.
 */
export async function defaultEnvironmentOf(
  aws: AwsClientFactory,
  log?: Pick<Logger, 'debug'>,
): Promise<DefaultEnvironment> {
  try {
    const identity = await aws.callerIdentity();
    return { account: identity.account, region: aws.region };
  } catch (err) {
    log?.debug(`No default account for synthesis: ${(err as Error).message}`);
    return { region: aws.region };
  }
}

/**
 * Synthesizes the app the way every command does (synth, list, diff, deploy,
 * destroy, watch): with {@link defaultEnvironmentOf} the factory's caller, so
 * the same app yields the same templates whichever command runs it.
 */
export async function synthesizeApp(
  options: Omit<SynthesizeOptions, 'defaultEnvironment'> & { aws: AwsClientFactory },
): Promise<SynthesizedAssembly> {
  const { aws, ...rest } = options;
  return synthesize({
    ...rest,
    defaultEnvironment: await defaultEnvironmentOf(aws, createLogger(rest.ioHost)),
  });
}

/**
 * Context lookups run in toolkit-lib's own SDK clients, which take endpoint
 * overrides only from the SDK's environment settings: `--endpoint-url` is
 * passed on as `AWS_ENDPOINT_URL` while the app is synthesized.
 */
async function withEndpointOverride<T>(endpointUrl: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!endpointUrl || process.env.AWS_ENDPOINT_URL === endpointUrl) return fn();
  const previous = process.env.AWS_ENDPOINT_URL;
  process.env.AWS_ENDPOINT_URL = endpointUrl;
  try {
    return await fn();
  } finally {
    if (previous === undefined) delete process.env.AWS_ENDPOINT_URL;
    else process.env.AWS_ENDPOINT_URL = previous;
  }
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function toSynthesisError(err: unknown, app: string, outdir: string): CdkdError {
  if (CdkdError.isCdkdError(err)) return err;
  const message = err instanceof Error ? err.message : String(err);
  const { ToolkitError } = require('@aws-cdk/toolkit-lib') as typeof ToolkitLib;
  if (ToolkitError.isLockError(err)) {
    // Not the app's fault: another cdk or cdkd process (a watch, a deploy) is using the output directory.
    return new SynthesisError(
      `The cloud assembly directory ${outdir} is in use by another process: ${message.replace(/ Invoke the CLI in sequence.*$/, '')}`,
      {
        code: 'ASSEMBLY_DIRECTORY_BUSY',
        cause: err,
        remedy: `Wait for that command to finish (or stop it), or give this one its own directory with --output (-o), e.g. -o ${path.basename(outdir)}.2.`,
      },
    );
  }
  return new SynthesisError(`Synthesis of the CDK app failed: ${message}`, {
    cause: err,
    remedy: `Fix the app (its output is shown above), or run it by itself to reproduce: ${app}`,
  });
}

/**
 * The one place configuration is read. Every setting resolves with the same
 * precedence: command-line flag > environment variable > cdkd config file
 * (cosmiconfig, module name `cdkd`) > `cdk.json` (`app`, `context`,
 * `context.cdkd.*`) > default. The result is a plain typed object; nothing else
 * in cdkd reads `process.env` or config files for these settings.
 */
import type * as Cosmiconfig from 'cosmiconfig';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConfigError } from '../util/errors';
import { assertRegionName } from './aws-names';

/** Where a setting's value came from. */
export type ConfigSource = 'cli-flag' | 'env' | 'config-file' | 'cdk.json' | 'default';

/** Settings a command can pass as flags. Undefined means "not given". */
export interface ConfigFlags {
  app?: string;
  output?: string;
  context?: string[];
  region?: string;
  profile?: string;
  endpointUrl?: string;
  verbose?: boolean;
  stateBucket?: string;
  statePrefix?: string;
  lockTtlSeconds?: number;
  concurrency?: number;
  stackConcurrency?: number;
  /** `--require-approval`. */
  requireApproval?: string;
  /** `--tags Key=Value` entries. */
  tags?: string[];
  /** `--role-arn`. */
  roleArn?: string;
  /** `--ci` / `--no-ci`. */
  ci?: boolean;
  /** `--color` / `--no-color`. */
  color?: boolean;
  /** `--strict-packs`: refuse any provider-pack problem, not only those of declared packs. */
  strictPacks?: boolean;
  /** `--cloud-control-only`: every resource goes to Cloud Control, whatever packs are installed. */
  cloudControlOnly?: boolean;
  /** `--no-rollback` (`-R`): false keeps a failed deploy's partial state and journal. */
  rollback?: boolean;
}

/** The shape accepted in a cdkd config file (and under `context.cdkd` in cdk.json). */
export interface ConfigFile {
  app?: string;
  output?: string;
  region?: string;
  profile?: string;
  endpointUrl?: string;
  stateBucket?: string;
  statePrefix?: string;
  lockTtlSeconds?: number;
  concurrency?: number;
  stackConcurrency?: number;
  requireApproval?: string;
  /** Stack tags, `{ Key: Value }`. */
  tags?: Record<string, unknown>;
  roleArn?: string;
  context?: Record<string, unknown>;
  /** The provider packs the project needs: npm package name -> any spec npm accepts. */
  packs?: Record<string, string>;
  strictPacks?: boolean;
  packHookTimeoutSeconds?: number;
  customResourceTimeoutSeconds?: number;
}

/**
 * The provider packs a project declares (`packs`), with where they were
 * declared; `cdkd packs install` installs them under {@link projectDir}.
 */
export interface DeclaredPacks {
  /** npm package name -> spec (a semver range, a tag, a tarball path or `file:` URL...). */
  packs: Record<string, string>;
  /** The project folder: the lock file and `.cdkd/packs` live here. */
  projectDir: string;
  /** Where the declaration was read, for messages (`cdk.json (context.cdkd.packs)`); absent when none. */
  declaredIn?: string;
}

/** Which security-relevant changes a deploy asks about (the CDK CLI's `--require-approval`). */
export type RequireApproval = 'never' | 'any-change' | 'broadening';
export const REQUIRE_APPROVAL_LEVELS: readonly RequireApproval[] = ['never', 'any-change', 'broadening'];

/** The files `cdkd watch` observes (cdk.json `watch`, as the CDK CLI reads it). */
export interface WatchSettings {
  include: string[];
  exclude: string[];
}

export interface CdkdConfig {
  /** Working directory the app, cdk.json and config file are resolved from. */
  cwd: string;
  /** Command that synthesizes the CDK app, or a path to a cloud assembly directory. */
  app?: string;
  /** Cloud assembly output directory. */
  output: string;
  /** CDK context: cdk.json `context` < config file `context` < `--context`. */
  context: Record<string, unknown>;
  /** Explicit region (undefined: let the client factory resolve it from the profile / SDK chain). */
  region?: string;
  profile?: string;
  /** Endpoint override for every AWS service (`--endpoint-url`). */
  endpointUrl?: string;
  verbose: boolean;
  stateBucket?: string;
  statePrefix: string;
  lockTtlSeconds: number;
  /**
   * Cap on the resource operations of one stack in flight at once (`--concurrency`).
   * Undefined: no cap beyond the adaptive limits (src/util/adaptive-concurrency.ts).
   */
  concurrency?: number;
  stackConcurrency: number;
  requireApproval: RequireApproval;
  /**
   * Stack tags from `--tags` or the configuration; undefined when none is given
   * (the assembly's stack tags apply). Given ones replace the assembly's, as with the CDK CLI.
   */
  tags?: Record<string, string>;
  /** Role assumed for every AWS call of the command (`--role-arn`). */
  roleArn?: string;
  /** Running in CI (`--ci`, default: the CI environment variable): no prompts, no live progress. */
  ci: boolean;
  /** Colour: true / false when forced (`--color`, `--no-color`, `NO_COLOR`), undefined = when the output is a terminal. */
  color?: boolean;
  /** cdk.json `watch`, when present. */
  watch?: WatchSettings;
  /** The provider packs the project declares. */
  packs: DeclaredPacks;
  /** Refuse every provider-pack problem (not only those of declared packs) before changing anything. */
  strictPacks: boolean;
  /** How long a pack's `cdkd:providers` hook may take before it is abandoned. */
  packHookTimeoutSeconds: number;
  /** How long a custom resource's handler may take to respond (CloudFormation's hour); a resource's ServiceTimeout wins. */
  customResourceTimeoutSeconds: number;
  /** Send every resource to Cloud Control, whatever packs are installed (`--cloud-control-only`; flag only). */
  cloudControlOnly: boolean;
  /** Revert a failed deploy automatically (the CloudFormation default; `--no-rollback` turns it off; flag only). */
  rollback: boolean;
  /** Path of the cdkd config file that was loaded, if any. */
  configFile?: string;
  /** Where each resolved setting came from. */
  sources: Partial<Record<keyof ConfigFile | 'verbose', ConfigSource>>;
}

export interface ResolveConfigInput {
  flags?: ConfigFlags;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export const DEFAULTS = {
  output: 'cdk.out',
  statePrefix: 'cdkd',
  lockTtlSeconds: 30 * 60,
  stackConcurrency: 4,
  requireApproval: 'broadening',
  strictPacks: false,
  packHookTimeoutSeconds: 30,
  customResourceTimeoutSeconds: 3600,
} as const;

/** Environment variables cdkd reads, by setting. */
export const ENV_VARS = {
  app: 'CDKD_APP',
  output: 'CDKD_OUTPUT',
  stateBucket: 'CDKD_STATE_BUCKET',
  statePrefix: 'CDKD_STATE_PREFIX',
  lockTtlSeconds: 'CDKD_LOCK_TTL_SECONDS',
  concurrency: 'CDKD_CONCURRENCY',
  stackConcurrency: 'CDKD_STACK_CONCURRENCY',
  endpointUrl: 'CDKD_ENDPOINT_URL',
  strictPacks: 'CDKD_STRICT_PACKS',
  packHookTimeoutSeconds: 'CDKD_PACK_HOOK_TIMEOUT_SECONDS',
  customResourceTimeoutSeconds: 'CDKD_CUSTOM_RESOURCE_TIMEOUT_SECONDS',
} as const;

export const CONFIG_SEARCH_PLACES = [
  'package.json',
  '.cdkdrc',
  '.cdkdrc.json',
  '.cdkdrc.yaml',
  '.cdkdrc.yml',
  '.cdkdrc.js',
  '.cdkdrc.cjs',
  '.cdkdrc.ts',
  'cdkd.config.json',
  'cdkd.config.js',
  'cdkd.config.cjs',
  'cdkd.config.ts',
];

const FILE_KEYS: Record<keyof ConfigFile, 'string' | 'number' | 'boolean' | 'object'> = {
  app: 'string',
  output: 'string',
  region: 'string',
  profile: 'string',
  endpointUrl: 'string',
  stateBucket: 'string',
  statePrefix: 'string',
  lockTtlSeconds: 'number',
  concurrency: 'number',
  stackConcurrency: 'number',
  requireApproval: 'string',
  tags: 'object',
  roleArn: 'string',
  context: 'object',
  packs: 'object',
  strictPacks: 'boolean',
  packHookTimeoutSeconds: 'number',
  customResourceTimeoutSeconds: 'number',
};

/** npm's package-name rule (lower case, URL-safe, optionally `@scope/`). */
const NPM_PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9~-][a-z0-9._~-]*$/;

function validatePacks(value: Record<string, unknown>, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, spec] of Object.entries(value)) {
    if (!NPM_PACKAGE_NAME.test(name) || name.length > 214) {
      throw new ConfigError(
        `Invalid cdkd configuration in ${where}: packs: '${name}' is not an npm package name.`,
        {
          remedy: 'Name each pack by its npm package name, e.g. "@acme/cdkd-provider-billing": "~2.3.0".',
        },
      );
    }
    if (typeof spec !== 'string' || spec.trim() === '') {
      throw new ConfigError(
        `Invalid cdkd configuration in ${where}: packs: '${name}' must map to a version range, tag or path, got ${JSON.stringify(spec)}.`,
        { remedy: `For example "${name}": "^1.0.0".` },
      );
    }
    if (spec.startsWith('npm:')) {
      throw new ConfigError(
        `Invalid cdkd configuration in ${where}: packs: '${name}' is an npm alias (${spec}); a pack is declared by its own package name.`,
        { remedy: `Declare the aliased package under its own name instead of ${name}.` },
      );
    }
    out[name] = spec.trim();
  }
  return out;
}

function validateFileConfig(value: unknown, where: string): ConfigFile {
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(
      `Invalid cdkd configuration in ${where}: expected an object, got ${JSON.stringify(value)}.`,
    );
  }
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const expected = FILE_KEYS[key as keyof ConfigFile];
    if (!expected) {
      throw new ConfigError(`Invalid cdkd configuration in ${where}: unknown setting '${key}'.`, {
        remedy: `Known settings: ${Object.keys(FILE_KEYS).join(', ')}.`,
      });
    }
    const ok =
      expected === 'object'
        ? typeof v === 'object' && v !== null && !Array.isArray(v)
        : typeof v === expected;
    if (!ok) {
      throw new ConfigError(
        `Invalid cdkd configuration in ${where}: '${key}' must be a ${expected}, got ${JSON.stringify(v)}.`,
      );
    }
    out[key] = key === 'packs' ? validatePacks(v as Record<string, unknown>, where) : v;
  }
  return out as ConfigFile;
}

interface CdkJson {
  app?: string;
  output?: string;
  /** CDK CLI settings cdkd honours too. */
  requireApproval?: string;
  tags?: unknown;
  roleArn?: string;
  watch?: WatchSettings;
  context: Record<string, unknown>;
  cdkd: ConfigFile;
}

function readCdkJson(cwd: string): CdkJson {
  const file = path.join(cwd, 'cdk.json');
  if (!fs.existsSync(file)) return { context: {}, cdkd: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Cannot parse ${file}: ${(err as Error).message}`, {
      remedy: 'Fix the JSON syntax.',
    });
  }
  const obj = (parsed ?? {}) as Record<string, unknown>;
  const context = { ...((obj.context as Record<string, unknown> | undefined) ?? {}) };
  const cdkd = validateFileConfig(context.cdkd, `${file} (context.cdkd)`);
  delete context.cdkd;
  return {
    app: typeof obj.app === 'string' ? obj.app : undefined,
    output: typeof obj.output === 'string' ? obj.output : undefined,
    requireApproval: typeof obj.requireApproval === 'string' ? obj.requireApproval : undefined,
    tags: obj.tags,
    roleArn: typeof obj.roleArn === 'string' ? obj.roleArn : undefined,
    watch: readWatchSettings(obj.watch, file),
    context,
    cdkd,
  };
}

/** cdk.json `watch` as the CDK CLI reads it: `include` defaults to everything, each may be one pattern or a list. */
function readWatchSettings(value: unknown, file: string): WatchSettings | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`Invalid "watch" in ${file}: expected an object with "include" and "exclude".`, {
      remedy: 'Write it as { "include": ["**"], "exclude": ["test"] }.',
    });
  }
  const list = (key: 'include' | 'exclude'): string[] => {
    const v = (value as Record<string, unknown>)[key];
    const items = v === undefined ? [] : Array.isArray(v) ? v : [v];
    if (!items.every((i): i is string => typeof i === 'string')) {
      throw new ConfigError(`Invalid "watch.${key}" in ${file}: expected a glob pattern or a list of them.`);
    }
    return items;
  };
  const include = list('include');
  return { include: include.length > 0 ? include : ['**'], exclude: list('exclude') };
}

/** Parses `--tags Key=Value` entries (the value may contain `=`). */
export function parseTagFlags(entries: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const entry of entries) {
    if (entry === '') continue;
    const eq = entry.indexOf('=');
    if (eq <= 0) throw new ConfigError(`Invalid --tags '${entry}': expected Key=Value.`);
    out[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return checkTags(out, '--tags');
}

/** Stack tags from a configuration file: `{ Key: Value }` or the CDK CLI's `[{ Key, Value }]`. */
function readConfiguredTags(value: unknown, where: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(value)) {
    for (const item of value) {
      const t = item as { Key?: unknown; Value?: unknown };
      if (typeof t?.Key !== 'string' || typeof t.Value !== 'string')
        throw new ConfigError(
          `Invalid tags in ${where}: each entry must be { "Key": string, "Value": string }.`,
        );
      out[t.Key] = t.Value;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v !== 'string')
        throw new ConfigError(`Invalid tags in ${where}: the value of ${k} must be a string.`);
      out[k] = v;
    }
  } else {
    throw new ConfigError(`Invalid tags in ${where}: expected { "Key": "Value" }.`);
  }
  return checkTags(out, where);
}

/** CloudFormation's tag rules: key 1-128 characters, not `aws:`-prefixed; value at most 256. */
function checkTags(tags: Record<string, string>, where: string): Record<string, string> {
  for (const [key, value] of Object.entries(tags)) {
    const problem =
      key.length > 128
        ? 'the key is longer than 128 characters'
        : /^aws:/i.test(key)
          ? 'keys starting with aws: are reserved for AWS'
          : value.length > 256
            ? 'the value is longer than 256 characters'
            : undefined;
    if (problem) throw new ConfigError(`Invalid tag ${key} (${where}): ${problem}.`);
  }
  return tags;
}

/** The CI convention the CDK CLI follows: CI set to anything but `false` or `0`. */
export function isCiEnvironment(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

function loadConfigFile(cwd: string): { config: ConfigFile; file?: string } {
  // Required lazily: cosmiconfig is only needed by commands that resolve config.
  const { cosmiconfigSync } = require('cosmiconfig') as typeof Cosmiconfig;
  const explorer = cosmiconfigSync('cdkd', { searchPlaces: CONFIG_SEARCH_PLACES, searchStrategy: 'none' });
  let result: ReturnType<typeof explorer.search>;
  try {
    result = explorer.search(cwd);
  } catch (err) {
    const e = err as Error & { filepath?: string };
    const where = e.filepath ?? findFirstExisting(cwd) ?? cwd;
    throw new ConfigError(`Cannot load cdkd configuration file ${where}: ${e.message}`, {
      remedy: 'Fix the file, or remove it.',
    });
  }
  if (!result || result.isEmpty) return { config: {}, file: result?.filepath };
  return { config: validateFileConfig(result.config, result.filepath), file: result.filepath };
}

function findFirstExisting(cwd: string): string | undefined {
  return CONFIG_SEARCH_PLACES.filter((p) => p !== 'package.json')
    .map((p) => path.join(cwd, p))
    .find((p) => fs.existsSync(p));
}

function parseBoolean(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new ConfigError(`Environment variable ${name} must be true or false, got '${value}'.`);
}

function parseNumber(value: string | undefined, name: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) {
    throw new ConfigError(`Environment variable ${name} must be a positive number, got '${value}'.`);
  }
  return n;
}

/** Parses `--context key=value` entries; values stay strings, as with the CDK CLI. */
export function parseContextFlags(entries: string[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const entry of entries ?? []) {
    const eq = entry.indexOf('=');
    if (eq <= 0) {
      throw new ConfigError(`Invalid --context '${entry}': expected key=value.`);
    }
    const key = entry.slice(0, eq);
    const raw = entry.slice(eq + 1);
    out[key] = raw;
  }
  return out;
}

export function resolveConfig(input: ResolveConfigInput = {}): CdkdConfig {
  const env = input.env ?? process.env;
  const cwd = path.resolve(input.cwd ?? process.cwd());
  const flags = input.flags ?? {};
  const cdkJson = readCdkJson(cwd);
  const { config: file, file: configFile } = loadConfigFile(cwd);
  const sources: CdkdConfig['sources'] = {};

  function pick<K extends keyof ConfigFile>(
    key: K,
    flagValue: ConfigFile[K] | undefined,
    envValue: ConfigFile[K] | undefined,
    cdkJsonValue: ConfigFile[K] | undefined,
  ): ConfigFile[K] | undefined {
    const candidates: [ConfigSource, ConfigFile[K] | undefined][] = [
      ['cli-flag', flagValue],
      ['env', envValue],
      ['config-file', file[key]],
      ['cdk.json', cdkJsonValue],
    ];
    for (const [source, value] of candidates) {
      if (value !== undefined && value !== '') {
        sources[key] = source;
        return value;
      }
    }
    return undefined;
  }

  function withDefault<K extends keyof typeof DEFAULTS>(
    key: K,
    value: ConfigFile[K] | undefined,
  ): (typeof DEFAULTS)[K] | NonNullable<ConfigFile[K]> {
    if (value !== undefined) return value as NonNullable<ConfigFile[K]>;
    sources[key] = 'default';
    return DEFAULTS[key];
  }

  const app = pick('app', flags.app, env[ENV_VARS.app], cdkJson.cdkd.app ?? cdkJson.app);
  const output = pick('output', flags.output, env[ENV_VARS.output], cdkJson.cdkd.output ?? cdkJson.output);
  const region = pick('region', flags.region, env.AWS_REGION || env.AWS_DEFAULT_REGION, cdkJson.cdkd.region);
  const profile = pick('profile', flags.profile, env.AWS_PROFILE, cdkJson.cdkd.profile);
  const endpointUrl = pick(
    'endpointUrl',
    flags.endpointUrl,
    env[ENV_VARS.endpointUrl],
    cdkJson.cdkd.endpointUrl,
  );
  const stateBucket = pick(
    'stateBucket',
    flags.stateBucket,
    env[ENV_VARS.stateBucket],
    cdkJson.cdkd.stateBucket,
  );
  const statePrefix = pick(
    'statePrefix',
    flags.statePrefix,
    env[ENV_VARS.statePrefix],
    cdkJson.cdkd.statePrefix,
  );
  const lockTtlSeconds = pick(
    'lockTtlSeconds',
    flags.lockTtlSeconds,
    parseNumber(env[ENV_VARS.lockTtlSeconds], ENV_VARS.lockTtlSeconds),
    cdkJson.cdkd.lockTtlSeconds,
  );
  const concurrency = pick(
    'concurrency',
    flags.concurrency,
    parseNumber(env[ENV_VARS.concurrency], ENV_VARS.concurrency),
    cdkJson.cdkd.concurrency,
  );
  const stackConcurrency = pick(
    'stackConcurrency',
    flags.stackConcurrency,
    parseNumber(env[ENV_VARS.stackConcurrency], ENV_VARS.stackConcurrency),
    cdkJson.cdkd.stackConcurrency,
  );
  const requireApproval = pick(
    'requireApproval',
    flags.requireApproval,
    undefined,
    cdkJson.cdkd.requireApproval ?? cdkJson.requireApproval,
  );
  if (
    requireApproval !== undefined &&
    !(REQUIRE_APPROVAL_LEVELS as readonly string[]).includes(requireApproval)
  ) {
    throw new ConfigError(
      `Invalid requireApproval '${requireApproval}' (${sources.requireApproval}): expected ${REQUIRE_APPROVAL_LEVELS.join(', ')}.`,
    );
  }
  const roleArn = pick('roleArn', flags.roleArn, undefined, cdkJson.cdkd.roleArn ?? cdkJson.roleArn);
  const tags = resolveTags(flags.tags, file.tags, cdkJson, sources);
  const strictPacks = pick(
    'strictPacks',
    flags.strictPacks,
    parseBoolean(env[ENV_VARS.strictPacks], ENV_VARS.strictPacks),
    cdkJson.cdkd.strictPacks,
  );
  const packHookTimeoutSeconds = pick(
    'packHookTimeoutSeconds',
    undefined,
    parseNumber(env[ENV_VARS.packHookTimeoutSeconds], ENV_VARS.packHookTimeoutSeconds),
    cdkJson.cdkd.packHookTimeoutSeconds,
  );
  const customResourceTimeoutSeconds = pick(
    'customResourceTimeoutSeconds',
    undefined,
    parseNumber(env[ENV_VARS.customResourceTimeoutSeconds], ENV_VARS.customResourceTimeoutSeconds),
    cdkJson.cdkd.customResourceTimeoutSeconds,
  );
  // Declared packs come from one place, never merged: the config file's list, else cdk.json's.
  const packs: DeclaredPacks = file.packs
    ? { packs: file.packs, projectDir: cwd, declaredIn: `${configFile} (packs)` }
    : cdkJson.cdkd.packs
      ? { packs: cdkJson.cdkd.packs, projectDir: cwd, declaredIn: 'cdk.json (context.cdkd.packs)' }
      : { packs: {}, projectDir: cwd };
  if (packs.declaredIn) sources.packs = file.packs ? 'config-file' : 'cdk.json';
  if (concurrency === undefined) sources.concurrency = 'default';
  const verbose = flags.verbose ?? false;
  sources.verbose = flags.verbose === undefined ? 'default' : 'cli-flag';
  if (region !== undefined) assertRegionName(region, sourceLabel(sources.region));

  for (const [name, value] of [
    ['concurrency', concurrency],
    ['stackConcurrency', stackConcurrency],
    ['customResourceTimeoutSeconds', customResourceTimeoutSeconds],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) {
      throw new ConfigError(`${name} must be a positive integer, got ${value}.`);
    }
  }

  // Context merges rather than overrides: cdk.json < config file < --context.
  const context = {
    ...cdkJson.context,
    ...(cdkJson.cdkd.context ?? {}),
    ...(file.context ?? {}),
    ...parseContextFlags(flags.context),
  };

  return {
    cwd,
    app,
    output: withDefault('output', output),
    context,
    region,
    profile,
    endpointUrl,
    verbose,
    stateBucket,
    statePrefix: withDefault('statePrefix', statePrefix),
    lockTtlSeconds: withDefault('lockTtlSeconds', lockTtlSeconds),
    concurrency,
    stackConcurrency: withDefault('stackConcurrency', stackConcurrency),
    requireApproval: withDefault('requireApproval', requireApproval) as RequireApproval,
    tags,
    roleArn,
    ci: flags.ci ?? isCiEnvironment(env),
    color: flags.color ?? (env.NO_COLOR !== undefined && env.NO_COLOR !== '' ? false : undefined),
    watch: cdkJson.watch,
    packs,
    strictPacks: withDefault('strictPacks', strictPacks),
    packHookTimeoutSeconds: withDefault('packHookTimeoutSeconds', packHookTimeoutSeconds),
    customResourceTimeoutSeconds: withDefault('customResourceTimeoutSeconds', customResourceTimeoutSeconds),
    cloudControlOnly: flags.cloudControlOnly ?? false,
    rollback: flags.rollback ?? true,
    configFile,
    sources,
  };
}

/** --tags > config file > cdk.json (`context.cdkd.tags`, then the CDK CLI's top-level `tags`). */
function resolveTags(
  flagTags: string[] | undefined,
  fileTags: Record<string, unknown> | undefined,
  cdkJson: CdkJson,
  sources: CdkdConfig['sources'],
): Record<string, string> | undefined {
  if (flagTags && flagTags.length > 0) {
    sources.tags = 'cli-flag';
    return parseTagFlags(flagTags);
  }
  if (fileTags !== undefined) {
    sources.tags = 'config-file';
    return readConfiguredTags(fileTags, 'the cdkd config file');
  }
  const fromCdkJson = cdkJson.cdkd.tags ?? cdkJson.tags;
  if (fromCdkJson !== undefined) {
    sources.tags = 'cdk.json';
    return readConfiguredTags(fromCdkJson, 'cdk.json');
  }
  return undefined;
}

function sourceLabel(source: ConfigSource | undefined): string {
  switch (source) {
    case 'cli-flag':
      return 'from --region';
    case 'env':
      return 'from AWS_REGION / AWS_DEFAULT_REGION';
    case 'config-file':
      return 'from the cdkd config file';
    case 'cdk.json':
      return 'from cdk.json';
    default:
      return 'configured';
  }
}

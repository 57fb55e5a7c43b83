/** SSM Parameter Store: parameters with their versions, per account and region. */
import { AwsError } from '../../core/errors';
import type { ServiceStore } from '../../core/service';
import { partitionOf } from '../../core/accounts';
import { parsePolicies, resolveTier, validateDataType, type Tier } from './parameter-rules';
import { isPublicParameter, PublicParameters } from './public-parameters';
import { DEFAULT_SSM_KEY, type SecureStringCipher } from './secure-strings';

export type ParameterType = 'String' | 'StringList' | 'SecureString';

export interface ParameterVersion {
  version: number;
  /** The value; for a SecureString, the decrypted value (reads return {@link ciphertext}). */
  value: string;
  type: ParameterType;
  description?: string;
  allowedPattern?: string;
  /** SecureString: the KMS key as the request named it. */
  keyId?: string;
  /** SecureString: base64 of the value encrypted under {@link keyId}. */
  ciphertext?: string;
  dataType: string;
  tier: Tier;
  /** Parameter policies, each as its JSON text. */
  policies?: string[];
  lastModified: Date;
  lastModifiedUser: string;
  labels: string[];
}

export interface Parameter {
  account: string;
  region: string;
  name: string;
  /** Oldest first; the last is the current version. */
  versions: ParameterVersion[];
  tags: Record<string, string>;
}

export interface PutParameterInput {
  name: string;
  value: string;
  type?: ParameterType;
  description?: string;
  allowedPattern?: string;
  keyId?: string;
  dataType?: string;
  tier?: string;
  /** The `Policies` JSON array text; `[]` removes the policies. */
  policies?: string;
  overwrite?: boolean;
  tags?: Record<string, string>;
  user: string;
  /** Allows names under the reserved `aws`/`ssm` prefixes (public parameters seeded through the control API). */
  allowReserved?: boolean;
}

const TYPES = new Set(['String', 'StringList', 'SecureString']);
const MAX_VERSIONS = 100;

export const ssmErrors = {
  notFound: (name?: string) =>
    new AwsError('ParameterNotFound', name ? `Parameter ${name} not found.` : '', 400),
  validation: (message: string) => new AwsError('ValidationException', message, 400),
};

export class SsmStore implements ServiceStore {
  readonly parameters = new Map<string, Parameter>();
  /** AWS's public parameters (`/aws/service/...`), in every region; a seeded one of the same name wins. */
  readonly publicParameters = new PublicParameters();

  constructor(private readonly secureStrings?: SecureStringCipher) {}

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  get(account: string, region: string, name: string): Parameter | undefined {
    const normalized = normalizeName(name);
    return (
      this.parameters.get(SsmStore.key(account, region, normalized)) ??
      this.publicParameters.get(region, normalized)
    );
  }

  /** The parameters under a path prefix: the account's, and AWS's public ones under `/aws/service/`. */
  under(account: string, region: string, prefix: string): Parameter[] {
    const own = this.list(account, region).filter((p) => p.name.startsWith(prefix));
    if (!isPublicParameter(prefix)) return own;
    const seeded = new Set(own.map((p) => p.name));
    return [...own, ...this.publicParameters.under(region, prefix).filter((p) => !seeded.has(p.name))].sort(
      (a, b) => (a.name < b.name ? -1 : 1),
    );
  }

  /** PutParameter: a new parameter (version 1) or, with overwrite, a new version. */
  put(account: string, region: string, input: PutParameterInput): Parameter {
    const name = normalizeName(input.name);
    validateName(name, input.allowReserved === true);
    if (input.value === undefined || input.value === null || input.value === '') {
      throw ssmErrors.validation(
        "1 validation error detected: Value '' at 'value' failed to satisfy constraint: Member must have length greater than or equal to 1",
      );
    }
    if (input.type !== undefined && !TYPES.has(input.type)) {
      throw ssmErrors.validation(
        `1 validation error detected: Value '${input.type}' at 'type' failed to satisfy constraint: Member must satisfy enum value set: [SecureString, StringList, String]`,
      );
    }
    if (input.tags && input.overwrite) {
      throw ssmErrors.validation(
        "Invalid request: tags and overwrite can't be used together. To create a parameter with tags, please remove overwrite flag. To update tags for an existing parameter, please use AddTagsToResource or RemoveTagsFromResource.",
      );
    }
    if (input.tags && Object.keys(input.tags).length > 50)
      throw new AwsError(
        'TooManyTagsError',
        'The Targets parameter includes too many tags. Remove one or more tags and try the command again.',
        400,
      );
    const key = SsmStore.key(account, region, name);
    const existing = this.parameters.get(key);
    if (existing && !input.overwrite) {
      throw new AwsError(
        'ParameterAlreadyExists',
        'The parameter already exists. To overwrite this value, set the overwrite option in the request to true.',
        400,
      );
    }
    const previous = existing ? currentVersion(existing) : undefined;
    const type = input.type ?? previous?.type;
    if (!type) throw ssmErrors.validation('A parameter type is required when you create a parameter.');
    if (previous && type !== previous.type && (type === 'SecureString' || previous.type === 'SecureString')) {
      throw new AwsError(
        'HierarchyTypeMismatchException',
        `The parameter type can't be changed from ${previous.type} to ${type}: Parameter Store doesn't support changing a parameter type between String and SecureString. You must create a new, unique parameter.`,
        400,
      );
    }
    if (input.keyId !== undefined && type !== 'SecureString')
      throw ssmErrors.validation('KeyId is only valid for a SecureString parameter.');
    // An empty description or pattern removes it.
    const allowedPattern = (input.allowedPattern ?? previous?.allowedPattern) || undefined;
    if (allowedPattern) {
      let pattern: RegExp;
      try {
        pattern = new RegExp(allowedPattern);
      } catch {
        throw new AwsError(
          'InvalidAllowedPatternException',
          `The allowed pattern ${allowedPattern} is not a valid regular expression.`,
          400,
        );
      }
      if (!pattern.test(input.value)) {
        throw new AwsError(
          'ParameterPatternMismatchException',
          `Parameter value, cannot be validated against allowedPattern: ${allowedPattern}`,
          400,
        );
      }
    }
    const dataType = input.dataType ?? previous?.dataType ?? 'text';
    validateDataType(dataType, type, input.value);
    const policies = input.policies !== undefined ? parsePolicies(input.policies) : previous?.policies;
    const tier = resolveTier(
      input.tier,
      previous?.tier,
      Buffer.byteLength(input.value),
      (policies ?? []).length > 0,
    );
    if (existing && existing.versions.length >= MAX_VERSIONS) {
      // The oldest version makes room, unless a label holds it.
      const oldest = existing.versions[0]!;
      if (oldest.labels.length) {
        throw new AwsError(
          'ParameterMaxVersionLimitExceeded',
          `You attempted to create a new version of ${name} by calling the PutParameter API with the overwrite flag. Version ${oldest.version}, the oldest version, can't be deleted because it has a label associated with it. Move the label to another version of the parameter, and try again.`,
          400,
        );
      }
    }
    const keyId = type === 'SecureString' ? (input.keyId ?? previous?.keyId ?? DEFAULT_SSM_KEY) : undefined;
    const arn = parameterArn({ account, region, name });
    const version: ParameterVersion = {
      version: (previous?.version ?? 0) + 1,
      value: input.value,
      type,
      description: (input.description ?? previous?.description) || undefined,
      allowedPattern,
      keyId,
      ciphertext:
        keyId !== undefined && this.secureStrings
          ? this.secureStrings.encrypt({ account, region }, keyId, arn, input.value)
          : undefined,
      dataType,
      tier,
      policies: policies && policies.length ? policies : undefined,
      lastModified: new Date(),
      lastModifiedUser: input.user,
      labels: [],
    };
    if (existing) {
      if (existing.versions.length >= MAX_VERSIONS) existing.versions.shift();
      existing.versions.push(version);
      return existing;
    }
    const parameter: Parameter = {
      account,
      region,
      name,
      versions: [version],
      tags: { ...(input.tags ?? {}) },
    };
    this.parameters.set(key, parameter);
    return parameter;
  }

  /** A SecureString version's value, decrypted through KMS (the key must still be usable). */
  decrypted(parameter: Parameter, version: ParameterVersion): string {
    if (version.ciphertext === undefined || !this.secureStrings) return version.value;
    return this.secureStrings.decrypt(parameter, parameterArn(parameter), version.ciphertext);
  }

  delete(account: string, region: string, name: string): boolean {
    return this.parameters.delete(SsmStore.key(account, region, normalizeName(name)));
  }

  list(account: string, region: string): Parameter[] {
    return [...this.parameters.values()]
      .filter((p) => p.account === account && p.region === region)
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  clear(): void {
    this.parameters.clear();
  }

  snapshot(): { parameters: unknown[] } {
    return {
      parameters: [...this.parameters.values()].map((p) => ({
        ...p,
        versions: p.versions.map((v) => ({ ...v, lastModified: v.lastModified.toISOString() })),
      })),
    };
  }

  restore(saved: unknown): void {
    type Saved = Omit<Parameter, 'versions'> & {
      versions: Array<Omit<ParameterVersion, 'lastModified'> & { lastModified: string }>;
    };
    for (const p of (saved as { parameters?: Saved[] }).parameters ?? []) {
      this.parameters.set(SsmStore.key(p.account, p.region, p.name), {
        ...p,
        versions: p.versions.map((v) => ({ ...v, lastModified: new Date(v.lastModified) })),
      });
    }
  }
}

export function currentVersion(parameter: Parameter): ParameterVersion {
  return parameter.versions[parameter.versions.length - 1]!;
}

export function parameterArn(parameter: Pick<Parameter, 'account' | 'region' | 'name'>): string {
  return `arn:${partitionOf(parameter.region)}:ssm:${parameter.region}:${parameter.account}:parameter/${parameter.name.replace(/^\//, '')}`;
}

/** A parameter given by ARN is named by what follows `parameter`. */
function normalizeName(name: string): string {
  const m = /^arn:aws[a-z-]*:ssm:[^:]*:\d{12}:parameter(\/.*)$/.exec(name);
  if (!m) return name;
  // ARNs of top-level names drop the leading slash the name never had.
  return m[1]!.split('/').length > 2 ? m[1]! : m[1]!.slice(1);
}

function validateName(name: string, allowReserved: boolean): void {
  if (!name || name.length > 1011) {
    throw ssmErrors.validation(
      `1 validation error detected: Value '${name}' at 'name' failed to satisfy constraint: Member must have length less than or equal to 2048`,
    );
  }
  if (!/^[A-Za-z0-9_.\-/]+$/.test(name)) {
    throw ssmErrors.validation(
      'Parameter name: can\'t be prefixed with "aws" or "ssm" (case-insensitive). It must use only letters, numbers, or the following symbols: . (period), - (hyphen), _ (underscore). Special characters are not allowed. All sub-paths, if specified, must use the forward slash symbol "/". Valid example: /get/parameters2-/by1./path0_.',
    );
  }
  const firstSegment = name.replace(/^\//, '').split('/')[0]!.toLowerCase();
  if (!allowReserved && (firstSegment.startsWith('aws') || firstSegment.startsWith('ssm'))) {
    throw new AwsError('AccessDeniedException', `No access to reserved parameter name: ${name}.`, 400);
  }
  if (name.includes('/') && !name.startsWith('/'))
    throw ssmErrors.validation('Parameter name must be a fully qualified name.');
  if (name.split('/').length - 1 > 15) {
    throw new AwsError(
      'HierarchyLevelLimitExceededException',
      'A hierarchy can have a maximum of 15 levels.',
      400,
    );
  }
}

/** Secrets Manager secrets with versions and staging labels, per account and region. */
import { randomInt } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { ServiceStore } from '../../core/service';

export interface SecretVersion {
  versionId: string;
  secretString?: string;
  /** Base64. */
  secretBinary?: string;
  stages: string[];
  created: Date;
}

export interface Secret {
  account: string;
  region: string;
  name: string;
  arn: string;
  description?: string;
  kmsKeyId?: string;
  tags: Array<{ Key: string; Value: string }>;
  created: Date;
  lastChanged: Date;
  /** Set while the secret waits for deletion. */
  deletedDate?: Date;
  versions: SecretVersion[];
}

export const secretErrors = {
  notFound: () =>
    new AwsError('ResourceNotFoundException', "Secrets Manager can't find the specified secret.", 400),
  markedForDeletion: () =>
    new AwsError(
      'InvalidRequestException',
      "You can't perform this operation on the secret because it was marked for deletion.",
      400,
    ),
};

const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export class SecretsStore implements ServiceStore {
  readonly secrets = new Map<string, Secret>();

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  /** A secret by name, full ARN or partial ARN (without the 6-character suffix). */
  find(account: string, region: string, secretId: string): Secret | undefined {
    if (secretId.startsWith('arn:')) {
      for (const s of this.secrets.values()) {
        if (s.account !== account || s.region !== region) continue;
        if (s.arn === secretId || s.arn.slice(0, -7) === secretId) return s;
      }
      return undefined;
    }
    return this.secrets.get(SecretsStore.key(account, region, secretId));
  }

  create(
    account: string,
    region: string,
    input: {
      name: string;
      description?: string;
      kmsKeyId?: string;
      secretString?: string;
      secretBinary?: string;
      tags?: Array<{ Key: string; Value: string }>;
      versionId?: string;
    },
  ): Secret {
    if (!/^[\w/+=.@-]{1,512}$/.test(input.name)) {
      throw new AwsError(
        'ValidationException',
        'Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!',
        400,
      );
    }
    const existing = this.secrets.get(SecretsStore.key(account, region, input.name));
    if (existing) {
      if (existing.deletedDate) {
        throw new AwsError(
          'InvalidRequestException',
          `You can't create this secret because a secret with this name is already scheduled for deletion.`,
          400,
        );
      }
      throw new AwsError(
        'ResourceExistsException',
        `The operation failed because the secret ${input.name} already exists.`,
        400,
      );
    }
    if (input.secretString !== undefined && input.secretBinary !== undefined) {
      throw new AwsError(
        'InvalidParameterException',
        "You can't specify both a binary secret value and a string secret value in the same secret.",
        400,
      );
    }
    let suffix = '';
    for (let i = 0; i < 6; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
    const now = new Date();
    const secret: Secret = {
      account,
      region,
      name: input.name,
      arn: `arn:aws:secretsmanager:${region}:${account}:secret:${input.name}-${suffix}`,
      description: input.description,
      kmsKeyId: input.kmsKeyId,
      tags: (input.tags ?? []).map((t) => ({ ...t })),
      created: now,
      lastChanged: now,
      versions: [],
    };
    if (input.secretString !== undefined || input.secretBinary !== undefined) {
      secret.versions.push({
        versionId: input.versionId ?? uuid(),
        secretString: input.secretString,
        secretBinary: input.secretBinary,
        stages: ['AWSCURRENT'],
        created: now,
      });
    }
    this.secrets.set(SecretsStore.key(account, region, input.name), secret);
    return secret;
  }

  /** PutSecretValue: a new version that takes AWSCURRENT (the previous one becomes AWSPREVIOUS). */
  putValue(
    secret: Secret,
    value: { secretString?: string; secretBinary?: string; versionId?: string; stages?: string[] },
  ): SecretVersion {
    if (secret.deletedDate) throw secretErrors.markedForDeletion();
    const existing = value.versionId
      ? secret.versions.find((v) => v.versionId === value.versionId)
      : undefined;
    if (existing) {
      if (existing.secretString !== value.secretString || existing.secretBinary !== value.secretBinary) {
        throw new AwsError(
          'ResourceExistsException',
          "You can't modify an existing version, you can only create a new version.",
          400,
        );
      }
      return existing;
    }
    const stages = value.stages ?? ['AWSCURRENT'];
    if (stages.includes('AWSCURRENT')) {
      for (const v of secret.versions) {
        v.stages = v.stages.filter((s) => s !== 'AWSPREVIOUS');
        if (v.stages.includes('AWSCURRENT'))
          v.stages = [...v.stages.filter((s) => s !== 'AWSCURRENT'), 'AWSPREVIOUS'];
      }
    }
    for (const v of secret.versions)
      v.stages = v.stages.filter((s) => s === 'AWSCURRENT' || s === 'AWSPREVIOUS' || !stages.includes(s));
    const version: SecretVersion = {
      versionId: value.versionId ?? uuid(),
      secretString: value.secretString,
      secretBinary: value.secretBinary,
      stages,
      created: new Date(),
    };
    secret.versions.push(version);
    // Versions with no label are deprecated and eventually removed; keep the labelled ones and the last 100.
    secret.versions = secret.versions.filter((v, i, all) => v.stages.length > 0 || i >= all.length - 100);
    secret.lastChanged = new Date();
    return version;
  }

  remove(secret: Secret): void {
    this.secrets.delete(SecretsStore.key(secret.account, secret.region, secret.name));
  }

  clear(): void {
    this.secrets.clear();
  }

  snapshot(): { secrets: unknown[] } {
    return {
      secrets: [...this.secrets.values()].map((s) => ({
        ...s,
        created: s.created.toISOString(),
        lastChanged: s.lastChanged.toISOString(),
        deletedDate: s.deletedDate?.toISOString(),
        versions: s.versions.map((v) => ({ ...v, created: v.created.toISOString() })),
      })),
    };
  }

  restore(saved: unknown): void {
    type Saved = Omit<Secret, 'created' | 'lastChanged' | 'deletedDate' | 'versions'> & {
      created: string;
      lastChanged: string;
      deletedDate?: string;
      versions: Array<Omit<SecretVersion, 'created'> & { created: string }>;
    };
    for (const s of (saved as { secrets?: Saved[] }).secrets ?? []) {
      this.secrets.set(SecretsStore.key(s.account, s.region, s.name), {
        ...s,
        created: new Date(s.created),
        lastChanged: new Date(s.lastChanged),
        deletedDate: s.deletedDate ? new Date(s.deletedDate) : undefined,
        versions: s.versions.map((v) => ({ ...v, created: new Date(v.created) })),
      });
    }
  }
}

/** A password as GetRandomPassword / GenerateSecretString makes one. */
export function generatePassword(options: {
  PasswordLength?: number;
  ExcludeCharacters?: string;
  ExcludeLowercase?: boolean;
  ExcludeUppercase?: boolean;
  ExcludeNumbers?: boolean;
  ExcludePunctuation?: boolean;
  IncludeSpace?: boolean;
  RequireEachIncludedType?: boolean;
}): string {
  const length = options.PasswordLength ?? 32;
  const exclude = new Set(options.ExcludeCharacters ?? '');
  const groups = [
    options.ExcludeLowercase ? '' : 'abcdefghijklmnopqrstuvwxyz',
    options.ExcludeUppercase ? '' : 'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
    options.ExcludeNumbers ? '' : '0123456789',
    options.ExcludePunctuation ? '' : '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
    options.IncludeSpace ? ' ' : '',
  ]
    .map((g) => [...g].filter((c) => !exclude.has(c)).join(''))
    .filter((g) => g.length > 0);
  const all = groups.join('');
  if (!all || length < 1 || length > 4096) {
    throw new AwsError(
      'InvalidParameterException',
      'The password length or character set leaves nothing to choose from.',
      400,
    );
  }
  const chars: string[] = [];
  if (options.RequireEachIncludedType !== false) for (const g of groups) chars.push(g[randomInt(g.length)]!);
  while (chars.length < length) chars.push(all[randomInt(all.length)]!);
  // Shuffle so the required characters are not always first.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.slice(0, length).join('');
}

/**
 * What Secrets Manager does to secrets, with its validation and rules, shared
 * by the native API (service.ts) and Cloud Control (resource.ts): versions and
 * staging labels, `ClientRequestToken` idempotency, recovery windows,
 * replication, resource policies and tags.
 */
import { randomInt } from 'node:crypto';
import { partitionOf } from '../../core/accounts';
import type { ConsistencySwitches } from '../../core/consistency';
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import { DEFAULT_SECRETS_KEY, type Scope, type SecretCipher } from './secret-cipher';
import { secretErrors, type Secret, type SecretsStore, type SecretVersion } from './store';

/** A force-deleted secret's name can stay taken briefly: "use appropriate back off and retry logic" (DeleteSecret). */
export const DELETE_LAG = 'secretsmanager.delete-lag';

const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const NAME = /^[\w/+=.@-]{1,512}$/;
const MAX_VERSIONS = 100;
const DAY_MS = 86_400_000;

export interface SecretValueInput {
  secretString?: string;
  /** Base64. */
  secretBinary?: string;
}

export interface CreateSecretInput extends SecretValueInput {
  name: string;
  token?: string;
  description?: string;
  kmsKeyId?: string;
  type?: string;
  tags?: Array<{ Key?: string; Value?: string }>;
  replicaRegions?: Array<{ Region?: string; KmsKeyId?: string }>;
  forceOverwriteReplicaSecret?: boolean;
}

function validToken(token: string | undefined): void {
  if (token !== undefined && (token.length < 32 || token.length > 64)) {
    throw new AwsError(
      'ValidationException',
      `1 validation error detected: Value at 'clientRequestToken' failed to satisfy constraint: Member must have length between 32 and 64`,
      400,
    );
  }
}

function validTags(tags: Array<{ Key?: string; Value?: string }>): Array<{ Key: string; Value: string }> {
  return tags.map((t) => {
    const Key = t.Key ?? '';
    if (Key.length < 1 || Key.length > 128 || (t.Value ?? '').length > 256)
      throw secretErrors.invalidParameter(`Invalid tag: keys are 1-128 characters and values 0-256: ${Key}`);
    if (Key.toLowerCase().startsWith('aws:'))
      throw secretErrors.invalidParameter(`Tag keys that begin with aws: are reserved: ${Key}`);
    return { Key, Value: t.Value ?? '' };
  });
}

function sameValue(version: SecretVersion, value: SecretValueInput): boolean {
  return version.secretString === value.secretString && version.secretBinary === value.secretBinary;
}

/** A KMS key that names the AWS managed default is recorded as no key (DescribeSecret omits it). */
function recordedKey(kmsKeyId: string | undefined): string | undefined {
  return kmsKeyId === undefined || kmsKeyId === '' || kmsKeyId === DEFAULT_SECRETS_KEY ? undefined : kmsKeyId;
}

export class SecretsManagement {
  constructor(
    readonly store: SecretsStore,
    private readonly cipher: SecretCipher,
    private readonly consistency: ConsistencySwitches,
  ) {}

  /** A secret, scheduled for deletion or not. */
  secret(scope: Scope, secretId: string): Secret {
    const secret = this.store.find(scope.account, scope.region, secretId);
    if (!secret) throw secretErrors.notFound();
    return secret;
  }

  /** A secret that is not scheduled for deletion. */
  live(scope: Scope, secretId: string): Secret {
    const secret = this.secret(scope, secretId);
    if (secret.deletedDate) throw secretErrors.markedForDeletion();
    return secret;
  }

  /** A secret that can be changed here: live, and not a replica. */
  primary(scope: Scope, secretId: string): Secret {
    const secret = this.live(scope, secretId);
    if (secret.primaryRegion !== undefined && secret.primaryRegion !== secret.region) {
      throw secretErrors.invalidRequest(
        "Operation not permitted on a replica secret. Call must be made in primary secret's region.",
      );
    }
    return secret;
  }

  create(scope: Scope, input: CreateSecretInput): { secret: Secret; version?: SecretVersion } {
    if (!NAME.test(input.name)) {
      throw new AwsError(
        'ValidationException',
        'Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!',
        400,
      );
    }
    validToken(input.token);
    if (input.secretString !== undefined && input.secretBinary !== undefined) {
      throw secretErrors.invalidParameter(
        "You can't specify both a binary secret value and a string secret value in the same secret.",
      );
    }
    const existing = this.store.find(scope.account, scope.region, input.name);
    if (existing) {
      if (existing.deletedDate) {
        throw secretErrors.invalidRequest(
          "You can't create this secret because a secret with this name is already scheduled for deletion.",
        );
      }
      // The same request again (a lost reply): the same version, whatever else the request says.
      const same = input.token ? existing.versions.find((v) => v.versionId === input.token) : undefined;
      if (same && sameValue(same, input)) return { secret: existing, version: same };
      throw new AwsError(
        'ResourceExistsException',
        same
          ? "You can't modify an existing version, you can only create a new version."
          : `The operation failed because the secret ${input.name} already exists.`,
        400,
      );
    }
    const tags = validTags(input.tags ?? []);
    if (tags.length > 50)
      throw new AwsError('LimitExceededException', 'A secret can have at most 50 tags.', 400);
    const kmsKeyId = recordedKey(input.kmsKeyId);
    if (kmsKeyId !== undefined) this.cipher.check(scope, kmsKeyId);
    let suffix = '';
    for (let i = 0; i < 6; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
    const now = new Date();
    const secret: Secret = {
      account: scope.account,
      region: scope.region,
      name: input.name,
      arn: `arn:${partitionOf(scope.region)}:secretsmanager:${scope.region}:${scope.account}:secret:${input.name}-${suffix}`,
      description: input.description || undefined,
      kmsKeyId,
      type: input.type,
      tags,
      created: now,
      lastChanged: now,
      versions: [],
      replicas: [],
    };
    let version: SecretVersion | undefined;
    if (input.secretString !== undefined || input.secretBinary !== undefined)
      version = this.newVersion(secret, input, input.token, ['AWSCURRENT']);
    this.store.add(secret);
    if (input.replicaRegions?.length)
      this.replicate(scope, secret.name, input.replicaRegions, input.forceOverwriteReplicaSecret === true);
    return { secret, version };
  }

  private newVersion(
    secret: Secret,
    value: SecretValueInput,
    token: string | undefined,
    stages: string[],
  ): SecretVersion {
    const versionId = token ?? uuid();
    const plaintext =
      value.secretString !== undefined
        ? Buffer.from(value.secretString)
        : Buffer.from(value.secretBinary ?? '', 'base64');
    const version: SecretVersion = {
      versionId,
      secretString: value.secretString,
      secretBinary: value.secretBinary,
      ciphertext: this.cipher.encrypt(secret, secret.kmsKeyId, plaintext, {
        SecretARN: secret.arn,
        SecretVersionId: versionId,
      }),
      stages,
      created: new Date(),
    };
    secret.versions.push(version);
    return version;
  }

  /** PutSecretValue: a new version, AWSCURRENT unless other stages are named; idempotent per token. */
  putValue(secret: Secret, value: SecretValueInput & { token?: string; stages?: string[] }): SecretVersion {
    validToken(value.token);
    if (value.secretString === undefined && value.secretBinary === undefined)
      throw secretErrors.invalidRequest('You must provide either SecretString or SecretBinary.');
    if (value.secretString !== undefined && value.secretBinary !== undefined)
      throw secretErrors.invalidParameter(
        "You can't specify both a binary secret value and a string secret value.",
      );
    const existing = value.token ? secret.versions.find((v) => v.versionId === value.token) : undefined;
    if (existing?.awaitingValue) return this.fillPending(secret, existing, value);
    if (existing) {
      if (!sameValue(existing, value))
        throw new AwsError(
          'ResourceExistsException',
          "You can't modify an existing version, you can only create a new version.",
          400,
        );
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
    // A staging label is on one version at a time.
    for (const v of secret.versions)
      v.stages = v.stages.filter((s) => s === 'AWSCURRENT' || s === 'AWSPREVIOUS' || !stages.includes(s));
    const version = this.newVersion(secret, value, value.token, stages);
    // Versions with no label are deprecated and eventually removed; keep the labelled ones and the last 100.
    secret.versions = secret.versions.filter(
      (v, i, all) => v.stages.length > 0 || i >= all.length - MAX_VERSIONS,
    );
    secret.lastChanged = new Date();
    return version;
  }

  /** The value a rotation function puts into the version RotateSecret labelled AWSPENDING. */
  private fillPending(
    secret: Secret,
    version: SecretVersion,
    value: SecretValueInput & { stages?: string[] },
  ): SecretVersion {
    const filled = this.newVersion(secret, value, version.versionId, version.stages);
    secret.versions = secret.versions.filter((v) => v !== filled);
    Object.assign(version, { ...filled, created: version.created });
    delete version.awaitingValue;
    for (const stage of value.stages ?? [])
      if (!version.stages.includes(stage)) this.moveStage(secret, stage, version);
    secret.lastChanged = new Date();
    return version;
  }

  /**
   * Puts a staging label on `to` (taking it off the version that has it);
   * moving AWSCURRENT leaves AWSPREVIOUS on the version that had it.
   */
  moveStage(secret: Secret, stage: string, to: SecretVersion | undefined): void {
    for (const v of secret.versions) {
      if (!v.stages.includes(stage) || v === to) continue;
      v.stages = v.stages.filter((s) => s !== stage);
      if (stage === 'AWSCURRENT' && to) {
        for (const other of secret.versions) other.stages = other.stages.filter((s) => s !== 'AWSPREVIOUS');
        v.stages.push('AWSPREVIOUS');
      }
    }
    if (to && !to.stages.includes(stage)) {
      if (stage === 'AWSCURRENT') to.stages = to.stages.filter((s) => s !== 'AWSPREVIOUS');
      to.stages.push(stage);
    }
  }

  /** A version RotateSecret makes for the rotation function to fill: AWSPENDING, no value yet. */
  pendingVersion(secret: Secret, token: string): SecretVersion {
    validToken(token);
    const existing = secret.versions.find((v) => v.versionId === token);
    if (existing) {
      this.moveStage(secret, 'AWSPENDING', existing);
      return existing;
    }
    const version: SecretVersion = { versionId: token, stages: [], created: new Date(), awaitingValue: true };
    secret.versions.push(version);
    this.moveStage(secret, 'AWSPENDING', version);
    return version;
  }

  /** UpdateSecret: metadata, and a new AWSCURRENT version when a value is given. */
  update(
    scope: Scope,
    secretId: string,
    input: SecretValueInput & { token?: string; description?: string; kmsKeyId?: string; type?: string },
  ): { secret: Secret; version?: SecretVersion } {
    const secret = this.primary(scope, secretId);
    // A token naming an existing version is a retry: putValue answers it (same value) or refuses it.
    validToken(input.token);
    if (input.kmsKeyId !== undefined) {
      const key = recordedKey(input.kmsKeyId);
      if (key !== undefined) this.cipher.check(scope, key);
      secret.kmsKeyId = key;
    }
    if (input.description !== undefined) secret.description = input.description || undefined;
    if (input.type !== undefined) secret.type = input.type || undefined;
    for (const replica of this.replicasOf(secret)) replica.description = secret.description;
    let version: SecretVersion | undefined;
    if (input.secretString !== undefined || input.secretBinary !== undefined)
      version = this.putValue(secret, input);
    secret.lastChanged = new Date();
    return { secret, version };
  }

  /** A version by id and/or stage (default AWSCURRENT) and its value, decrypted through KMS. */
  value(secret: Secret, versionId?: string, stage?: string): SecretVersion {
    if (secret.deletedDate) throw secretErrors.markedForDeletion();
    const source = this.valueSource(secret);
    const wanted = stage ?? (versionId ? undefined : 'AWSCURRENT');
    const version = source.versions.find(
      (v) =>
        !v.awaitingValue &&
        (!versionId || v.versionId === versionId) &&
        (!wanted || v.stages.includes(wanted)),
    );
    if (!version) {
      throw new AwsError(
        'ResourceNotFoundException',
        versionId
          ? `Secrets Manager can't find the specified secret value for VersionId: ${versionId}`
          : `Secrets Manager can't find the specified secret value for staging label: ${wanted}`,
        400,
      );
    }
    if (version.ciphertext !== undefined)
      this.cipher.decrypt(source, version.ciphertext, {
        SecretARN: source.arn,
        SecretVersionId: version.versionId,
      });
    return version;
  }

  /** Where a secret's versions live: a replica reads its primary's. */
  valueSource(secret: Secret): Secret {
    if (secret.primaryRegion === undefined || secret.primaryRegion === secret.region) return secret;
    return this.store.find(secret.account, secret.primaryRegion, secret.name) ?? secret;
  }

  delete(
    scope: Scope,
    secretId: string,
    options: { recoveryWindowInDays?: number; force?: boolean },
  ): { arn?: string; name: string; deletionDate: Date } {
    if (options.force && options.recoveryWindowInDays !== undefined) {
      throw secretErrors.invalidParameter(
        "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
      );
    }
    const window = options.recoveryWindowInDays ?? 30;
    if (!options.force && (!Number.isInteger(window) || window < 7 || window > 30))
      throw secretErrors.invalidParameter(
        'The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).',
      );
    const secret = this.store.find(scope.account, scope.region, secretId);
    // Forcing the deletion of a secret that does not exist is not an error.
    if (!secret) {
      if (options.force) return { name: secretId, deletionDate: new Date() };
      throw secretErrors.notFound();
    }
    if (secret.primaryRegion !== undefined && secret.primaryRegion !== secret.region) {
      throw secretErrors.invalidRequest(
        "Operation not permitted on a replica secret. Call must be made in primary secret's region.",
      );
    }
    if (secret.replicas.length) {
      throw secretErrors.invalidRequest(
        `You can't delete secret ${secret.name} while it is replicated to other Regions. Remove the replicas first (RemoveRegionsFromReplication).`,
      );
    }
    if (secret.deletedDate && !options.force) throw secretErrors.markedForDeletion();
    const now = new Date();
    if (options.force) {
      const lag = this.consistency.delayFor(DELETE_LAG);
      if (lag > 0) {
        secret.deletedDate = now;
        secret.purgeAt = new Date(now.getTime() + lag);
      } else {
        this.store.remove(secret);
      }
      return { arn: secret.arn, name: secret.name, deletionDate: now };
    }
    secret.deletedDate = now;
    return { arn: secret.arn, name: secret.name, deletionDate: new Date(now.getTime() + window * DAY_MS) };
  }

  restore(scope: Scope, secretId: string): Secret {
    const secret = this.secret(scope, secretId);
    if (secret.purgeAt) throw secretErrors.notFound();
    secret.deletedDate = undefined;
    return secret;
  }

  tag(scope: Scope, secretId: string, tags: Array<{ Key?: string; Value?: string }>): Secret {
    const secret = this.primary(scope, secretId);
    const merged = [...secret.tags];
    for (const tag of validTags(tags)) {
      const existing = merged.find((t) => t.Key === tag.Key);
      if (existing) existing.Value = tag.Value;
      else merged.push(tag);
    }
    if (merged.length > 50)
      throw new AwsError('LimitExceededException', 'A secret can have at most 50 tags.', 400);
    secret.tags = merged;
    for (const replica of this.replicasOf(secret)) replica.tags = merged.map((t) => ({ ...t }));
    return secret;
  }

  untag(scope: Scope, secretId: string, keys: string[]): Secret {
    const secret = this.primary(scope, secretId);
    secret.tags = secret.tags.filter((t) => !keys.includes(t.Key));
    for (const replica of this.replicasOf(secret)) replica.tags = secret.tags.map((t) => ({ ...t }));
    return secret;
  }

  putPolicy(scope: Scope, secretId: string, policy: string, blockPublicPolicy: boolean): Secret {
    const secret = this.primary(scope, secretId);
    let parsed: { Statement?: unknown };
    try {
      parsed = JSON.parse(policy) as { Statement?: unknown };
    } catch {
      throw new AwsError(
        'MalformedPolicyDocumentException',
        'This resource policy contains a syntax error.',
        400,
      );
    }
    const statements = Array.isArray(parsed?.Statement)
      ? parsed.Statement
      : parsed?.Statement
        ? [parsed.Statement]
        : [];
    if (!statements.length)
      throw new AwsError('MalformedPolicyDocumentException', 'This resource policy has no statements.', 400);
    const broad = (statements as Array<{ Effect?: unknown; Principal?: unknown; Condition?: unknown }>).some(
      (s) =>
        s.Effect === 'Allow' &&
        s.Condition === undefined &&
        (s.Principal === '*' || (s.Principal as { AWS?: unknown } | undefined)?.AWS === '*'),
    );
    if (blockPublicPolicy && broad) {
      throw new AwsError(
        'PublicPolicyException',
        'The BlockPublicPolicy parameter is set to true, and the resource policy did not prevent broad access to the secret.',
        400,
      );
    }
    secret.policy = policy;
    return secret;
  }

  deletePolicy(scope: Scope, secretId: string): Secret {
    const secret = this.primary(scope, secretId);
    secret.policy = undefined;
    return secret;
  }

  // ------------------------------------------------------------ replication

  private replicasOf(secret: Secret): Secret[] {
    return secret.replicas
      .map((r) => this.store.find(secret.account, r.region, secret.name))
      .filter((s): s is Secret => s !== undefined && s.primaryRegion === secret.region);
  }

  replicate(
    scope: Scope,
    secretId: string,
    regions: Array<{ Region?: string; KmsKeyId?: string }>,
    forceOverwrite: boolean,
  ): Secret {
    const secret = this.primary(scope, secretId);
    for (const wanted of regions) {
      const region = wanted.Region ?? '';
      if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region))
        throw secretErrors.invalidParameter(`Invalid Region: ${region}`);
      if (region === secret.region)
        throw secretErrors.invalidParameter(`The secret's own Region ${region} can't be a replica Region.`);
      if (secret.replicas.some((r) => r.region === region)) continue;
      const occupant = this.store.find(secret.account, region, secret.name);
      if (occupant && !forceOverwrite) {
        secret.replicas.push({
          region,
          kmsKeyId: wanted.KmsKeyId,
          status: 'Failed',
          statusMessage: `Replication failed: a secret named ${secret.name} already exists in ${region}.`,
        });
        continue;
      }
      if (occupant) this.store.remove(occupant);
      this.store.add({
        account: secret.account,
        region,
        name: secret.name,
        arn: secret.arn.replace(`:secretsmanager:${secret.region}:`, `:secretsmanager:${region}:`),
        description: secret.description,
        kmsKeyId: recordedKey(wanted.KmsKeyId),
        tags: secret.tags.map((t) => ({ ...t })),
        created: new Date(),
        lastChanged: new Date(),
        versions: [],
        primaryRegion: secret.region,
        replicas: [],
      });
      secret.replicas.push({ region, kmsKeyId: recordedKey(wanted.KmsKeyId), status: 'InSync' });
    }
    return secret;
  }

  removeReplicas(scope: Scope, secretId: string, regions: string[]): Secret {
    const secret = this.primary(scope, secretId);
    for (const region of regions) {
      if (!secret.replicas.some((r) => r.region === region))
        throw secretErrors.invalidParameter(`The secret is not replicated to ${region}.`);
      const replica = this.store.find(secret.account, region, secret.name);
      if (replica?.primaryRegion === secret.region) this.store.remove(replica);
      secret.replicas = secret.replicas.filter((r) => r.region !== region);
    }
    return secret;
  }

  // ------------------------------------------------------------------ list

  list(
    scope: Scope,
    options: {
      filters: Array<{ Key?: string; Values?: string[] }>;
      includePlannedDeletion: boolean;
      sortOrder?: string;
    },
  ): Secret[] {
    const keys = ['description', 'name', 'tag-key', 'tag-value', 'primary-region', 'owning-service', 'all'];
    for (const f of options.filters) {
      if (!keys.includes(f.Key ?? ''))
        throw secretErrors.invalidParameter(
          `Invalid filter key: ${String(f.Key)}. Valid keys: ${keys.join(', ')}.`,
        );
    }
    const matches = (secret: Secret, key: string, value: string): boolean => {
      const prefix = (text: string | undefined, caseSensitive: boolean) =>
        text !== undefined &&
        (caseSensitive ? text.startsWith(value) : text.toLowerCase().startsWith(value.toLowerCase()));
      switch (key) {
        case 'name':
          return prefix(secret.name, true);
        case 'description':
          return prefix(secret.description, false);
        case 'tag-key':
          return secret.tags.some((t) => prefix(t.Key, true));
        case 'tag-value':
          return secret.tags.some((t) => prefix(t.Value, true));
        case 'primary-region':
          return prefix(secret.primaryRegion ?? (secret.replicas.length ? secret.region : undefined), true);
        case 'owning-service':
          return false;
        default: {
          const words = value.toLowerCase().split(/\s+/).filter(Boolean);
          const text = [
            secret.name,
            secret.description ?? '',
            ...secret.tags.flatMap((t) => [t.Key, t.Value]),
          ]
            .join(' ')
            .toLowerCase();
          return words.every((w) => text.includes(w));
        }
      }
    };
    const order = options.sortOrder === 'desc' ? -1 : 1;
    return this.store
      .list(scope.account, scope.region)
      .filter((s) => options.includePlannedDeletion || !s.deletedDate)
      .filter((s) =>
        options.filters.every((f) =>
          (f.Values ?? []).some((v) =>
            v.startsWith('!') ? !matches(s, f.Key!, v.slice(1)) : matches(s, f.Key!, v),
          ),
        ),
      )
      .sort((a, b) => order * (a.created.getTime() - b.created.getTime() || (a.name < b.name ? -1 : 1)));
  }
}

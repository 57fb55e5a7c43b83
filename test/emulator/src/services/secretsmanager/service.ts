/**
 * AWS Secrets Manager operations: secrets and their versions, metadata
 * updates, recovery, tags, resource policies, replication and random
 * passwords. The rules live in {@link SecretsManagement}; this file maps the
 * SDK-shaped requests onto them.
 */
import { AwsError } from '../../core/errors';
import { requireString } from '../../core/protocols/aws-json';
import type { CallContext, Operations } from '../../core/service';
import { generatePassword } from './passwords';
import { rotationOf } from './rotation';
import type { Scope } from './secret-cipher';
import type { SecretsManagement } from './secrets';
import type { Secret, SecretVersion } from './store';

type Input = Record<string, unknown>;

const scopeOf = (ctx: CallContext): Scope => ({ account: ctx.account, region: ctx.region });

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A blob input (decoded by the codec) as the base64 text the store keeps. */
function base64Of(value: unknown): string | undefined {
  return Buffer.isBuffer(value) || value instanceof Uint8Array
    ? Buffer.from(value).toString('base64')
    : undefined;
}

function list<T>(value: unknown): T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

/** A page of `items` from an opaque `NextToken`; `MaxResults` between 1 and 100. */
function page<T>(items: T[], input: Input, fallback = 100): { items: T[]; nextToken?: string } {
  const max = input.MaxResults;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 1 || max > 100)) {
    throw new AwsError(
      'ValidationException',
      `1 validation error detected: Value '${String(max)}' at 'maxResults' failed to satisfy constraint: Member must have value between 1 and 100`,
      400,
    );
  }
  let start = 0;
  if (typeof input.NextToken === 'string') {
    start = Number(Buffer.from(input.NextToken, 'base64').toString('utf8'));
    if (!Number.isInteger(start) || start < 0 || start > items.length)
      throw new AwsError('InvalidNextTokenException', 'The NextToken value is not valid.', 400);
  }
  const end = start + (typeof max === 'number' ? max : fallback);
  return {
    items: items.slice(start, end),
    nextToken: end < items.length ? Buffer.from(String(end)).toString('base64') : undefined,
  };
}

function replicationStatus(secret: Secret): Array<Record<string, unknown>> | undefined {
  if (!secret.replicas.length) return undefined;
  return secret.replicas.map((r) => ({
    Region: r.region,
    KmsKeyId: r.kmsKeyId,
    Status: r.status,
    StatusMessage: r.statusMessage,
  }));
}

/** DescribeSecret's answer (and one ListSecrets entry). */
export function describeSecret(secret: Secret, source: Secret): Record<string, unknown> {
  return {
    ARN: secret.arn,
    Name: secret.name,
    Type: secret.type,
    Description: secret.description,
    KmsKeyId: secret.kmsKeyId,
    ...rotationOf(source),
    LastChangedDate: secret.lastChanged,
    DeletedDate: secret.deletedDate,
    Tags: secret.tags.length ? secret.tags.map((t) => ({ ...t })) : undefined,
    VersionIdsToStages: Object.fromEntries(
      source.versions.filter((v) => v.stages.length).map((v) => [v.versionId, [...v.stages]]),
    ),
    CreatedDate: secret.created,
    PrimaryRegion: secret.primaryRegion ?? (secret.replicas.length ? secret.region : undefined),
    ReplicationStatus: replicationStatus(secret),
  };
}

export class SecretsManagerOperations {
  readonly operations: Operations = {
    CreateSecret: (ctx, input) => this.createSecret(ctx, input),
    GetSecretValue: (ctx, input) => this.getSecretValue(ctx, input),
    PutSecretValue: (ctx, input) => this.putSecretValue(ctx, input),
    UpdateSecret: (ctx, input) => this.updateSecret(ctx, input),
    DescribeSecret: (ctx, input) => this.describe(ctx, input),
    DeleteSecret: (ctx, input) => this.deleteSecret(ctx, input),
    RestoreSecret: (ctx, input) => {
      const secret = this.secrets.restore(scopeOf(ctx), requireString(input, 'SecretId'));
      return { ARN: secret.arn, Name: secret.name };
    },
    ListSecrets: (ctx, input) => this.listSecrets(ctx, input),
    ListSecretVersionIds: (ctx, input) => this.listVersions(ctx, input),
    TagResource: (ctx, input) => {
      this.secrets.tag(scopeOf(ctx), requireString(input, 'SecretId'), list(input.Tags));
      return {};
    },
    UntagResource: (ctx, input) => {
      this.secrets.untag(scopeOf(ctx), requireString(input, 'SecretId'), list<string>(input.TagKeys));
      return {};
    },
    GetResourcePolicy: (ctx, input) => {
      const secret = this.secrets.live(scopeOf(ctx), requireString(input, 'SecretId'));
      return { ARN: secret.arn, Name: secret.name, ResourcePolicy: secret.policy };
    },
    PutResourcePolicy: (ctx, input) => {
      const secret = this.secrets.putPolicy(
        scopeOf(ctx),
        requireString(input, 'SecretId'),
        requireString(input, 'ResourcePolicy'),
        input.BlockPublicPolicy === true,
      );
      return { ARN: secret.arn, Name: secret.name };
    },
    DeleteResourcePolicy: (ctx, input) => {
      const secret = this.secrets.deletePolicy(scopeOf(ctx), requireString(input, 'SecretId'));
      return { ARN: secret.arn, Name: secret.name };
    },
    ReplicateSecretToRegions: (ctx, input) => {
      const secret = this.secrets.replicate(
        scopeOf(ctx),
        requireString(input, 'SecretId'),
        list(input.AddReplicaRegions),
        input.ForceOverwriteReplicaSecret === true,
      );
      return { ARN: secret.arn, ReplicationStatus: replicationStatus(secret) ?? [] };
    },
    RemoveRegionsFromReplication: (ctx, input) => {
      const secret = this.secrets.removeReplicas(
        scopeOf(ctx),
        requireString(input, 'SecretId'),
        list<string>(input.RemoveReplicaRegions),
      );
      return { ARN: secret.arn, ReplicationStatus: replicationStatus(secret) ?? [] };
    },
    GetRandomPassword: (_ctx, input) => ({ RandomPassword: generatePassword(input) }),
  };

  constructor(private readonly secrets: SecretsManagement) {}

  private createSecret(ctx: CallContext, input: Input): unknown {
    const { secret, version } = this.secrets.create(scopeOf(ctx), {
      name: requireString(input, 'Name'),
      token: optionalString(input.ClientRequestToken),
      description: optionalString(input.Description),
      kmsKeyId: optionalString(input.KmsKeyId),
      type: optionalString(input.Type),
      secretString: optionalString(input.SecretString),
      secretBinary: base64Of(input.SecretBinary),
      tags: list(input.Tags),
      replicaRegions: list(input.AddReplicaRegions),
      forceOverwriteReplicaSecret: input.ForceOverwriteReplicaSecret === true,
    });
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version?.versionId,
      ReplicationStatus: replicationStatus(secret),
    };
  }

  private getSecretValue(ctx: CallContext, input: Input): unknown {
    const secret = this.secrets.secret(scopeOf(ctx), requireString(input, 'SecretId'));
    const version = this.secrets.value(
      secret,
      optionalString(input.VersionId),
      optionalString(input.VersionStage),
    );
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      SecretString: version.secretString,
      SecretBinary:
        version.secretBinary === undefined ? undefined : Buffer.from(version.secretBinary, 'base64'),
      VersionStages: [...version.stages],
      CreatedDate: version.created,
    };
  }

  private putSecretValue(ctx: CallContext, input: Input): unknown {
    const secret = this.secrets.primary(scopeOf(ctx), requireString(input, 'SecretId'));
    const version = this.secrets.putValue(secret, {
      secretString: optionalString(input.SecretString),
      secretBinary: base64Of(input.SecretBinary),
      token: optionalString(input.ClientRequestToken),
      stages: Array.isArray(input.VersionStages) ? (input.VersionStages as string[]) : undefined,
    });
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      VersionStages: [...version.stages],
    };
  }

  private updateSecret(ctx: CallContext, input: Input): unknown {
    const { secret, version } = this.secrets.update(scopeOf(ctx), requireString(input, 'SecretId'), {
      token: optionalString(input.ClientRequestToken),
      description: optionalString(input.Description),
      kmsKeyId: optionalString(input.KmsKeyId),
      type: optionalString(input.Type),
      secretString: optionalString(input.SecretString),
      secretBinary: base64Of(input.SecretBinary),
    });
    return { ARN: secret.arn, Name: secret.name, VersionId: version?.versionId };
  }

  private describe(ctx: CallContext, input: Input): unknown {
    const secret = this.secrets.secret(scopeOf(ctx), requireString(input, 'SecretId'));
    return describeSecret(secret, this.secrets.valueSource(secret));
  }

  private deleteSecret(ctx: CallContext, input: Input): unknown {
    const out = this.secrets.delete(scopeOf(ctx), requireString(input, 'SecretId'), {
      force: input.ForceDeleteWithoutRecovery === true,
      recoveryWindowInDays:
        typeof input.RecoveryWindowInDays === 'number' ? input.RecoveryWindowInDays : undefined,
    });
    return { ARN: out.arn, Name: out.name, DeletionDate: out.deletionDate };
  }

  private listSecrets(ctx: CallContext, input: Input): unknown {
    const secrets = this.secrets.list(scopeOf(ctx), {
      filters: list(input.Filters),
      includePlannedDeletion: input.IncludePlannedDeletion === true,
      sortOrder: optionalString(input.SortOrder),
    });
    const { items, nextToken } = page(secrets, input);
    return {
      SecretList: items.map((s) => describeSecret(s, this.secrets.valueSource(s))),
      NextToken: nextToken,
    };
  }

  private listVersions(ctx: CallContext, input: Input): unknown {
    const secret = this.secrets.live(scopeOf(ctx), requireString(input, 'SecretId'));
    const source = this.secrets.valueSource(secret);
    const versions = source.versions.filter((v) => input.IncludeDeprecated === true || v.stages.length > 0);
    const { items, nextToken } = page<SecretVersion>(versions, input);
    return {
      ARN: secret.arn,
      Name: secret.name,
      Versions: items.map((v) => ({
        VersionId: v.versionId,
        VersionStages: [...v.stages],
        CreatedDate: v.created,
        KmsKeyIds: source.kmsKeyId === undefined ? undefined : [source.kmsKeyId],
      })),
      NextToken: nextToken,
    };
  }
}

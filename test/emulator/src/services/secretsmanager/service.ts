/** AWS Secrets Manager operations: what dynamic references and assets use. */
import { AwsError } from '../../core/errors';
import { requireString } from '../../core/protocols/aws-json';
import type { CallContext, Operations } from '../../core/service';
import { generatePassword, secretErrors, type Secret, type SecretsStore } from './store';

type Input = Record<string, unknown>;

export class SecretsManagerOperations {
  readonly operations: Operations = {
    CreateSecret: (ctx, input) => this.createSecret(ctx, input),
    GetSecretValue: (ctx, input) => this.getSecretValue(ctx, input),
    PutSecretValue: (ctx, input) => this.putSecretValue(ctx, input),
    DescribeSecret: (ctx, input) => this.describeSecret(ctx, input),
    DeleteSecret: (ctx, input) => this.deleteSecret(ctx, input),
    ListSecrets: (ctx, input) => this.listSecrets(ctx, input),
    GetRandomPassword: (_ctx, input) => ({ RandomPassword: generatePassword(input) }),
  };

  constructor(private readonly store: SecretsStore) {}

  private secret(ctx: CallContext, input: Input): Secret {
    const secret = this.store.find(ctx.account, ctx.region, requireString(input, 'SecretId'));
    if (!secret) throw secretErrors.notFound();
    return secret;
  }

  private createSecret(ctx: CallContext, input: Input): unknown {
    const secret = this.store.create(ctx.account, ctx.region, {
      name: requireString(input, 'Name'),
      description: typeof input.Description === 'string' ? input.Description : undefined,
      kmsKeyId: typeof input.KmsKeyId === 'string' ? input.KmsKeyId : undefined,
      secretString: typeof input.SecretString === 'string' ? input.SecretString : undefined,
      secretBinary: base64Of(input.SecretBinary),
      tags: Array.isArray(input.Tags) ? (input.Tags as Array<{ Key: string; Value: string }>) : undefined,
      versionId: typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : undefined,
    });
    return { ARN: secret.arn, Name: secret.name, VersionId: secret.versions[0]?.versionId };
  }

  private getSecretValue(ctx: CallContext, input: Input): unknown {
    const secret = this.secret(ctx, input);
    if (secret.deletedDate) throw secretErrors.markedForDeletion();
    const versionId = typeof input.VersionId === 'string' ? input.VersionId : undefined;
    const stage =
      typeof input.VersionStage === 'string' ? input.VersionStage : versionId ? undefined : 'AWSCURRENT';
    const version = secret.versions.find(
      (v) => (!versionId || v.versionId === versionId) && (!stage || v.stages.includes(stage)),
    );
    if (!version) {
      throw new AwsError(
        'ResourceNotFoundException',
        versionId
          ? `Secrets Manager can't find the specified secret value for VersionId: ${versionId}`
          : `Secrets Manager can't find the specified secret value for staging label: ${stage}`,
        400,
      );
    }
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      SecretString: version.secretString,
      SecretBinary:
        version.secretBinary === undefined ? undefined : Buffer.from(version.secretBinary, 'base64'),
      VersionStages: version.stages,
      CreatedDate: version.created,
    };
  }

  private putSecretValue(ctx: CallContext, input: Input): unknown {
    const secret = this.secret(ctx, input);
    const secretString = typeof input.SecretString === 'string' ? input.SecretString : undefined;
    const secretBinary = base64Of(input.SecretBinary);
    if (secretString === undefined && secretBinary === undefined) {
      throw new AwsError(
        'InvalidRequestException',
        'You must provide either SecretString or SecretBinary.',
        400,
      );
    }
    const version = this.store.putValue(secret, {
      secretString,
      secretBinary,
      versionId: typeof input.ClientRequestToken === 'string' ? input.ClientRequestToken : undefined,
      stages: Array.isArray(input.VersionStages) ? (input.VersionStages as string[]) : undefined,
    });
    return {
      ARN: secret.arn,
      Name: secret.name,
      VersionId: version.versionId,
      VersionStages: version.stages,
    };
  }

  private describeSecret(ctx: CallContext, input: Input): unknown {
    return describe(this.secret(ctx, input));
  }

  private deleteSecret(ctx: CallContext, input: Input): unknown {
    const secret = this.secret(ctx, input);
    const force = input.ForceDeleteWithoutRecovery === true;
    const window = typeof input.RecoveryWindowInDays === 'number' ? input.RecoveryWindowInDays : 30;
    if (force && input.RecoveryWindowInDays !== undefined) {
      throw new AwsError(
        'InvalidParameterException',
        "You can't use ForceDeleteWithoutRecovery in conjunction with RecoveryWindowInDays.",
        400,
      );
    }
    if (!force && (window < 7 || window > 30)) {
      throw new AwsError(
        'InvalidParameterException',
        'The RecoveryWindowInDays value must be between 7 and 30 days (inclusive).',
        400,
      );
    }
    const deletionDate = new Date(Date.now() + (force ? 0 : window * 86_400_000));
    if (force) this.store.remove(secret);
    else secret.deletedDate = new Date();
    return { ARN: secret.arn, Name: secret.name, DeletionDate: deletionDate };
  }

  private listSecrets(ctx: CallContext, input: Input): unknown {
    const includeDeleted = input.IncludePlannedDeletion === true;
    const filters = Array.isArray(input.Filters)
      ? (input.Filters as Array<{ Key?: string; Values?: string[] }>)
      : [];
    const all = [...this.store.secrets.values()]
      .filter(
        (s) => s.account === ctx.account && s.region === ctx.region && (includeDeleted || !s.deletedDate),
      )
      .filter((s) =>
        filters.every((f) => {
          const values = f.Values ?? [];
          if (f.Key === 'name') return values.some((v) => s.name.startsWith(v));
          if (f.Key === 'description') return values.some((v) => (s.description ?? '').startsWith(v));
          if (f.Key === 'tag-key') return values.some((v) => s.tags.some((t) => t.Key === v));
          if (f.Key === 'tag-value') return values.some((v) => s.tags.some((t) => t.Value === v));
          return true;
        }),
      )
      .sort((a, b) => (a.name < b.name ? -1 : 1));
    const max = typeof input.MaxResults === 'number' ? input.MaxResults : 100;
    const start =
      typeof input.NextToken === 'string'
        ? Number(Buffer.from(input.NextToken, 'base64').toString()) || 0
        : 0;
    return {
      SecretList: all.slice(start, start + max).map(describe),
      NextToken: start + max < all.length ? Buffer.from(String(start + max)).toString('base64') : undefined,
    };
  }
}

function describe(secret: Secret): Record<string, unknown> {
  return {
    ARN: secret.arn,
    Name: secret.name,
    Description: secret.description,
    KmsKeyId: secret.kmsKeyId,
    LastChangedDate: secret.lastChanged,
    DeletedDate: secret.deletedDate ? secret.deletedDate : undefined,
    Tags: secret.tags.length ? secret.tags : undefined,
    VersionIdsToStages: Object.fromEntries(
      secret.versions.filter((v) => v.stages.length).map((v) => [v.versionId, v.stages]),
    ),
    CreatedDate: secret.created,
  };
}

/** A blob input (decoded by the codec) as the base64 text the store keeps. */
function base64Of(value: unknown): string | undefined {
  return Buffer.isBuffer(value) ? value.toString('base64') : undefined;
}

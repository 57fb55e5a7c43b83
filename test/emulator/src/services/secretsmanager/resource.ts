/**
 * A secret seen as the CloudFormation resource `AWS::SecretsManager::Secret`
 * (identifier: its ARN), kept in Secrets Manager's own store.
 */
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem } from '../../core/service';
import { generatedName } from '../cloudcontrol/generate';
import { generatePassword } from './passwords';
import type { SecretsManagement } from './secrets';
import type { Secret } from './store';

type Replica = { Region: string; KmsKeyId?: string };

/** A secret's CloudFormation properties (SecretString and GenerateSecretString are write-only). */
export function secretProperties(secret: Secret): Record<string, unknown> {
  const props: Record<string, unknown> = { Id: secret.arn, Name: secret.name };
  if (secret.description !== undefined) props.Description = secret.description;
  if (secret.kmsKeyId !== undefined) props.KmsKeyId = secret.kmsKeyId;
  if (secret.type !== undefined) props.Type = secret.type;
  if (secret.replicas.length)
    props.ReplicaRegions = secret.replicas.map((r) =>
      r.kmsKeyId === undefined ? { Region: r.region } : { Region: r.region, KmsKeyId: r.kmsKeyId },
    );
  if (secret.tags.length) props.Tags = secret.tags.map((t) => ({ ...t }));
  return props;
}
/** The secret value a template asks for: SecretString, or one generated from GenerateSecretString. */
function secretValue(desired: Record<string, unknown>): string | undefined {
  const generate = desired.GenerateSecretString as Record<string, unknown> | undefined;
  if (typeof desired.SecretString === 'string') {
    if (generate)
      throw new HandlerError(
        'InvalidRequest',
        "You can't specify both SecretString and GenerateSecretString.",
      );
    return desired.SecretString;
  }
  if (!generate) return undefined;
  const password = generatePassword(generate);
  if (typeof generate.SecretStringTemplate !== 'string') return password;
  let template: Record<string, unknown>;
  try {
    template = JSON.parse(generate.SecretStringTemplate) as Record<string, unknown>;
  } catch {
    throw new HandlerError('InvalidRequest', 'SecretStringTemplate must be a valid JSON object.');
  }
  if (typeof generate.GenerateStringKey !== 'string') {
    throw new HandlerError('InvalidRequest', 'GenerateStringKey is required with SecretStringTemplate.');
  }
  return JSON.stringify({ ...template, [generate.GenerateStringKey]: password });
}

export class SecretProvider implements ResourceProvider {
  readonly typeName = 'AWS::SecretsManager::Secret';

  constructor(private readonly secrets: SecretsManagement) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.secrets.store.secrets.values(), (s) =>
      s.deletedDate || s.primaryRegion !== undefined
        ? undefined
        : { identifier: s.arn, model: secretProperties(s) },
    );
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = typeof desired.Name === 'string' ? desired.Name : generatedName(schema.typeName);
    if (this.secrets.store.find(scope.account, scope.region, name))
      throw alreadyExists(schema.typeName, name);
    try {
      const { secret } = this.secrets.create(scope, {
        name,
        description: desired.Description as string | undefined,
        kmsKeyId: desired.KmsKeyId as string | undefined,
        type: desired.Type as string | undefined,
        secretString: secretValue(desired),
        tags: desired.Tags as Array<{ Key: string; Value: string }> | undefined,
        replicaRegions: desired.ReplicaRegions as Replica[] | undefined,
      });
      return { identifier: secret.arn, model: secretProperties(secret) };
    } catch (err) {
      throw serviceFailure(err, 'SecretsManager');
    }
  }

  /** A secret in its primary region that is not scheduled for deletion. */
  private secret(scope: ResourceScope, identifier: string): Secret | undefined {
    const secret = this.secrets.store.find(scope.account, scope.region, identifier);
    return secret && !secret.deletedDate && secret.primaryRegion === undefined ? secret : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const secret = this.secret(scope, identifier);
    return secret ? { identifier: secret.arn, model: secretProperties(secret) } : undefined;
  }

  /** As CloudFormation's handler: metadata, a new value when asked, tags and replica Regions reconciled. */
  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const secret = this.secret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    try {
      const value = secretValue(desired);
      const current = secret.versions.find((v) => v.stages.includes('AWSCURRENT'));
      this.secrets.update(scope, secret.arn, {
        // A removed property goes back to AWS's default: no description, the AWS managed key.
        description: (desired.Description as string | undefined) ?? '',
        kmsKeyId: (desired.KmsKeyId as string | undefined) ?? '',
        type: (desired.Type as string | undefined) ?? '',
        secretString: value !== undefined && value !== current?.secretString ? value : undefined,
      });
      const tags = (desired.Tags as Array<{ Key: string; Value: string }> | undefined) ?? [];
      const stale = secret.tags.filter((t) => !tags.some((n) => n.Key === t.Key)).map((t) => t.Key);
      if (stale.length) this.secrets.untag(scope, secret.arn, stale);
      if (tags.length) this.secrets.tag(scope, secret.arn, tags);
      const replicas = (desired.ReplicaRegions as Replica[] | undefined) ?? [];
      const dropped = secret.replicas
        .filter(
          (r) => !replicas.some((n) => n.Region === r.region && (n.KmsKeyId ?? undefined) === r.kmsKeyId),
        )
        .map((r) => r.region);
      if (dropped.length) this.secrets.removeReplicas(scope, secret.arn, dropped);
      const added = replicas.filter((n) => !secret.replicas.some((r) => r.region === n.Region));
      if (added.length) this.secrets.replicate(scope, secret.arn, added, false);
      return { identifier: secret.arn, model: secretProperties(secret) };
    } catch (err) {
      throw serviceFailure(err, 'SecretsManager');
    }
  }

  /** As CloudFormation's handler: replicas removed, then deleted without a recovery window. */
  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const secret = this.secret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    try {
      if (secret.replicas.length)
        this.secrets.removeReplicas(
          scope,
          secret.arn,
          secret.replicas.map((r) => r.region),
        );
      this.secrets.delete(scope, secret.arn, { force: true });
    } catch (err) {
      throw serviceFailure(err, 'SecretsManager');
    }
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.secrets.store
      .list(scope.account, scope.region)
      .filter((s) => !s.deletedDate && s.primaryRegion === undefined)
      .map((s) => ({ identifier: s.arn, model: secretProperties(s) }));
  }
}

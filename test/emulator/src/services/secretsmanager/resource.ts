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
import { generatePassword, type Secret, type SecretsStore } from './store';

/** A secret's CloudFormation properties (SecretString and GenerateSecretString are write-only). */
export function secretProperties(secret: Secret): Record<string, unknown> {
  const props: Record<string, unknown> = { Id: secret.arn, Name: secret.name };
  if (secret.description !== undefined) props.Description = secret.description;
  if (secret.kmsKeyId !== undefined) props.KmsKeyId = secret.kmsKeyId;
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

  constructor(private readonly secrets: SecretsStore) {}

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.secrets.secrets.values(), (s) =>
      s.deletedDate ? undefined : { identifier: s.arn, model: secretProperties(s) },
    );
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = typeof desired.Name === 'string' ? desired.Name : generatedName(schema.typeName);
    if (this.secrets.find(scope.account, scope.region, name)) throw alreadyExists(schema.typeName, name);
    try {
      const secret = this.secrets.create(scope.account, scope.region, {
        name,
        description: desired.Description as string | undefined,
        kmsKeyId: desired.KmsKeyId as string | undefined,
        secretString: secretValue(desired),
        tags: desired.Tags as Array<{ Key: string; Value: string }> | undefined,
      });
      return { identifier: secret.arn, model: secretProperties(secret) };
    } catch (err) {
      throw serviceFailure(err, 'SecretsManager');
    }
  }

  private secret(scope: ResourceScope, identifier: string): Secret | undefined {
    const secret = this.secrets.find(scope.account, scope.region, identifier);
    return secret && !secret.deletedDate ? secret : undefined;
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const secret = this.secret(scope, identifier);
    return secret ? { identifier: secret.arn, model: secretProperties(secret) } : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const secret = this.secret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    secret.description = desired.Description as string | undefined;
    secret.kmsKeyId = desired.KmsKeyId as string | undefined;
    secret.tags = ((desired.Tags as Array<{ Key: string; Value: string }> | undefined) ?? []).map((t) => ({
      ...t,
    }));
    const value = secretValue(desired);
    if (value !== undefined) this.secrets.putValue(secret, { secretString: value });
    secret.lastChanged = new Date();
    return { identifier: secret.arn, model: secretProperties(secret) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const secret = this.secret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    this.secrets.remove(secret);
  }

  list(scope: ResourceScope): StoredResource[] {
    return [...this.secrets.secrets.values()]
      .filter((s) => s.account === scope.account && s.region === scope.region && !s.deletedDate)
      .map((s) => ({ identifier: s.arn, model: secretProperties(s) }));
  }
}

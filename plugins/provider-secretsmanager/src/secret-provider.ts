/**
 * AWS::SecretsManager::Secret through Secrets Manager, as CloudFormation's
 * handler does it. The physical id (and `Ref`, and the `Id` attribute) is the
 * secret's ARN.
 *
 * Create sends a `ClientRequestToken` derived from the create's intent token,
 * and the ownership tags: a repeat with the same value is answered with the
 * same secret by Secrets Manager itself; a repeat that generated another
 * password meets `ResourceExistsException`, and the tags decide whether the
 * existing secret is this create's (adopted) or not (refused).
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  RemoveRegionsFromReplicationCommand,
  ReplicateSecretToRegionsCommand,
  SecretsManagerClient,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateSecretCommand,
  type DescribeSecretCommandOutput,
} from '@aws-sdk/client-secrets-manager';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { randomUUID } from 'node:crypto';
import {
  DEFAULT_KMS_KEY,
  clientRequestToken,
  generatedSecretString,
  passwordOptions,
  replicaChanges,
  replicaRegions,
  same,
  tagChanges,
  tagMap,
  type GenerateSecretString,
  type ReplicaRegion,
} from './secret-properties';

const TYPE = 'AWS::SecretsManager::Secret';
const OWNERSHIP_PREFIX = 'cdkd:';
/** "The maximum length of a secret name is 512 characters" (CreateSecret). */
const MAX_NAME_LENGTH = 512;

/**
 * A force-deleted secret's name can stay taken for a moment ("use appropriate
 * back off and retry logic", DeleteSecret): a replacement that reuses the name
 * retries that refusal, bounded.
 */
const NAME_STILL_TAKEN_RETRY = { maxAttempts: 4, baseDelayMs: 500, maxDelayMs: 4_000 };

function errorName(err: unknown): string {
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name : '';
}

const isNotFound = (err: unknown) => errorName(err) === 'ResourceNotFoundException';
const isScheduledForDeletion = (err: unknown) =>
  errorName(err) === 'InvalidRequestException' &&
  err instanceof Error &&
  /scheduled for deletion/i.test(err.message);

export class SecretProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): SecretsManagerClient {
    return this.ctx.clients.get(SecretsManagerClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const abortSignal = context.signal;
    const name = this.nameFor(logicalId, properties, context);
    const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
    const replicas = replicaRegions(properties.ReplicaRegions);
    let arn: string | undefined;
    try {
      const secretString = await this.secretValue(properties, logicalId, abortSignal);
      const out = await this.ctx.retry(
        () =>
          this.client().send(
            new CreateSecretCommand({
              Name: name,
              ClientRequestToken: clientRequestToken(context.idempotencyToken, 'create'),
              Description: stringOrUndefined(properties.Description),
              KmsKeyId: stringOrUndefined(properties.KmsKeyId),
              Type: stringOrUndefined(properties.Type),
              SecretString: secretString,
              Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
              ...(replicas.length ? { AddReplicaRegions: replicas } : {}),
            }),
            { abortSignal },
          ),
        { ...NAME_STILL_TAKEN_RETRY, isRetryable: isScheduledForDeletion },
      );
      arn = out.ARN;
    } catch (err) {
      if (errorName(err) !== 'ResourceExistsException')
        throw this.wrap(
          err,
          `creating secret ${name}`,
          logicalId,
          resourceType,
          undefined,
          this.remedyFor(err, name),
        );
      arn = await this.adoptOwn(name, logicalId, resourceType, context);
    }
    if (!arn)
      throw this.wrap(
        new Error('CreateSecret returned no ARN'),
        `creating secret ${name}`,
        logicalId,
        resourceType,
      );
    return { physicalId: arn, attributes: { Id: arn } };
  }

  /** The ARN of an existing secret of the name, if this very create made it; else refused. */
  private async adoptOwn(
    name: string,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
  ): Promise<string> {
    const described = await this.describe(name, context.signal).catch((err: unknown) => {
      throw this.wrap(err, `describing secret ${name}`, logicalId, resourceType);
    });
    const verdict = described && context.ownership ? context.ownership.classify(described.Tags) : 'foreign';
    if (verdict === 'same-intent' && described?.ARN && !described.DeletedDate) {
      this.ctx.logger.debug(`${logicalId}: secret ${name} was made by this create earlier; adopting it`);
      return described.ARN;
    }
    const Exists = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    throw new Exists(
      `${logicalId}: secret ${name} already exists and was not made by this deploy${
        verdict === 'same-resource' ? ' (it belongs to an earlier create of the same resource)' : ''
      }.`,
      {
        remedy: `Give the secret another Name, delete ${name} (DeleteSecret --force-delete-without-recovery), or import it into the stack.`,
        resource: { logicalId, resourceType, physicalId: described?.ARN },
      },
    );
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const client = this.client();
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const abortSignal = context?.signal;
    try {
      // A new value only when the template's value (or how it is generated) changed.
      const valueChanged =
        !same(properties.SecretString, previousProperties.SecretString) ||
        !same(properties.GenerateSecretString, previousProperties.GenerateSecretString);
      const metadataChanged = ['Description', 'KmsKeyId', 'Type'].some(
        (k) => !same(properties[k], previousProperties[k]),
      );
      if (valueChanged || metadataChanged) {
        const secretString = valueChanged
          ? await this.secretValue(properties, logicalId, abortSignal)
          : undefined;
        await client.send(
          new UpdateSecretCommand({
            SecretId: physicalId,
            // A removed property goes back to AWS's default: no description, Secrets Manager's own key.
            Description: stringOrUndefined(properties.Description) ?? '',
            KmsKeyId: stringOrUndefined(properties.KmsKeyId) ?? DEFAULT_KMS_KEY,
            ...(properties.Type !== undefined || previousProperties.Type !== undefined
              ? { Type: stringOrUndefined(properties.Type) ?? '' }
              : {}),
            ...(secretString !== undefined
              ? {
                  SecretString: secretString,
                  ClientRequestToken: clientRequestToken(context?.idempotencyToken ?? randomUUID(), 'update'),
                }
              : {}),
          }),
          { abortSignal },
        );
      }
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      const removable = toRemove.filter((k) => !k.startsWith(OWNERSHIP_PREFIX));
      if (removable.length > 0)
        await client.send(new UntagResourceCommand({ SecretId: physicalId, TagKeys: removable }), {
          abortSignal,
        });
      if (toSet.length > 0)
        await client.send(new TagResourceCommand({ SecretId: physicalId, Tags: toSet }), { abortSignal });
      await this.reconcileReplicas(physicalId, properties, previousProperties, abortSignal);
    } catch (err) {
      throw this.wrap(err, `updating secret ${physicalId}`, logicalId, resourceType, physicalId);
    }
    return { physicalId, wasReplaced: false, attributes: { Id: physicalId } };
  }

  /** Replica Regions against what the secret has now, so a repeated update has nothing left to do. */
  private async reconcileReplicas(
    physicalId: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    abortSignal: AbortSignal | undefined,
  ): Promise<void> {
    const desired = replicaRegions(properties.ReplicaRegions);
    if (desired.length === 0 && replicaRegions(previousProperties.ReplicaRegions).length === 0) return;
    const client = this.client();
    const described = await client.send(new DescribeSecretCommand({ SecretId: physicalId }), { abortSignal });
    const { toRemove: dropped, toAdd: added } = replicaChanges(desired, replicasOf(described));
    if (dropped.length > 0)
      await client.send(
        new RemoveRegionsFromReplicationCommand({ SecretId: physicalId, RemoveReplicaRegions: dropped }),
        { abortSignal },
      );
    if (added.length > 0)
      await client.send(
        new ReplicateSecretToRegionsCommand({ SecretId: physicalId, AddReplicaRegions: added }),
        {
          abortSignal,
        },
      );
  }

  /** As CloudFormation's handler: the replicas removed, then deleted without a recovery window. */
  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    const abortSignal = context?.signal;
    try {
      const described = await this.describe(physicalId, abortSignal);
      if (!described) {
        // Gone only if we looked in the region it was created in.
        this.ctx.assertRegionMatch(
          await client.config.region(),
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        this.ctx.logger.debug(`${logicalId}: secret ${physicalId} does not exist; nothing to delete`);
        return;
      }
      const replicas = (described.ReplicationStatus ?? [])
        .map((r) => r.Region)
        .filter((r): r is string => !!r);
      if (replicas.length > 0)
        await client.send(
          new RemoveRegionsFromReplicationCommand({ SecretId: physicalId, RemoveReplicaRegions: replicas }),
          {
            abortSignal,
          },
        );
      await client.send(new DeleteSecretCommand({ SecretId: physicalId, ForceDeleteWithoutRecovery: true }), {
        abortSignal,
      });
    } catch (err) {
      throw this.wrap(err, `deleting secret ${physicalId}`, logicalId, resourceType, physicalId);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName !== 'Id') return undefined;
    const described = await this.describe(physicalId);
    return described && !described.DeletedDate ? described.ARN : undefined;
  }

  /** The template-controlled metadata (the value is write-only and never read back). */
  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    try {
      const described = await this.describe(physicalId);
      if (!described || described.DeletedDate) return undefined;
      const tags = (described.Tags ?? [])
        .filter((t) => t.Key && !t.Key.startsWith(OWNERSHIP_PREFIX))
        .map((t) => ({ Key: t.Key!, Value: t.Value ?? '' }));
      const replicas = replicasOf(described);
      return {
        Name: described.Name,
        Description: described.Description ?? '',
        KmsKeyId: described.KmsKeyId ?? DEFAULT_KMS_KEY,
        Type: described.Type,
        ReplicaRegions: replicas,
        Tags: tags,
      };
    } catch (err) {
      throw this.wrap(err, `reading secret ${physicalId}`, undefined, TYPE, physicalId);
    }
  }

  /** Adopts the secret the user names (name or ARN), or the template's Name. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const id = input.knownPhysicalId ?? stringOrUndefined(input.properties.Name);
    if (!id) return null;
    try {
      const described = await this.describe(id);
      if (!described?.ARN || described.DeletedDate) return null;
      return { physicalId: described.ARN, attributes: { Id: described.ARN } };
    } catch (err) {
      throw this.wrap(err, `looking up secret ${id}`, input.logicalId, input.resourceType);
    }
  }

  /** The template's SecretString, or one generated by GetRandomPassword from GenerateSecretString. */
  private async secretValue(
    properties: Record<string, unknown>,
    logicalId: string,
    abortSignal: AbortSignal | undefined,
  ): Promise<string | undefined> {
    const generate = properties.GenerateSecretString as GenerateSecretString | undefined;
    if (properties.SecretString !== undefined && generate !== undefined) {
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: SecretString and GenerateSecretString cannot both be set.`,
        { remedy: 'Keep one of them.', resource: { logicalId, resourceType: TYPE } },
      );
    }
    if (properties.SecretString !== undefined) return String(properties.SecretString);
    if (generate === undefined) return undefined;
    const out = await this.client().send(new GetRandomPasswordCommand(passwordOptions(generate)), {
      abortSignal,
    });
    try {
      return generatedSecretString(generate, out.RandomPassword ?? '');
    } catch (err) {
      throw new this.ctx.errors.ProvisioningError(`${logicalId}: ${(err as Error).message}`, {
        resource: { logicalId, resourceType: TYPE },
      });
    }
  }

  /** The template's Name, or one derived from the create's intent (the same intent, the same name). */
  private nameFor(logicalId: string, properties: Record<string, unknown>, context: CreateContext): string {
    const named = stringOrUndefined(properties.Name);
    if (named) return named;
    if (context.generatePhysicalName)
      return context.generatePhysicalName({ maxLength: MAX_NAME_LENGTH, extraCharacters: '-_' });
    return `${logicalId.replace(/[^A-Za-z0-9_-]/g, '')}-${clientRequestToken(context.idempotencyToken, 'name').slice(0, 12)}`;
  }

  /** DescribeSecret, or `undefined` when the secret does not exist. */
  private async describe(
    secretId: string,
    abortSignal?: AbortSignal,
  ): Promise<DescribeSecretCommandOutput | undefined> {
    try {
      return await this.client().send(new DescribeSecretCommand({ SecretId: secretId }), { abortSignal });
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  private remedyFor(err: unknown, name: string): string | undefined {
    if (isScheduledForDeletion(err))
      return `A secret named ${name} is scheduled for deletion: restore it (RestoreSecret) and import it, or delete it for good (DeleteSecret --force-delete-without-recovery).`;
    if (errorName(err) === 'EncryptionFailure')
      return 'Check that the KmsKeyId names an enabled KMS key this account can use.';
    return undefined;
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId?: string,
    remedy?: string,
  ): Error {
    if (this.ctx.errors.isCdkdError(err)) return err as Error;
    const name = errorName(err);
    const message = err instanceof Error ? err.message : String(err);
    return new this.ctx.errors.ProvisioningError(
      `Secrets Manager ${name ? `${name} ` : ''}while ${doing}: ${message}`,
      {
        cause: err,
        ...(remedy ? { remedy } : {}),
        resource: { logicalId, resourceType, physicalId },
        retryable: this.ctx.isTransientError(err),
      },
    );
  }
}

/** A secret's replica Regions as the template states them. */
function replicasOf(described: DescribeSecretCommandOutput): ReplicaRegion[] {
  return (described.ReplicationStatus ?? [])
    .filter((r) => r.Region)
    .map((r) => (r.KmsKeyId ? { Region: r.Region!, KmsKeyId: r.KmsKeyId } : { Region: r.Region! }));
}

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

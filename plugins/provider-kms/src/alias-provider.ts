/**
 * AWS::KMS::Alias through KMS. The physical id (and `Ref`, and Cloud Control's
 * identifier) is the alias name; `AliasName` is create-only, so a new name is
 * a replacement decided by cdkd, and an update re-points the alias.
 *
 * Aliases have no tags. A create that meets `AlreadyExistsException` adopts
 * the alias only when an earlier send of this very create may have made it
 * (a lost reply, a retry, an interrupted deploy being settled) and it points
 * at the key this create asked for; otherwise it is refused.
 */
import {
  CreateAliasCommand,
  DeleteAliasCommand,
  KMSClient,
  ListAliasesCommand,
  UpdateAliasCommand,
  type AliasListEntry,
} from '@aws-sdk/client-kms';
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
import { stringOrUndefined } from './key-properties';
import { errorName, kmsError } from './kms-errors';

export class AliasProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): KMSClient {
    return this.ctx.clients.get(KMSClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const aliasName = stringOrUndefined(properties.AliasName);
    const target = stringOrUndefined(properties.TargetKeyId);
    const resource = { logicalId, resourceType };
    if (!aliasName || !target)
      throw new this.ctx.errors.ProvisioningError(`${logicalId}: AliasName and TargetKeyId are required.`, {
        resource,
      });
    try {
      await this.client().send(new CreateAliasCommand({ AliasName: aliasName, TargetKeyId: target }), {
        abortSignal: context.signal,
      });
    } catch (err) {
      if (errorName(err) !== 'AlreadyExistsException')
        throw kmsError(this.ctx, err, `creating alias ${aliasName}`, resource);
      await this.adoptOwn(aliasName, target, logicalId, resourceType, context, err);
    }
    return { physicalId: aliasName };
  }

  /** Returns when the existing alias is provably this create's; throws ResourceExistsError otherwise. */
  private async adoptOwn(
    aliasName: string,
    target: string,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
    cause: unknown,
  ): Promise<void> {
    const mayBeOurs = context.inDoubt === true || (context.attempt ?? 0) > 0;
    if (mayBeOurs) {
      const existing = await this.find(aliasName, context.signal).catch((err: unknown) => {
        throw kmsError(this.ctx, err, `reading alias ${aliasName}`, { logicalId, resourceType });
      });
      if (existing && pointsAt(existing, target)) {
        this.ctx.logger.debug(`${logicalId}: alias ${aliasName} was made by an earlier attempt; adopting it`);
        return;
      }
    }
    const Exists = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    throw new Exists(`${logicalId}: alias ${aliasName} already exists and was not made by this deploy.`, {
      cause,
      remedy: `Give the alias another AliasName, delete ${aliasName} (aws kms delete-alias --alias-name ${aliasName}), or import it into the stack.`,
      resource: { logicalId, resourceType, physicalId: aliasName },
    });
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
    const target = stringOrUndefined(properties.TargetKeyId);
    if (target && target !== previousProperties.TargetKeyId) {
      try {
        await client.send(new UpdateAliasCommand({ AliasName: physicalId, TargetKeyId: target }), {
          abortSignal: context?.signal,
        });
      } catch (err) {
        throw kmsError(this.ctx, err, `re-pointing alias ${physicalId}`, {
          logicalId,
          resourceType,
          physicalId,
        });
      }
    }
    return { physicalId, wasReplaced: false };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    try {
      await client.send(new DeleteAliasCommand({ AliasName: physicalId }), { abortSignal: context?.signal });
    } catch (err) {
      if (errorName(err) === 'NotFoundException') {
        // Gone only if we looked in the region it was created in.
        this.ctx.assertRegionMatch(
          await client.config.region(),
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        return;
      }
      throw kmsError(this.ctx, err, `deleting alias ${physicalId}`, { logicalId, resourceType, physicalId });
    }
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const alias = await this.find(physicalId);
    return alias ? { AliasName: alias.AliasName, TargetKeyId: alias.TargetKeyId } : undefined;
  }

  /** Adopts the alias the user names, or the template's AliasName. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name = input.knownPhysicalId ?? stringOrUndefined(input.properties.AliasName);
    if (!name) return null;
    const alias = await this.find(name);
    return alias?.AliasName ? { physicalId: alias.AliasName } : null;
  }

  /** The alias of that name (ListAliases: KMS has no call that reads one alias). */
  private async find(aliasName: string, abortSignal?: AbortSignal): Promise<AliasListEntry | undefined> {
    let marker: string | undefined;
    do {
      const page = await this.client().send(new ListAliasesCommand({ Limit: 100, Marker: marker }), {
        abortSignal,
      });
      const hit = (page.Aliases ?? []).find((a) => a.AliasName === aliasName);
      if (hit) return hit;
      marker = page.Truncated ? page.NextMarker : undefined;
    } while (marker);
    return undefined;
  }
}

/** True when the alias's target is `target` (a key id or key ARN). */
function pointsAt(alias: AliasListEntry, target: string): boolean {
  const id = alias.TargetKeyId;
  return !!id && (target === id || target.endsWith(`:key/${id}`));
}

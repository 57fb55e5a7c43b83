/**
 * AWS::KMS::Key through KMS, as CloudFormation's handler does it. The physical
 * id (and `Ref`, and Cloud Control's identifier) is the key id.
 *
 * CreateKey takes no idempotency token, so the key is tagged at CreateKey with
 * the create's ownership tags (`cdkd:token` among them), CreateKey is sent at
 * most once per attempt (see send-once.ts), and whenever an earlier send may
 * have taken effect unseen — its reply lost, a retry, a later process settling
 * an interrupted deploy — the key it made is looked up by that tag before
 * another is made.
 */
import {
  CreateKeyCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  DisableKeyRotationCommand,
  EnableKeyCommand,
  EnableKeyRotationCommand,
  GetKeyPolicyCommand,
  GetKeyRotationStatusCommand,
  KMSClient,
  ListKeysCommand,
  ListResourceTagsCommand,
  PutKeyPolicyCommand,
  ScheduleKeyDeletionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateKeyDescriptionCommand,
  type KeyMetadata,
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
import {
  DEFAULT_PENDING_WINDOW_DAYS,
  DELETING_STATES,
  IMMUTABLE_KEY_PROPERTIES,
  defaultKeyPolicy,
  policyText,
  rotationOf,
  same,
  stringOrUndefined,
  tagChanges,
  tagMap,
} from './key-properties';
import { kmsError, errorName } from './kms-errors';
import { ReplyLostError, sendOnce } from './send-once';

const TYPE = 'AWS::KMS::Key';
const OWNERSHIP_PREFIX = 'cdkd:';
/** ListResourceTags calls in flight while looking for a key by its tag. */
const SEARCH_CONCURRENCY = 8;

const CHANGE_REFUSED =
  'You cannot change the values of the KeySpec, KeyUsage, Origin, or MultiRegion properties of an AWS::KMS::Key resource.';

export class KeyProvider implements ResourceProvider {
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
    const abortSignal = context.signal;
    const fail = (err: unknown, doing: string, createdPhysicalId?: string) =>
      kmsError(
        this.ctx,
        err,
        doing,
        { logicalId, resourceType, physicalId: createdPhysicalId },
        createdPhysicalId,
      );
    const rotation = rotationOf(properties);
    if (
      rotation.enabled &&
      ((properties.KeySpec ?? 'SYMMETRIC_DEFAULT') !== 'SYMMETRIC_DEFAULT' ||
        (properties.Origin ?? 'AWS_KMS') !== 'AWS_KMS')
    ) {
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: You cannot set the EnableKeyRotation property to true on asymmetric or external keys.`,
        {
          remedy: 'Remove EnableKeyRotation, or use a symmetric key with Origin AWS_KMS.',
          resource: { logicalId, resourceType },
        },
      );
    }
    // An earlier send of this create may have made the key without cdkd hearing of it.
    const mayExist = context.inDoubt === true || (context.attempt ?? 0) > 0;
    let key = mayExist ? await this.findOwnKey(logicalId, context) : undefined;
    if (!key) {
      const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
      try {
        const out = await this.client().send(
          sendOnce(
            new CreateKeyCommand({
              Description: stringOrUndefined(properties.Description),
              KeySpec: stringOrUndefined(properties.KeySpec) as CreateKeyCommand['input']['KeySpec'],
              KeyUsage: stringOrUndefined(properties.KeyUsage) as CreateKeyCommand['input']['KeyUsage'],
              Origin: stringOrUndefined(properties.Origin) as CreateKeyCommand['input']['Origin'],
              MultiRegion: properties.MultiRegion === true ? true : undefined,
              Policy: policyText(properties.KeyPolicy),
              BypassPolicyLockoutSafetyCheck: properties.BypassPolicyLockoutSafetyCheck === true || undefined,
              Tags: Object.entries(tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
            }),
          ),
          { abortSignal },
        );
        key = out.KeyMetadata;
      } catch (err) {
        if (!(err instanceof ReplyLostError)) throw fail(err, 'creating a key');
        this.ctx.logger.debug(`${logicalId}: CreateKey ${err.message}; looking for the key it may have made`);
        key = await this.findOwnKey(logicalId, context);
        if (!key)
          throw new this.ctx.errors.ProvisioningError(
            `${logicalId}: KMS CreateKey's reply was lost, and no key tagged with this create's token is listed yet.`,
            {
              cause: err.original,
              resource: { logicalId, resourceType },
              // Retried (and re-sent by a later run) only after looking for the key again.
              retryable: true,
              inDoubt: true,
            },
          );
      }
    }
    const keyId = key?.KeyId;
    if (!keyId) throw fail(new Error('CreateKey returned no key id'), 'creating a key');
    try {
      await this.settle(keyId, key!, rotation, properties.Enabled !== false, abortSignal);
    } catch (err) {
      // The key exists: cdkd records it so it is deleted, never left untracked.
      throw fail(err, `configuring key ${keyId}`, keyId);
    }
    return { physicalId: keyId, attributes: { Arn: key!.Arn, KeyId: keyId } };
  }

  /**
   * The steps after CreateKey, as CloudFormation's handler takes them
   * (rotation, then disable), made against what the key has, so a key adopted
   * from an earlier attempt gets exactly the missing ones.
   */
  private async settle(
    keyId: string,
    key: KeyMetadata,
    rotation: { enabled: boolean; periodInDays: number },
    enabled: boolean,
    abortSignal: AbortSignal | undefined,
  ): Promise<void> {
    const client = this.client();
    if (rotation.enabled) {
      const status = await client.send(new GetKeyRotationStatusCommand({ KeyId: keyId }), { abortSignal });
      if (!status.KeyRotationEnabled || status.RotationPeriodInDays !== rotation.periodInDays)
        await client.send(
          new EnableKeyRotationCommand({ KeyId: keyId, RotationPeriodInDays: rotation.periodInDays }),
          { abortSignal },
        );
    }
    if (!enabled && key.KeyState === 'Enabled')
      await client.send(new DisableKeyCommand({ KeyId: keyId }), { abortSignal });
  }

  /**
   * The key an earlier send of this very create made: the one whose ownership
   * tags classify as `same-intent`, among the region's keys (ListKeys, then
   * ListResourceTags of each). A key pending deletion is not adopted (it is on
   * its way out; a new one is made). Undefined when there is none.
   */
  private async findOwnKey(logicalId: string, context: CreateContext): Promise<KeyMetadata | undefined> {
    const ownership = context.ownership;
    if (!ownership) return undefined;
    const client = this.client();
    const abortSignal = context.signal;
    const fail = (err: unknown) =>
      kmsError(this.ctx, err, 'looking for the key an earlier attempt made', {
        logicalId,
        resourceType: TYPE,
      });
    const ids: string[] = [];
    try {
      let marker: string | undefined;
      do {
        const page = await client.send(new ListKeysCommand({ Limit: 1000, Marker: marker }), { abortSignal });
        for (const k of page.Keys ?? []) if (k.KeyId) ids.push(k.KeyId);
        marker = page.Truncated ? page.NextMarker : undefined;
      } while (marker);
    } catch (err) {
      throw fail(err);
    }
    const matches: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const id = ids[next++]!;
        const tags = await this.tagsOf(id, abortSignal);
        if (tags && ownership.classify(tags) === 'same-intent') matches.push(id);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(SEARCH_CONCURRENCY, ids.length) }, worker));
    } catch (err) {
      throw fail(err);
    }
    for (const id of matches) {
      const described = await this.describe(id, abortSignal).catch((err: unknown) => {
        throw fail(err);
      });
      if (!described) continue;
      if (DELETING_STATES.has(described.KeyState ?? '')) {
        this.ctx.logger.debug(
          `${logicalId}: key ${id} of this create is ${described.KeyState}; not adopting it`,
        );
        continue;
      }
      this.ctx.logger.debug(
        `${logicalId}: key ${id} was made by an earlier attempt of this create; adopting it`,
      );
      return described;
    }
    return undefined;
  }

  /** Every tag of a key (`Key`/`Value`, as ownership classifies them); undefined when it vanished or is not ours to read. */
  private async tagsOf(
    keyId: string,
    abortSignal: AbortSignal | undefined,
  ): Promise<Array<{ Key: string; Value: string }> | undefined> {
    const out: Array<{ Key: string; Value: string }> = [];
    let marker: string | undefined;
    try {
      do {
        const page = await this.client().send(new ListResourceTagsCommand({ KeyId: keyId, Marker: marker }), {
          abortSignal,
        });
        for (const t of page.Tags ?? []) if (t.TagKey) out.push({ Key: t.TagKey, Value: t.TagValue ?? '' });
        marker = page.Truncated ? page.NextMarker : undefined;
      } while (marker);
    } catch (err) {
      // A key deleted meanwhile, or one whose policy does not let us read it: not one this create made
      // (its default policy, or a template policy passing the lockout check, lets the account read it).
      if (errorName(err) === 'NotFoundException' || errorName(err) === 'AccessDeniedException')
        return undefined;
      throw err;
    }
    return out;
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
    const resource = { logicalId, resourceType, physicalId };
    for (const [name, fallback] of Object.entries(IMMUTABLE_KEY_PROPERTIES)) {
      if (!same(properties[name] ?? fallback, previousProperties[name] ?? fallback))
        throw new this.ctx.errors.ProvisioningError(`${logicalId}: ${CHANGE_REFUSED}`, {
          remedy: `Put ${name} back to ${JSON.stringify(previousProperties[name] ?? fallback)}, or give the key a new logical id so that a new key is made.`,
          resource,
        });
    }
    const enabled = properties.Enabled !== false;
    const wasEnabled = previousProperties.Enabled !== false;
    const rotation = rotationOf(properties);
    const previousRotation = rotationOf(previousProperties);
    const rotationChanged = !same(
      rotation.enabled ? rotation : false,
      previousRotation.enabled ? previousRotation : false,
    );
    if (!enabled && !wasEnabled && rotationChanged)
      throw new this.ctx.errors.ProvisioningError(
        `${logicalId}: You cannot change the EnableKeyRotation property while the Enabled property is false.`,
        { remedy: 'Enable the key in the same change, or change the rotation once it is enabled.', resource },
      );
    const abortSignal = context?.signal;
    try {
      // CloudFormation's order: enable, rotation, disable, description, policy, tags.
      if (enabled && !wasEnabled)
        await client.send(new EnableKeyCommand({ KeyId: physicalId }), { abortSignal });
      if (rotationChanged) {
        if (rotation.enabled)
          await client.send(
            new EnableKeyRotationCommand({ KeyId: physicalId, RotationPeriodInDays: rotation.periodInDays }),
            { abortSignal },
          );
        else await client.send(new DisableKeyRotationCommand({ KeyId: physicalId }), { abortSignal });
      }
      if (!enabled && wasEnabled)
        await client.send(new DisableKeyCommand({ KeyId: physicalId }), { abortSignal });
      if (!same(properties.Description, previousProperties.Description))
        await client.send(
          new UpdateKeyDescriptionCommand({
            KeyId: physicalId,
            // A removed description is cleared (a key has none by default).
            Description: stringOrUndefined(properties.Description) ?? '',
          }),
          { abortSignal },
        );
      if (!same(properties.KeyPolicy, previousProperties.KeyPolicy))
        await client.send(
          new PutKeyPolicyCommand({
            KeyId: physicalId,
            PolicyName: 'default',
            // A removed policy goes back to the one KMS gives a key created without one.
            Policy:
              policyText(properties.KeyPolicy) ??
              defaultKeyPolicy(this.ctx.partition, await this.ctx.accountId()),
            BypassPolicyLockoutSafetyCheck: properties.BypassPolicyLockoutSafetyCheck === true || undefined,
          }),
          { abortSignal },
        );
      const { toSet, toRemove } = tagChanges(tagMap(properties.Tags), tagMap(previousProperties.Tags));
      const removable = toRemove.filter((k) => !k.startsWith(OWNERSHIP_PREFIX));
      if (removable.length > 0)
        await client.send(new UntagResourceCommand({ KeyId: physicalId, TagKeys: removable }), {
          abortSignal,
        });
      if (toSet.length > 0)
        await client.send(new TagResourceCommand({ KeyId: physicalId, Tags: toSet }), { abortSignal });
    } catch (err) {
      throw kmsError(this.ctx, err, `updating key ${physicalId}`, resource);
    }
    const arn = await this.getAttribute(physicalId, resourceType, 'Arn');
    return { physicalId, wasReplaced: false, attributes: { Arn: arn, KeyId: physicalId } };
  }

  /** As CloudFormation's handler: ScheduleKeyDeletion with the template's PendingWindowInDays. */
  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    const abortSignal = context?.signal;
    const resource = { logicalId, resourceType, physicalId };
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
        this.ctx.logger.debug(`${logicalId}: key ${physicalId} does not exist; nothing to delete`);
        return;
      }
      if (DELETING_STATES.has(described.KeyState ?? '')) {
        this.ctx.logger.debug(`${logicalId}: key ${physicalId} is already ${described.KeyState}`);
        return;
      }
      const window = properties?.PendingWindowInDays;
      await client.send(
        new ScheduleKeyDeletionCommand({
          KeyId: physicalId,
          PendingWindowInDays: typeof window === 'number' ? window : DEFAULT_PENDING_WINDOW_DAYS,
        }),
        { abortSignal },
      );
    } catch (err) {
      // A repeat that meets the deletion it scheduled: deleted.
      if (errorName(err) === 'KMSInvalidStateException' && (await this.isDeleting(physicalId))) return;
      throw kmsError(this.ctx, err, `deleting key ${physicalId}`, resource);
    }
  }

  private async isDeleting(keyId: string): Promise<boolean> {
    const described = await this.describe(keyId).catch(() => undefined);
    return described !== undefined && DELETING_STATES.has(described.KeyState ?? '');
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName !== 'Arn' && attributeName !== 'KeyId') return undefined;
    const described = await this.describe(physicalId);
    if (!described || DELETING_STATES.has(described.KeyState ?? '')) return undefined;
    return attributeName === 'Arn' ? described.Arn : described.KeyId;
  }

  /** The template-controlled properties as KMS holds them now. */
  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const client = this.client();
    try {
      const key = await this.describe(physicalId);
      if (!key || DELETING_STATES.has(key.KeyState ?? '')) return undefined;
      const [policy, rotation, tags] = await Promise.all([
        client.send(new GetKeyPolicyCommand({ KeyId: physicalId, PolicyName: 'default' })),
        client.send(new GetKeyRotationStatusCommand({ KeyId: physicalId })).catch((err: unknown) => {
          // Asymmetric, HMAC and imported keys have no automatic rotation.
          if (errorName(err) === 'UnsupportedOperationException') return undefined;
          throw err;
        }),
        this.tagsOf(physicalId, undefined),
      ]);
      return {
        Description: key.Description ?? '',
        Enabled: key.Enabled === true,
        EnableKeyRotation: rotation?.KeyRotationEnabled === true,
        ...(rotation?.KeyRotationEnabled ? { RotationPeriodInDays: rotation.RotationPeriodInDays } : {}),
        KeyPolicy: parsePolicy(policy.Policy),
        KeySpec: key.KeySpec,
        KeyUsage: key.KeyUsage,
        Origin: key.Origin,
        MultiRegion: key.MultiRegion === true,
        Tags: (tags ?? []).filter((t) => !t.Key.startsWith(OWNERSHIP_PREFIX)),
      };
    } catch (err) {
      throw kmsError(this.ctx, err, `reading key ${physicalId}`, { resourceType: TYPE, physicalId });
    }
  }

  /** Adopts the key the user names (id, ARN or alias). */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    if (!input.knownPhysicalId) return null;
    try {
      const key = await this.describe(input.knownPhysicalId);
      if (!key?.KeyId || DELETING_STATES.has(key.KeyState ?? '') || key.KeyManager === 'AWS') return null;
      return { physicalId: key.KeyId, attributes: { Arn: key.Arn, KeyId: key.KeyId } };
    } catch (err) {
      throw kmsError(this.ctx, err, `looking up key ${input.knownPhysicalId}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }

  /** DescribeKey, or `undefined` when the key does not exist. */
  private async describe(keyId: string, abortSignal?: AbortSignal): Promise<KeyMetadata | undefined> {
    try {
      return (await this.client().send(new DescribeKeyCommand({ KeyId: keyId }), { abortSignal }))
        .KeyMetadata;
    } catch (err) {
      if (errorName(err) === 'NotFoundException') return undefined;
      throw err;
    }
  }
}

function parsePolicy(policy: string | undefined): unknown {
  if (policy === undefined) return undefined;
  try {
    return JSON.parse(policy);
  } catch {
    return policy;
  }
}

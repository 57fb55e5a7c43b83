/**
 * KMS keys and aliases seen as the CloudFormation resources `AWS::KMS::Key`
 * (identifier: the key id) and `AWS::KMS::Alias` (identifier: the alias
 * name), kept in KMS's own store. They behave as CloudFormation's handlers do:
 * a key is created, then its rotation set, then disabled when `Enabled` is
 * false; KeySpec, KeyUsage, Origin and MultiRegion cannot change; deleting
 * schedules the deletion (`PendingWindowInDays`, default 30), and a key
 * pending deletion no longer exists for Cloud Control.
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
import type { Caller, KeyManagement } from './key-management';
import { supportsAutomaticRotation } from './key-specs';
import { defaultKeyPolicy } from './policy';
import type { KmsAlias, KmsKey } from './store';

const IMMUTABLE = ['KeySpec', 'KeyUsage', 'Origin', 'MultiRegion'] as const;
const KEY_DEFAULTS: Record<(typeof IMMUTABLE)[number], unknown> = {
  KeySpec: 'SYMMETRIC_DEFAULT',
  KeyUsage: 'ENCRYPT_DECRYPT',
  Origin: 'AWS_KMS',
  MultiRegion: false,
};

function policyText(policy: unknown, caller: Caller): string {
  if (policy === undefined) return defaultKeyPolicy(caller.account, caller.region);
  return typeof policy === 'string' ? policy : JSON.stringify(policy);
}

function parsedPolicy(policy: string): unknown {
  try {
    return JSON.parse(policy);
  } catch {
    return policy;
  }
}

/** A key's CloudFormation properties. */
export function keyProperties(key: KmsKey): Record<string, unknown> {
  const props: Record<string, unknown> = {
    KeyId: key.keyId,
    Arn: key.arn,
    Description: key.description,
    Enabled: key.state === 'Enabled',
    EnableKeyRotation: key.rotationEnabled,
    KeyPolicy: parsedPolicy(key.policy),
    KeySpec: key.keySpec,
    KeyUsage: key.keyUsage,
    Origin: key.origin,
    MultiRegion: key.multiRegion,
  };
  if (key.rotationEnabled && key.rotationPeriodInDays !== undefined)
    props.RotationPeriodInDays = key.rotationPeriodInDays;
  if (key.templatePendingWindowInDays !== undefined)
    props.PendingWindowInDays = key.templatePendingWindowInDays;
  if (key.tags.length) props.Tags = key.tags.map((t) => ({ Key: t.TagKey, Value: t.TagValue }));
  return props;
}

function cfnTags(tags: unknown): Array<{ TagKey: string; TagValue: string }> {
  return ((tags as Array<{ Key: string; Value: string }> | undefined) ?? []).map((t) => ({
    TagKey: t.Key,
    TagValue: t.Value,
  }));
}

/** A key CloudFormation sees: customer managed and not pending deletion. */
function visible(key: KmsKey | undefined): key is KmsKey {
  return key !== undefined && key.keyManager === 'CUSTOMER' && key.state !== 'PendingDeletion';
}

const rootOf = (scope: ResourceScope): Caller => ({
  account: scope.account,
  region: scope.region,
  arn: `arn:aws:iam::${scope.account}:root`,
});

export class KeyProvider implements ResourceProvider {
  readonly typeName = 'AWS::KMS::Key';

  constructor(private readonly keys: KeyManagement) {}

  private find(scope: ResourceScope, identifier: string): KmsKey | undefined {
    try {
      const key = this.keys.key(scope, identifier);
      return visible(key) ? key : undefined;
    } catch {
      return undefined;
    }
  }

  create(_scope: ResourceScope, _schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const caller = rootOf(_scope);
    const rotate = desired.EnableKeyRotation === true;
    if (
      rotate &&
      !supportsAutomaticRotation(
        String(desired.KeySpec ?? 'SYMMETRIC_DEFAULT'),
        String(desired.Origin ?? 'AWS_KMS'),
      )
    )
      throw new HandlerError(
        'InvalidRequest',
        'You cannot set the EnableKeyRotation property to true on asymmetric or external keys.',
      );
    try {
      const key = this.keys.createKey(caller, {
        description: desired.Description as string | undefined,
        keyUsage: desired.KeyUsage as string | undefined,
        keySpec: desired.KeySpec as string | undefined,
        origin: desired.Origin as string | undefined,
        multiRegion: desired.MultiRegion === true,
        policy: policyText(desired.KeyPolicy, caller),
        bypassPolicyLockoutSafetyCheck: desired.BypassPolicyLockoutSafetyCheck === true,
        tags: cfnTags(desired.Tags),
      });
      key.templatePendingWindowInDays = desired.PendingWindowInDays as number | undefined;
      if (rotate)
        this.keys.enableRotation(caller, key.keyId, desired.RotationPeriodInDays as number | undefined);
      if (desired.Enabled === false) this.keys.disable(caller, key.keyId);
      return { identifier: key.keyId, model: keyProperties(key) };
    } catch (err) {
      throw serviceFailure(err, 'Kms');
    }
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const key = this.find(scope, identifier);
    return key ? { identifier: key.keyId, model: keyProperties(key) } : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const key = this.find(scope, identifier);
    if (!key) throw notFound(schema.typeName, identifier);
    const caller = rootOf(scope);
    const before = keyProperties(key);
    for (const name of IMMUTABLE) {
      if ((desired[name] ?? KEY_DEFAULTS[name]) !== before[name]) {
        throw new HandlerError(
          'InvalidRequest',
          'You cannot change the values of the KeySpec, KeyUsage, Origin, or MultiRegion properties of an AWS::KMS::Key resource.',
        );
      }
    }
    const enabled = desired.Enabled !== false;
    const rotate = desired.EnableKeyRotation === true;
    if (!enabled && before.Enabled === false && rotate !== before.EnableKeyRotation)
      throw new HandlerError(
        'InvalidRequest',
        'You cannot change the EnableKeyRotation property while the Enabled property is false.',
      );
    if (rotate && !supportsAutomaticRotation(key.keySpec, key.origin))
      throw new HandlerError(
        'InvalidRequest',
        'You cannot set the EnableKeyRotation property to true on asymmetric or external keys.',
      );
    try {
      if (enabled && before.Enabled === false) this.keys.enable(caller, key.keyId);
      const period = (desired.RotationPeriodInDays as number | undefined) ?? 365;
      if (rotate && (!key.rotationEnabled || key.rotationPeriodInDays !== period))
        this.keys.enableRotation(caller, key.keyId, period);
      else if (!rotate && key.rotationEnabled) this.keys.disableRotation(caller, key.keyId);
      if (!enabled && before.Enabled !== false) this.keys.disable(caller, key.keyId);
      const description = (desired.Description as string | undefined) ?? '';
      if (description !== key.description) this.keys.updateDescription(caller, key.keyId, description);
      const policy = policyText(desired.KeyPolicy, caller);
      if (policy !== key.policy)
        this.keys.putPolicy(caller, key.keyId, policy, desired.BypassPolicyLockoutSafetyCheck === true);
      const tags = cfnTags(desired.Tags);
      this.keys.untag(
        caller,
        key.keyId,
        key.tags.filter((t) => !tags.some((n) => n.TagKey === t.TagKey)).map((t) => t.TagKey),
      );
      if (tags.length) this.keys.tag(caller, key.keyId, tags);
    } catch (err) {
      throw serviceFailure(err, 'Kms');
    }
    key.templatePendingWindowInDays = desired.PendingWindowInDays as number | undefined;
    return { identifier: key.keyId, model: keyProperties(key) };
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const key = this.find(scope, identifier);
    if (!key) throw notFound(schema.typeName, identifier);
    try {
      this.keys.scheduleDeletion(scope, key.keyId, key.templatePendingWindowInDays ?? 30);
    } catch (err) {
      throw serviceFailure(err, 'Kms');
    }
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.keys.store
      .keysIn(scope.account, scope.region)
      .filter(visible)
      .map((k) => ({ identifier: k.keyId, model: keyProperties(k) }));
  }

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.keys.store.keys.values(), (k) =>
      visible(k) ? { identifier: k.keyId, model: keyProperties(k) } : undefined,
    );
  }
}

function aliasProperties(alias: KmsAlias): Record<string, unknown> {
  return { AliasName: alias.aliasName, TargetKeyId: alias.targetKeyId };
}

export class AliasProvider implements ResourceProvider {
  readonly typeName = 'AWS::KMS::Alias';

  constructor(private readonly keys: KeyManagement) {}

  private find(scope: ResourceScope, aliasName: string): KmsAlias | undefined {
    return aliasName.startsWith('alias/aws/')
      ? undefined
      : this.keys.store.alias(scope.account, scope.region, aliasName);
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = String(desired.AliasName);
    if (this.find(scope, name)) throw alreadyExists(schema.typeName, name);
    try {
      const alias = this.keys.createAlias(scope, name, String(desired.TargetKeyId));
      return { identifier: alias.aliasName, model: aliasProperties(alias) };
    } catch (err) {
      throw serviceFailure(err, 'Kms');
    }
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const alias = this.find(scope, identifier);
    return alias ? { identifier, model: aliasProperties(alias) } : undefined;
  }

  update(
    scope: ResourceScope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    if (!this.find(scope, identifier)) throw notFound(schema.typeName, identifier);
    try {
      const alias = this.keys.updateAlias(scope, identifier, String(desired.TargetKeyId));
      return { identifier, model: aliasProperties(alias) };
    } catch (err) {
      throw serviceFailure(err, 'Kms');
    }
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    if (!this.find(scope, identifier)) throw notFound(schema.typeName, identifier);
    this.keys.deleteAlias(scope, identifier);
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.keys.store
      .aliasesIn(scope.account, scope.region)
      .filter((a) => !a.aliasName.startsWith('alias/aws/'))
      .map((a) => ({ identifier: a.aliasName, model: aliasProperties(a) }));
  }

  inventory(): InventoryItem[] {
    return inventoryItems(this.typeName, this.keys.store.aliases.values(), (a) =>
      a.aliasName.startsWith('alias/aws/')
        ? undefined
        : { identifier: a.aliasName, model: aliasProperties(a) },
    );
  }
}

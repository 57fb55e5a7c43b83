/** AWS KMS operations (TrentService): keys, aliases, rotation, policies, tags, envelope cryptography. */
import { AwsError } from '../../core/errors';
import { requireString } from '../../core/protocols/aws-json';
import type { CallContext, Operations } from '../../core/service';
import { algorithmsOf } from './key-specs';
import type { Caller, KeyManagement, Scope } from './key-management';
import { aliasArn, type KmsKey } from './store';

type Input = Record<string, unknown>;

const scopeOf = (ctx: CallContext): Scope => ({ account: ctx.account, region: ctx.region });
const callerOf = (ctx: CallContext): Caller => ({
  account: ctx.account,
  region: ctx.region,
  arn: ctx.callerArn,
});

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function context(input: Input): Record<string, string> | undefined {
  const c = input.EncryptionContext;
  return c && typeof c === 'object' ? (c as Record<string, string>) : undefined;
}

/** A page of `items` from an opaque `Marker`; `Limit` between 1 and `max`. */
function page<T>(
  items: T[],
  input: Input,
  max: number,
  fallback: number,
): { items: T[]; nextMarker?: string } {
  const limit = input.Limit;
  if (limit !== undefined && (typeof limit !== 'number' || limit < 1 || limit > max)) {
    throw new AwsError(
      'ValidationException',
      `1 validation error detected: Value '${String(limit)}' at 'limit' failed to satisfy constraint: Member must have value between 1 and ${max}`,
    );
  }
  let start = 0;
  if (typeof input.Marker === 'string') {
    start = Number(Buffer.from(input.Marker, 'base64').toString('utf8'));
    if (!Number.isInteger(start) || start < 0 || start > items.length)
      throw new AwsError(
        'InvalidMarkerException',
        'The request was rejected because the marker that specifies where pagination should next begin is not valid.',
      );
  }
  const size = typeof limit === 'number' ? limit : fallback;
  const end = start + size;
  return {
    items: items.slice(start, end),
    nextMarker: end < items.length ? Buffer.from(String(end)).toString('base64') : undefined,
  };
}

/** DescribeKey's KeyMetadata. */
export function keyMetadata(key: KmsKey): Record<string, unknown> {
  return {
    AWSAccountId: key.account,
    KeyId: key.keyId,
    Arn: key.arn,
    CreationDate: key.created,
    Enabled: key.state === 'Enabled',
    Description: key.description,
    KeyUsage: key.keyUsage,
    KeyState: key.state,
    DeletionDate: key.deletionDate,
    Origin: key.origin,
    ExpirationModel: key.origin === 'EXTERNAL' ? 'KEY_MATERIAL_DOES_NOT_EXPIRE' : undefined,
    KeyManager: key.keyManager,
    CustomerMasterKeySpec: key.keySpec,
    KeySpec: key.keySpec,
    ...algorithmsOf(key.keySpec, key.keyUsage),
    MultiRegion: key.multiRegion,
    MultiRegionConfiguration: key.multiRegion
      ? { MultiRegionKeyType: 'PRIMARY', PrimaryKey: { Arn: key.arn, Region: key.region }, ReplicaKeys: [] }
      : undefined,
    PendingDeletionWindowInDays: key.pendingWindowInDays,
  };
}

export class KmsOperations {
  readonly operations: Operations = {
    CreateKey: (ctx, input: Input) => ({
      KeyMetadata: keyMetadata(
        this.keys.createKey(callerOf(ctx), {
          description: optionalString(input.Description),
          keyUsage: optionalString(input.KeyUsage),
          keySpec: optionalString(input.KeySpec) ?? optionalString(input.CustomerMasterKeySpec),
          origin: optionalString(input.Origin),
          multiRegion: input.MultiRegion === true,
          policy: optionalString(input.Policy),
          bypassPolicyLockoutSafetyCheck: input.BypassPolicyLockoutSafetyCheck === true,
          tags: Array.isArray(input.Tags)
            ? (input.Tags as Array<{ TagKey?: string; TagValue?: string }>)
            : [],
          customKeyStoreId: optionalString(input.CustomKeyStoreId),
        }),
      ),
    }),
    DescribeKey: (ctx, input: Input) => ({
      KeyMetadata: keyMetadata(this.keys.key(scopeOf(ctx), requireString(input, 'KeyId'), true)),
    }),
    ListKeys: (ctx, input: Input) => {
      const { items, nextMarker } = page(this.keys.store.keysIn(ctx.account, ctx.region), input, 1000, 100);
      return {
        Keys: items.map((k) => ({ KeyId: k.keyId, KeyArn: k.arn })),
        NextMarker: nextMarker,
        Truncated: nextMarker !== undefined,
      };
    },
    EnableKey: (ctx, input: Input) => {
      this.keys.enable(scopeOf(ctx), requireString(input, 'KeyId'));
      return {};
    },
    DisableKey: (ctx, input: Input) => {
      this.keys.disable(scopeOf(ctx), requireString(input, 'KeyId'));
      return {};
    },
    ScheduleKeyDeletion: (ctx, input: Input) => {
      const key = this.keys.scheduleDeletion(
        scopeOf(ctx),
        requireString(input, 'KeyId'),
        typeof input.PendingWindowInDays === 'number' ? input.PendingWindowInDays : undefined,
      );
      return {
        KeyId: key.arn,
        DeletionDate: key.deletionDate,
        KeyState: key.state,
        PendingWindowInDays: key.pendingWindowInDays,
      };
    },
    CancelKeyDeletion: (ctx, input: Input) => ({
      KeyId: this.keys.cancelDeletion(scopeOf(ctx), requireString(input, 'KeyId')).arn,
    }),
    EnableKeyRotation: (ctx, input: Input) => {
      this.keys.enableRotation(
        scopeOf(ctx),
        requireString(input, 'KeyId'),
        typeof input.RotationPeriodInDays === 'number' ? input.RotationPeriodInDays : undefined,
      );
      return {};
    },
    DisableKeyRotation: (ctx, input: Input) => {
      this.keys.disableRotation(scopeOf(ctx), requireString(input, 'KeyId'));
      return {};
    },
    GetKeyRotationStatus: (ctx, input: Input) => {
      const key = this.keys.key(scopeOf(ctx), requireString(input, 'KeyId'));
      return {
        KeyRotationEnabled: key.rotationEnabled,
        KeyId: key.arn,
        RotationPeriodInDays: key.rotationEnabled ? key.rotationPeriodInDays : undefined,
        NextRotationDate: key.rotationEnabled ? key.nextRotationDate : undefined,
      };
    },
    PutKeyPolicy: (ctx, input: Input) => {
      this.policyName(input);
      this.keys.putPolicy(
        callerOf(ctx),
        requireString(input, 'KeyId'),
        requireString(input, 'Policy'),
        input.BypassPolicyLockoutSafetyCheck === true,
      );
      return {};
    },
    GetKeyPolicy: (ctx, input: Input) => {
      const name = this.policyName(input);
      return { Policy: this.keys.key(scopeOf(ctx), requireString(input, 'KeyId')).policy, PolicyName: name };
    },
    ListKeyPolicies: (ctx, input: Input) => {
      this.keys.key(scopeOf(ctx), requireString(input, 'KeyId'));
      return { PolicyNames: ['default'], Truncated: false };
    },
    UpdateKeyDescription: (ctx, input: Input) => {
      // Required, but may be empty (0-8192 characters): an empty one clears the description.
      if (typeof input.Description !== 'string')
        throw new AwsError(
          'ValidationException',
          "1 validation error detected: Value null at 'description' failed to satisfy constraint: Member must not be null",
        );
      this.keys.updateDescription(scopeOf(ctx), requireString(input, 'KeyId'), input.Description);
      return {};
    },
    TagResource: (ctx, input: Input) => {
      this.keys.tag(
        scopeOf(ctx),
        requireString(input, 'KeyId'),
        Array.isArray(input.Tags) ? (input.Tags as Array<{ TagKey?: string; TagValue?: string }>) : [],
      );
      return {};
    },
    UntagResource: (ctx, input: Input) => {
      this.keys.untag(
        scopeOf(ctx),
        requireString(input, 'KeyId'),
        Array.isArray(input.TagKeys) ? (input.TagKeys as string[]) : [],
      );
      return {};
    },
    ListResourceTags: (ctx, input: Input) => {
      const key = this.keys.key(scopeOf(ctx), requireString(input, 'KeyId'));
      const { items, nextMarker } = page(key.tags, input, 50, 50);
      return {
        Tags: items.map((t) => ({ ...t })),
        NextMarker: nextMarker,
        Truncated: nextMarker !== undefined,
      };
    },
    CreateAlias: (ctx, input: Input) => {
      this.keys.createAlias(
        scopeOf(ctx),
        requireString(input, 'AliasName'),
        requireString(input, 'TargetKeyId'),
      );
      return {};
    },
    UpdateAlias: (ctx, input: Input) => {
      this.keys.updateAlias(
        scopeOf(ctx),
        requireString(input, 'AliasName'),
        requireString(input, 'TargetKeyId'),
      );
      return {};
    },
    DeleteAlias: (ctx, input: Input) => {
      this.keys.deleteAlias(scopeOf(ctx), requireString(input, 'AliasName'));
      return {};
    },
    ListAliases: (ctx, input: Input) => {
      let aliases = this.keys.store.aliasesIn(ctx.account, ctx.region);
      const keyId = optionalString(input.KeyId);
      if (keyId !== undefined) {
        const key = this.keys.key(scopeOf(ctx), keyId);
        aliases = aliases.filter((a) => a.targetKeyId === key.keyId);
      }
      const { items, nextMarker } = page(aliases, input, 100, 50);
      return {
        Aliases: items.map((a) => ({
          AliasName: a.aliasName,
          AliasArn: aliasArn(a.account, a.region, a.aliasName),
          TargetKeyId: a.targetKeyId,
          CreationDate: a.created,
          LastUpdatedDate: a.lastUpdated,
        })),
        NextMarker: nextMarker,
        Truncated: nextMarker !== undefined,
      };
    },
    Encrypt: (ctx, input: Input) => {
      const { key, blob } = this.keys.encrypt(
        scopeOf(ctx),
        requireString(input, 'KeyId'),
        Buffer.isBuffer(input.Plaintext) ? input.Plaintext : Buffer.alloc(0),
        context(input),
      );
      return { CiphertextBlob: blob, KeyId: key.arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    Decrypt: (ctx, input: Input) => {
      const { key, plaintext } = this.keys.decrypt(
        scopeOf(ctx),
        Buffer.isBuffer(input.CiphertextBlob) ? input.CiphertextBlob : Buffer.alloc(0),
        context(input),
        optionalString(input.KeyId),
      );
      return { KeyId: key.arn, Plaintext: plaintext, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
    GenerateDataKey: (ctx, input: Input) => {
      const { key, plaintext, blob } = this.dataKey(ctx, input);
      return { CiphertextBlob: blob, Plaintext: plaintext, KeyId: key.arn };
    },
    GenerateDataKeyWithoutPlaintext: (ctx, input: Input) => {
      const { key, blob } = this.dataKey(ctx, input);
      return { CiphertextBlob: blob, KeyId: key.arn };
    },
  };

  constructor(private readonly keys: KeyManagement) {}

  /** The only key policy name is `default` (and it is the default). */
  private policyName(input: Input): string {
    const name = optionalString(input.PolicyName) ?? 'default';
    if (name !== 'default')
      throw new AwsError(
        'NotFoundException',
        `No such policy exists: ${name}. The only valid policy name is default.`,
      );
    return name;
  }

  private dataKey(ctx: CallContext, input: Input) {
    return this.keys.generateDataKey(scopeOf(ctx), requireString(input, 'KeyId'), {
      keySpec: optionalString(input.KeySpec),
      numberOfBytes: typeof input.NumberOfBytes === 'number' ? input.NumberOfBytes : undefined,
      context: context(input),
    });
  }
}

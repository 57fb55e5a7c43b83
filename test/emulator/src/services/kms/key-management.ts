/**
 * What KMS does to keys and aliases, with its validation and key-state rules,
 * shared by the native API (service.ts), Cloud Control (resource.ts) and the
 * services that encrypt with KMS (api.ts). Inputs are already plain values;
 * errors are AWS's.
 */
import { randomBytes } from 'node:crypto';
import { AwsError } from '../../core/errors';
import { open, seal, sealedKeyId } from './crypto';
import { KEY_SPECS, KEY_USAGES, ORIGINS, supportsAutomaticRotation, usagesOf } from './key-specs';
import { validateKeyPolicy } from './policy';
import { aliasArn, kmsErrors, KmsStore, type KmsAlias, type KmsKey } from './store';

export interface Scope {
  account: string;
  region: string;
}

export interface Caller extends Scope {
  /** ARN of the calling principal (for the policy lockout safety check). */
  arn: string;
}

export interface CreateKeyInput {
  description?: string;
  keyUsage?: string;
  keySpec?: string;
  origin?: string;
  multiRegion?: boolean;
  policy?: string;
  bypassPolicyLockoutSafetyCheck?: boolean;
  tags?: Array<{ TagKey?: string; TagValue?: string }>;
  customKeyStoreId?: string;
}

const DAY_MS = 86_400_000;
const ALIAS_NAME = /^alias\/[a-zA-Z0-9/_-]+$/;

function enumError(member: string, value: string, allowed: readonly string[]): AwsError {
  return kmsErrors.validation(
    `1 validation error detected: Value '${value}' at '${member}' failed to satisfy constraint: Member must satisfy enum value set: [${allowed.join(', ')}]`,
  );
}

/** Tags as TagResource / CreateKey validate them (TagException). */
function validTags(
  tags: Array<{ TagKey?: string; TagValue?: string }>,
): Array<{ TagKey: string; TagValue: string }> {
  const out: Array<{ TagKey: string; TagValue: string }> = [];
  for (const t of tags) {
    const key = t.TagKey ?? '';
    const value = t.TagValue ?? '';
    if (key.length < 1 || key.length > 128 || value.length > 256)
      throw new AwsError('TagException', `Tag key must be 1-128 and value 0-256 characters long: ${key}`);
    if (key.toLowerCase().startsWith('aws:'))
      throw new AwsError('TagException', `Tags beginning with aws: are reserved: ${key}`);
    out.push({ TagKey: key, TagValue: value });
  }
  return out;
}

export class KeyManagement {
  constructor(readonly store: KmsStore) {}

  // ------------------------------------------------------------------ keys

  createKey(caller: Caller, input: CreateKeyInput): KmsKey {
    const keySpec = input.keySpec ?? 'SYMMETRIC_DEFAULT';
    if (!KEY_SPECS.includes(keySpec as (typeof KEY_SPECS)[number]))
      throw enumError('keySpec', keySpec, KEY_SPECS);
    const keyUsage = input.keyUsage ?? 'ENCRYPT_DECRYPT';
    if (!KEY_USAGES.includes(keyUsage as (typeof KEY_USAGES)[number]))
      throw enumError('keyUsage', keyUsage, KEY_USAGES);
    if (!usagesOf(keySpec).includes(keyUsage))
      throw kmsErrors.validation(`KeyUsage ${keyUsage} is not compatible with KeySpec ${keySpec}`);
    const origin = input.origin ?? 'AWS_KMS';
    if (!ORIGINS.includes(origin as (typeof ORIGINS)[number])) throw enumError('origin', origin, ORIGINS);
    if (origin === 'AWS_CLOUDHSM' || origin === 'EXTERNAL_KEY_STORE' || input.customKeyStoreId !== undefined)
      throw new AwsError(
        'CustomKeyStoreNotFoundException',
        'Custom key stores are not available in the emulator.',
      );
    if ((input.description ?? '').length > 8192)
      throw kmsErrors.validation(
        "Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 8192",
      );
    const tags = validTags(input.tags ?? []);
    if (tags.length > 50) throw new AwsError('TagException', 'A KMS key can have at most 50 tags.');
    if (input.policy !== undefined)
      validateKeyPolicy(input.policy, caller, input.bypassPolicyLockoutSafetyCheck === true);
    return this.store.createKey(caller.account, caller.region, {
      description: input.description,
      keyUsage,
      keySpec,
      origin,
      multiRegion: input.multiRegion === true,
      policy: input.policy,
      tags,
    });
  }

  /** A key by any KeyId form; `allowAlias` for operations that accept aliases. */
  key(scope: Scope, keyId: string, allowAlias = false): KmsKey {
    return this.store.find(scope.account, scope.region, keyId, allowAlias);
  }

  /** The key, refused as KMS refuses operations on a key pending deletion (or import, when asked). */
  private changeable(scope: Scope, keyId: string, options: { allowPendingImport?: boolean } = {}): KmsKey {
    const key = this.key(scope, keyId);
    if (key.state === 'PendingDeletion') throw kmsErrors.pendingDeletion(key.arn);
    if (key.state === 'PendingImport' && !options.allowPendingImport) throw kmsErrors.pendingImport(key.arn);
    return key;
  }

  /** Customer managed only: the AWS managed keys' settings cannot be changed. */
  private customerManaged(key: KmsKey, operation: string): KmsKey {
    if (key.keyManager === 'AWS')
      throw new AwsError(
        'UnsupportedOperationException',
        `${key.arn} is an AWS managed key; ${operation} is not allowed.`,
      );
    return key;
  }

  enable(scope: Scope, keyId: string): void {
    this.customerManaged(this.changeable(scope, keyId), 'EnableKey').state = 'Enabled';
  }

  disable(scope: Scope, keyId: string): void {
    this.customerManaged(this.changeable(scope, keyId), 'DisableKey').state = 'Disabled';
  }

  scheduleDeletion(scope: Scope, keyId: string, pendingWindowInDays = 30): KmsKey {
    const key = this.customerManaged(this.key(scope, keyId), 'ScheduleKeyDeletion');
    if (!Number.isInteger(pendingWindowInDays) || pendingWindowInDays < 7 || pendingWindowInDays > 30) {
      throw kmsErrors.validation(
        "1 validation error detected: Value at 'pendingWindowInDays' failed to satisfy constraint: Member must have value between 7 and 30",
      );
    }
    if (key.state === 'PendingDeletion') throw kmsErrors.pendingDeletion(key.arn);
    key.state = 'PendingDeletion';
    key.pendingWindowInDays = pendingWindowInDays;
    key.deletionDate = new Date(Date.now() + pendingWindowInDays * DAY_MS);
    return key;
  }

  cancelDeletion(scope: Scope, keyId: string): KmsKey {
    const key = this.key(scope, keyId);
    if (key.state !== 'PendingDeletion')
      throw new AwsError('KMSInvalidStateException', `${key.arn} is not pending deletion.`);
    // A key whose deletion is cancelled comes back disabled.
    key.state = 'Disabled';
    key.deletionDate = undefined;
    key.pendingWindowInDays = undefined;
    return key;
  }

  enableRotation(scope: Scope, keyId: string, rotationPeriodInDays?: number): void {
    const key = this.customerManaged(this.changeable(scope, keyId), 'EnableKeyRotation');
    if (key.state === 'Disabled') throw kmsErrors.disabled(key.arn);
    if (!supportsAutomaticRotation(key.keySpec, key.origin)) {
      throw new AwsError(
        'UnsupportedOperationException',
        `${key.arn} key usage or key spec does not support automatic key rotation.`,
      );
    }
    const period = rotationPeriodInDays ?? 365;
    if (!Number.isInteger(period) || period < 90 || period > 2560) {
      throw kmsErrors.validation(
        "1 validation error detected: Value at 'rotationPeriodInDays' failed to satisfy constraint: Member must have value between 90 and 2560",
      );
    }
    key.rotationEnabled = true;
    key.rotationPeriodInDays = period;
    key.nextRotationDate = new Date(Date.now() + period * DAY_MS);
  }

  disableRotation(scope: Scope, keyId: string): void {
    const key = this.customerManaged(this.changeable(scope, keyId), 'DisableKeyRotation');
    if (key.state === 'Disabled') throw kmsErrors.disabled(key.arn);
    if (!supportsAutomaticRotation(key.keySpec, key.origin)) {
      throw new AwsError(
        'UnsupportedOperationException',
        `${key.arn} key usage or key spec does not support automatic key rotation.`,
      );
    }
    key.rotationEnabled = false;
    key.rotationPeriodInDays = undefined;
    key.nextRotationDate = undefined;
  }

  putPolicy(caller: Caller, keyId: string, policy: string, bypassLockoutSafetyCheck: boolean): void {
    const key = this.customerManaged(
      this.changeable(caller, keyId, { allowPendingImport: true }),
      'PutKeyPolicy',
    );
    validateKeyPolicy(policy, caller, bypassLockoutSafetyCheck);
    key.policy = policy;
  }

  updateDescription(scope: Scope, keyId: string, description: string): void {
    if (description.length > 8192)
      throw kmsErrors.validation(
        "Value at 'description' failed to satisfy constraint: Member must have length less than or equal to 8192",
      );
    const key = this.customerManaged(
      this.changeable(scope, keyId, { allowPendingImport: true }),
      'UpdateKeyDescription',
    );
    key.description = description;
  }

  tag(scope: Scope, keyId: string, tags: Array<{ TagKey?: string; TagValue?: string }>): void {
    const key = this.customerManaged(
      this.changeable(scope, keyId, { allowPendingImport: true }),
      'TagResource',
    );
    for (const tag of validTags(tags)) {
      const existing = key.tags.find((t) => t.TagKey === tag.TagKey);
      if (existing) existing.TagValue = tag.TagValue;
      else key.tags.push(tag);
    }
    if (key.tags.length > 50) throw new AwsError('TagException', 'A KMS key can have at most 50 tags.');
  }

  untag(scope: Scope, keyId: string, tagKeys: string[]): void {
    const key = this.customerManaged(
      this.changeable(scope, keyId, { allowPendingImport: true }),
      'UntagResource',
    );
    key.tags = key.tags.filter((t) => !tagKeys.includes(t.TagKey));
  }

  // ---------------------------------------------------------------- aliases

  private validAliasName(aliasName: string): void {
    if (!ALIAS_NAME.test(aliasName) || aliasName.length > 256) {
      throw new AwsError(
        'InvalidAliasNameException',
        `Alias name ${aliasName} must begin with alias/ followed by letters, numbers, slashes, underscores or dashes.`,
      );
    }
    if (aliasName.startsWith('alias/aws/'))
      throw new AwsError(
        'InvalidAliasNameException',
        'Alias names that begin with alias/aws/ are reserved for AWS managed keys.',
      );
  }

  /** The target of CreateAlias / UpdateAlias: a customer managed key (id or ARN) not pending deletion. */
  private aliasTarget(scope: Scope, targetKeyId: string): KmsKey {
    const key = this.changeable(scope, targetKeyId, { allowPendingImport: true });
    return this.customerManaged(key, 'an alias of it');
  }

  createAlias(scope: Scope, aliasName: string, targetKeyId: string): KmsAlias {
    this.validAliasName(aliasName);
    const key = this.aliasTarget(scope, targetKeyId);
    if (this.store.alias(scope.account, scope.region, aliasName)) {
      throw new AwsError(
        'AlreadyExistsException',
        `An alias with the name ${aliasArn(scope.account, scope.region, aliasName)} already exists`,
      );
    }
    return this.store.putAlias(scope.account, scope.region, aliasName, key.keyId);
  }

  updateAlias(scope: Scope, aliasName: string, targetKeyId: string): KmsAlias {
    this.validAliasName(aliasName);
    const alias = this.store.alias(scope.account, scope.region, aliasName);
    if (!alias) throw kmsErrors.aliasNotFound(aliasArn(scope.account, scope.region, aliasName));
    const key = this.aliasTarget(scope, targetKeyId);
    const current = this.store.keys.get(KmsStore.key(scope.account, scope.region, alias.targetKeyId));
    if (
      current &&
      (current.keyUsage !== key.keyUsage ||
        (current.keySpec === 'SYMMETRIC_DEFAULT') !== (key.keySpec === 'SYMMETRIC_DEFAULT'))
    ) {
      throw kmsErrors.validation(
        `${key.arn} cannot replace ${current.arn} as the target of ${aliasName}: the keys must have the same type and key usage.`,
      );
    }
    return this.store.putAlias(scope.account, scope.region, aliasName, key.keyId);
  }

  deleteAlias(scope: Scope, aliasName: string): void {
    if (aliasName.startsWith('alias/aws/'))
      throw new AwsError(
        'InvalidAliasNameException',
        'Alias names that begin with alias/aws/ are reserved for AWS managed keys.',
      );
    if (!this.store.deleteAlias(scope.account, scope.region, aliasName))
      throw kmsErrors.aliasNotFound(aliasArn(scope.account, scope.region, aliasName));
  }

  // ------------------------------------------------------------ cryptography

  /** A key that can encrypt and decrypt now (enabled, ENCRYPT_DECRYPT). */
  private usable(key: KmsKey): KmsKey {
    if (key.state === 'Disabled') throw kmsErrors.disabled(key.arn);
    if (key.state === 'PendingDeletion') throw kmsErrors.pendingDeletion(key.arn);
    if (key.state === 'PendingImport') throw kmsErrors.pendingImport(key.arn);
    if (key.keyUsage !== 'ENCRYPT_DECRYPT')
      throw new AwsError(
        'InvalidKeyUsageException',
        `${key.arn} key usage is ${key.keyUsage} which is not valid for this operation.`,
      );
    return key;
  }

  encrypt(
    scope: Scope,
    keyId: string,
    plaintext: Buffer,
    context?: Record<string, string>,
  ): { key: KmsKey; blob: Buffer } {
    if (plaintext.length < 1 || plaintext.length > 4096)
      throw kmsErrors.validation(
        "1 validation error detected: Value at 'plaintext' failed to satisfy constraint: Member must have length between 1 and 4096",
      );
    const key = this.usable(this.key(scope, keyId, true));
    return { key, blob: seal(key.keyId, key.material, plaintext, context) };
  }

  /**
   * What a service integrated with KMS does (envelope encryption under a data
   * key): the key's checks, but no 4 KB limit on the plaintext.
   */
  envelope(
    scope: Scope,
    keyId: string,
    plaintext: Buffer,
    context?: Record<string, string>,
  ): { key: KmsKey; blob: Buffer } {
    const key = this.usable(this.key(scope, keyId, true));
    return { key, blob: seal(key.keyId, key.material, plaintext, context) };
  }

  decrypt(
    scope: Scope,
    blob: Buffer,
    context?: Record<string, string>,
    expectedKeyId?: string,
  ): { key: KmsKey; plaintext: Buffer } {
    const sealed = sealedKeyId(blob);
    let key: KmsKey;
    try {
      key = this.key(scope, sealed);
    } catch (err) {
      if (err instanceof AwsError && err.code === 'NotFoundException')
        throw new AwsError('InvalidCiphertextException', '');
      throw err;
    }
    if (expectedKeyId !== undefined && this.key(scope, expectedKeyId, true).keyId !== key.keyId) {
      throw new AwsError(
        'IncorrectKeyException',
        'The key ID in the request does not identify a KMS key that can perform this operation.',
      );
    }
    return { key, plaintext: open(blob, this.usable(key).material, context) };
  }

  /** GenerateDataKey: a fresh data key, in plaintext and encrypted under the KMS key. */
  generateDataKey(
    scope: Scope,
    keyId: string,
    options: { keySpec?: string; numberOfBytes?: number; context?: Record<string, string> },
  ): { key: KmsKey; plaintext: Buffer; blob: Buffer } {
    if ((options.keySpec === undefined) === (options.numberOfBytes === undefined))
      throw kmsErrors.validation('Please specify either number of bytes or key spec.');
    let length: number;
    if (options.keySpec !== undefined) {
      if (options.keySpec !== 'AES_256' && options.keySpec !== 'AES_128')
        throw enumError('keySpec', options.keySpec, ['AES_256', 'AES_128']);
      length = options.keySpec === 'AES_256' ? 32 : 16;
    } else {
      length = options.numberOfBytes!;
      if (!Number.isInteger(length) || length < 1 || length > 1024)
        throw kmsErrors.validation(
          "1 validation error detected: Value at 'numberOfBytes' failed to satisfy constraint: Member must have value between 1 and 1024",
        );
    }
    const plaintext = randomBytes(length);
    const { key, blob } = this.encrypt(scope, keyId, plaintext, options.context);
    return { key, plaintext, blob };
  }
}

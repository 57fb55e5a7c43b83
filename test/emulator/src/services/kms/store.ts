/**
 * KMS keys and aliases, per account and region, and the way a `KeyId` input
 * (key id, key ARN, alias name, alias ARN) resolves to a key.
 */
import { randomBytes } from 'node:crypto';
import { partitionOf } from '../../core/accounts';
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { ServiceStore } from '../../core/service';
import { defaultKeyPolicy, managedKeyPolicy } from './policy';

export type KeyState = 'Enabled' | 'Disabled' | 'PendingDeletion' | 'PendingImport';

export interface KmsKey {
  account: string;
  region: string;
  keyId: string;
  arn: string;
  description: string;
  keyUsage: string;
  keySpec: string;
  origin: string;
  multiRegion: boolean;
  /** `CUSTOMER`, or `AWS` for the AWS managed keys (`alias/aws/<service>`). */
  keyManager: 'CUSTOMER' | 'AWS';
  policy: string;
  state: KeyState;
  created: Date;
  deletionDate?: Date;
  pendingWindowInDays?: number;
  rotationEnabled: boolean;
  rotationPeriodInDays?: number;
  nextRotationDate?: Date;
  /** Cloud Control only: the write-only `PendingWindowInDays` of the template, for its delete. */
  templatePendingWindowInDays?: number;
  /** Insertion order, as ListResourceTags answers. */
  tags: Array<{ TagKey: string; TagValue: string }>;
  /** Base64 of the 256-bit key material the emulator encrypts with (never returned). */
  material: string;
}

export interface KmsAlias {
  account: string;
  region: string;
  aliasName: string;
  targetKeyId: string;
  created: Date;
  lastUpdated: Date;
}

export function keyArn(account: string, region: string, keyId: string): string {
  return `arn:${partitionOf(region)}:kms:${region}:${account}:key/${keyId}`;
}

export function aliasArn(account: string, region: string, aliasName: string): string {
  return `arn:${partitionOf(region)}:kms:${region}:${account}:${aliasName}`;
}

export const kmsErrors = {
  keyNotFound: (arn: string) => new AwsError('NotFoundException', `Key '${arn}' does not exist`),
  aliasNotFound: (arn: string) => new AwsError('NotFoundException', `Alias ${arn} is not found.`),
  invalidKeyId: (keyId: string) => new AwsError('NotFoundException', `Invalid keyId ${keyId}`),
  pendingDeletion: (arn: string) => new AwsError('KMSInvalidStateException', `${arn} is pending deletion.`),
  pendingImport: (arn: string) => new AwsError('KMSInvalidStateException', `${arn} is pending import.`),
  disabled: (arn: string) => new AwsError('DisabledException', `${arn} is disabled.`),
  validation: (message: string) => new AwsError('ValidationException', message),
};

/** What a KeyId input names, before it is looked up. */
type KeyReference =
  | { kind: 'key'; account?: string; region?: string; keyId: string }
  | { kind: 'alias'; account?: string; region?: string; aliasName: string };

const KEY_ID = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32})$/;

function parseReference(input: string): KeyReference {
  if (input.startsWith('arn:')) {
    const m = /^arn:aws[a-z-]*:kms:([a-z0-9-]+):(\d{12}):(key\/.+|alias\/.+)$/.exec(input);
    if (!m) throw new AwsError('InvalidArnException', `ARN ${input} is not valid.`);
    const [, region, account, resource] = m as unknown as [string, string, string, string];
    return resource.startsWith('key/')
      ? { kind: 'key', account, region, keyId: resource.slice('key/'.length) }
      : { kind: 'alias', account, region, aliasName: resource };
  }
  if (input.startsWith('alias/')) return { kind: 'alias', aliasName: input };
  return { kind: 'key', keyId: input };
}

/** The AWS managed keys services create on first use, with their descriptions. */
const MANAGED_KEY_DESCRIPTIONS: Record<string, string> = {
  'alias/aws/ssm': 'Default key that protects my SSM parameters when no other key is defined',
  'alias/aws/secretsmanager':
    'Default key that protects my Secrets Manager data when no other key is defined',
};

export class KmsStore implements ServiceStore {
  readonly keys = new Map<string, KmsKey>();
  readonly aliases = new Map<string, KmsAlias>();

  static key(account: string, region: string, id: string): string {
    return `${account}|${region}|${id}`;
  }

  createKey(
    account: string,
    region: string,
    input: {
      description?: string;
      keyUsage: string;
      keySpec: string;
      origin: string;
      multiRegion: boolean;
      policy?: string;
      tags?: Array<{ TagKey: string; TagValue: string }>;
      keyManager?: 'CUSTOMER' | 'AWS';
    },
  ): KmsKey {
    const keyId = input.multiRegion ? `mrk-${randomBytes(16).toString('hex')}` : uuid();
    const key: KmsKey = {
      account,
      region,
      keyId,
      arn: keyArn(account, region, keyId),
      description: input.description ?? '',
      keyUsage: input.keyUsage,
      keySpec: input.keySpec,
      origin: input.origin,
      multiRegion: input.multiRegion,
      keyManager: input.keyManager ?? 'CUSTOMER',
      policy: input.policy ?? defaultKeyPolicy(account, region),
      state: input.origin === 'EXTERNAL' ? 'PendingImport' : 'Enabled',
      created: new Date(),
      rotationEnabled: false,
      tags: (input.tags ?? []).map((t) => ({ ...t })),
      material: randomBytes(32).toString('base64'),
    };
    this.keys.set(KmsStore.key(account, region, keyId), key);
    return key;
  }

  /**
   * The key a `KeyId` input names. `allowAlias`: whether the operation
   * accepts alias names and alias ARNs (DescribeKey, Encrypt, ...); others
   * take a key id or key ARN only.
   */
  find(account: string, region: string, input: string, allowAlias: boolean): KmsKey {
    const ref = parseReference(input);
    const inAccount = ref.account ?? account;
    const inRegion = ref.region ?? region;
    if (ref.kind === 'alias') {
      if (!allowAlias) throw kmsErrors.invalidKeyId(input);
      const target = this.aliasTarget(inAccount, inRegion, ref.aliasName);
      if (!target) throw kmsErrors.aliasNotFound(aliasArn(inAccount, inRegion, ref.aliasName));
      return target;
    }
    if (!KEY_ID.test(ref.keyId)) throw kmsErrors.invalidKeyId(input);
    // A key lives in its own account and region: an ARN naming another is not found here.
    const key =
      inAccount === account && inRegion === region
        ? this.keys.get(KmsStore.key(account, region, ref.keyId))
        : undefined;
    if (!key) throw kmsErrors.keyNotFound(keyArn(inAccount, inRegion, ref.keyId));
    return key;
  }

  /** The key an alias points to; an AWS managed alias makes its key on first use, as AWS does. */
  private aliasTarget(account: string, region: string, aliasName: string): KmsKey | undefined {
    const alias = this.aliases.get(KmsStore.key(account, region, aliasName));
    if (alias) return this.keys.get(KmsStore.key(account, region, alias.targetKeyId));
    const description = MANAGED_KEY_DESCRIPTIONS[aliasName];
    if (!description) return undefined;
    const key = this.createKey(account, region, {
      description,
      keyUsage: 'ENCRYPT_DECRYPT',
      keySpec: 'SYMMETRIC_DEFAULT',
      origin: 'AWS_KMS',
      multiRegion: false,
      keyManager: 'AWS',
      policy: managedKeyPolicy(account, region, aliasName.slice('alias/aws/'.length)),
    });
    // AWS managed keys rotate every year and cannot be changed.
    key.rotationEnabled = true;
    key.rotationPeriodInDays = 365;
    this.putAlias(account, region, aliasName, key.keyId);
    return key;
  }

  alias(account: string, region: string, aliasName: string): KmsAlias | undefined {
    return this.aliases.get(KmsStore.key(account, region, aliasName));
  }

  putAlias(account: string, region: string, aliasName: string, targetKeyId: string): KmsAlias {
    const k = KmsStore.key(account, region, aliasName);
    const existing = this.aliases.get(k);
    const now = new Date();
    const alias: KmsAlias = existing
      ? { ...existing, targetKeyId, lastUpdated: now }
      : { account, region, aliasName, targetKeyId, created: now, lastUpdated: now };
    this.aliases.set(k, alias);
    return alias;
  }

  deleteAlias(account: string, region: string, aliasName: string): boolean {
    return this.aliases.delete(KmsStore.key(account, region, aliasName));
  }

  keysIn(account: string, region: string): KmsKey[] {
    return [...this.keys.values()]
      .filter((k) => k.account === account && k.region === region)
      .sort((a, b) => a.created.getTime() - b.created.getTime() || (a.keyId < b.keyId ? -1 : 1));
  }

  aliasesIn(account: string, region: string): KmsAlias[] {
    return [...this.aliases.values()]
      .filter((a) => a.account === account && a.region === region)
      .sort((a, b) => (a.aliasName < b.aliasName ? -1 : 1));
  }

  /** Aliases pointing at a key (a key's deletion removes them, as AWS does when it deletes the key). */
  aliasesOf(key: KmsKey): KmsAlias[] {
    return this.aliasesIn(key.account, key.region).filter((a) => a.targetKeyId === key.keyId);
  }

  clear(): void {
    this.keys.clear();
    this.aliases.clear();
  }

  snapshot(): { keys: unknown[]; aliases: unknown[] } {
    const iso = (d?: Date) => d?.toISOString();
    return {
      keys: [...this.keys.values()].map((k) => ({
        ...k,
        created: iso(k.created),
        deletionDate: iso(k.deletionDate),
        nextRotationDate: iso(k.nextRotationDate),
      })),
      aliases: [...this.aliases.values()].map((a) => ({
        ...a,
        created: iso(a.created),
        lastUpdated: iso(a.lastUpdated),
      })),
    };
  }

  restore(saved: unknown): void {
    const data = saved as { keys?: Array<Record<string, unknown>>; aliases?: Array<Record<string, unknown>> };
    const date = (v: unknown) => (typeof v === 'string' ? new Date(v) : undefined);
    for (const k of data.keys ?? []) {
      const key = {
        ...k,
        created: date(k.created),
        deletionDate: date(k.deletionDate),
        nextRotationDate: date(k.nextRotationDate),
      } as unknown as KmsKey;
      this.keys.set(KmsStore.key(key.account, key.region, key.keyId), key);
    }
    for (const a of data.aliases ?? []) {
      const alias = {
        ...a,
        created: date(a.created),
        lastUpdated: date(a.lastUpdated),
      } as unknown as KmsAlias;
      this.aliases.set(KmsStore.key(alias.account, alias.region, alias.aliasName), alias);
    }
  }
}

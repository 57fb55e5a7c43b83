import {
  CreateKeyCommand,
  DescribeKeyCommand,
  GetKeyPolicyCommand,
  GetKeyRotationStatusCommand,
  KMSClient,
  ListAliasesCommand,
  ListKeysCommand,
  ListResourceTagsCommand,
  ScheduleKeyDeletionCommand,
} from '@aws-sdk/client-kms';
import type { CreateContext, ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { AliasProvider } from '../src/alias-provider';
import { KeyProvider } from '../src/key-provider';

// The providers against the emulator's KMS, through real SDK clients built by
// cdkd's client factory exactly as a deploy builds them.
const KEY = 'AWS::KMS::Key';
const ALIAS = 'AWS::KMS::Alias';
const REGION = 'us-east-1';
const STACK = 'KmsPackTest';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let kms: KMSClient;
let keys: KeyProvider;
let aliases: AliasProvider;
let counter = 0;

const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
  kms = factory.get(KMSClient);
  keys = new KeyProvider(ctx);
  aliases = new AliasProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

beforeEach(async () => {
  await emulator.control.reset();
  await emulator.control.clearRequests();
});

const createContext = (
  logicalId: string,
  extra: { token?: string; inDoubt?: boolean; attempt?: number } = {},
) =>
  buildCreateContext({
    stackName: STACK,
    region: REGION,
    logicalId,
    idempotencyToken: extra.token ?? `token-${++counter}`,
    attempt: extra.attempt,
    inDoubt: extra.inDoubt,
  });

const describeKey = async (id: string) =>
  (await kms.send(new DescribeKeyCommand({ KeyId: id }))).KeyMetadata!;
const tagsOf = async (id: string) =>
  Object.fromEntries(
    ((await kms.send(new ListResourceTagsCommand({ KeyId: id }))).Tags ?? []).map((t) => [
      t.TagKey,
      t.TagValue,
    ]),
  );
const policyOf = async (id: string) =>
  JSON.parse((await kms.send(new GetKeyPolicyCommand({ KeyId: id, PolicyName: 'default' }))).Policy!) as {
    Id?: string;
    Statement: Array<{ Sid?: string }>;
  };
const rotationOf = (id: string) => kms.send(new GetKeyRotationStatusCommand({ KeyId: id }));
/** Customer keys not pending deletion (what a stack can own). */
const liveKeys = async () => {
  const ids = ((await kms.send(new ListKeysCommand({}))).Keys ?? []).map((k) => k.KeyId!);
  const described = await Promise.all(ids.map(describeKey));
  return described.filter((k) => k.KeyManager === 'CUSTOMER' && k.KeyState !== 'PendingDeletion');
};
const calls = async () => (await emulator.control.requests()).byOperation;

const POLICY = {
  Version: '2012-10-17',
  Statement: [
    {
      Sid: 'Admin',
      Effect: 'Allow',
      Principal: { AWS: 'arn:aws:iam::123456789012:root' },
      Action: 'kms:*',
      Resource: '*',
    },
  ],
};

describe('AWS::KMS::Key', () => {
  it('creates the key with its policy, description, rotation, state, tags and ownership marker', async () => {
    const context = createContext('Key');
    const out = await keys.create(
      'Key',
      KEY,
      {
        Description: 'app key',
        KeyPolicy: POLICY,
        EnableKeyRotation: true,
        RotationPeriodInDays: 180,
        Enabled: false,
        Tags: [{ Key: 'team', Value: 'a' }],
      },
      context,
    );
    const key = await describeKey(out.physicalId);
    expect(out.attributes).toEqual({ Arn: key.Arn, KeyId: out.physicalId });
    expect(key.Description).toBe('app key');
    expect(key.KeyState).toBe('Disabled');
    expect((await policyOf(out.physicalId)).Statement[0]!.Sid).toBe('Admin');
    expect(await tagsOf(out.physicalId)).toEqual({ team: 'a', ...context.ownership!.tags });
    // Rotation was enabled before the key was disabled (KMS refuses it on a disabled key).
    expect(await rotationOf(out.physicalId)).toMatchObject({
      KeyRotationEnabled: true,
      RotationPeriodInDays: 180,
    });
    expect((await calls())['kms:EnableKeyRotation']).toBe(1);
  });

  it('an asymmetric key with rotation is refused before anything is made', async () => {
    await expect(
      keys.create(
        'Key',
        KEY,
        { KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY', EnableKeyRotation: true },
        createContext('Key'),
      ),
    ).rejects.toThrow(/EnableKeyRotation property to true on asymmetric or external keys/);
    expect(await liveKeys()).toHaveLength(0);
  });

  it('updates in place, resets removed properties to AWS defaults and reconciles tags', async () => {
    const before = {
      Description: 'first',
      KeyPolicy: POLICY,
      EnableKeyRotation: true,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    };
    const context = createContext('Key');
    const { physicalId } = await keys.create('Key', KEY, before, context);
    const previous = { ...before, Tags: [...before.Tags] };
    const after = { Enabled: false, Tags: [{ Key: 'keep', Value: 'changed' }] };
    const updated = await keys.update('Key', physicalId, KEY, after, previous, { expectedRegion: REGION });
    expect(updated).toMatchObject({ physicalId, wasReplaced: false, attributes: { KeyId: physicalId } });
    const key = await describeKey(physicalId);
    expect(key.KeyState).toBe('Disabled');
    expect(key.Description).toBe('');
    expect((await policyOf(physicalId)).Id).toBe('key-default-1');
    expect(await tagsOf(physicalId)).toEqual({ keep: 'changed', ...context.ownership!.tags });

    // Re-enable with rotation at another period (enable first, as CloudFormation does).
    await keys.update('Key', physicalId, KEY, { EnableKeyRotation: true, RotationPeriodInDays: 90 }, after, {
      expectedRegion: REGION,
    });
    expect((await describeKey(physicalId)).KeyState).toBe('Enabled');
    expect(await rotationOf(physicalId)).toMatchObject({
      KeyRotationEnabled: true,
      RotationPeriodInDays: 90,
    });
  });

  it('an unchanged update makes no call but the attribute read', async () => {
    const props = { Description: 'd', KeyPolicy: POLICY };
    const { physicalId } = await keys.create('Key', KEY, props, createContext('Key'));
    await emulator.control.clearRequests();
    await keys.update('Key', physicalId, KEY, props, props, { expectedRegion: REGION });
    expect(await calls()).toEqual({ 'kms:DescribeKey': 1 });
  });

  it('refuses to change what a key is, and rotation while it stays disabled', async () => {
    const { physicalId } = await keys.create('Key', KEY, { Enabled: false }, createContext('Key'));
    await expect(
      keys.update('Key', physicalId, KEY, { Enabled: false, KeyUsage: 'SIGN_VERIFY' }, { Enabled: false }),
    ).rejects.toThrow(/cannot change the values of the KeySpec, KeyUsage, Origin, or MultiRegion/);
    await expect(
      keys.update('Key', physicalId, KEY, { Enabled: false, EnableKeyRotation: true }, { Enabled: false }),
    ).rejects.toThrow(/EnableKeyRotation property while the Enabled property is false/);
  });

  it('deletes by scheduling the deletion with PendingWindowInDays; a repeat and a missing key are deleted', async () => {
    const { physicalId } = await keys.create('Key', KEY, { PendingWindowInDays: 7 }, createContext('Key'));
    await keys.delete('Key', physicalId, KEY, { PendingWindowInDays: 7 }, { expectedRegion: REGION });
    const key = await describeKey(physicalId);
    expect(key).toMatchObject({ KeyState: 'PendingDeletion', PendingDeletionWindowInDays: 7 });
    await keys.delete('Key', physicalId, KEY, {}, { expectedRegion: REGION });
    await keys.delete('Key', '00000000-0000-0000-0000-000000000000', KEY, {}, { expectedRegion: REGION });
    await expect(
      keys.delete('Key', '00000000-0000-0000-0000-000000000000', KEY, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toThrow(/eu-west-1/);
    expect(await keys.getAttribute(physicalId, KEY, 'Arn')).toBeUndefined();
  });

  describe('idempotent create (CreateKey has no client token)', () => {
    it('a CreateKey whose reply is lost makes exactly one key, found by its token tag', async () => {
      await emulator.control.addFault({ service: 'kms', operation: 'CreateKey', mode: 'drop', count: 1 });
      const context = createContext('Key');
      const out = await keys.create('Key', KEY, { Description: 'lost reply' }, context);
      const live = await liveKeys();
      expect(live.map((k) => k.KeyId)).toEqual([out.physicalId]);
      expect(live[0]!.Description).toBe('lost reply');
      const byOp = await calls();
      expect(byOp['kms:CreateKey']).toBe(1);
      expect(byOp['kms:ListKeys']).toBeGreaterThanOrEqual(1);
    });

    it('a lost reply with no key made is retryable and in doubt, and the retry makes the key', async () => {
      // The reply lost before KMS ran it: an error answer stands in (nothing made), then a drop.
      await emulator.control.addFault({ service: 'kms', operation: 'CreateKey', error: 500, count: 1 });
      const context = createContext('Key', { token: 'no-key-yet' });
      const failure = await keys.create('Key', KEY, {}, context).catch((e: unknown) => e);
      expect(failure).toMatchObject({ retryable: true, inDoubt: true });
      expect(await liveKeys()).toHaveLength(0);
      const retry = createContext('Key', { token: 'no-key-yet', attempt: 1 });
      const out = await keys.create('Key', KEY, {}, retry);
      expect((await liveKeys()).map((k) => k.KeyId)).toEqual([out.physicalId]);
    });

    it('settling an interrupted create adopts the key its first send made, and finishes its steps', async () => {
      const first = createContext('Key', { token: 'crashed' });
      // The first process made the key and died before enabling rotation.
      const made = (
        await kms.send(
          new CreateKeyCommand({
            Tags: Object.entries(first.ownership!.tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
          }),
        )
      ).KeyMetadata!;
      const settled = createContext('Key', { token: 'crashed', inDoubt: true });
      const out = await keys.create('Key', KEY, { EnableKeyRotation: true }, settled);
      expect(out.physicalId).toBe(made.KeyId);
      expect(await liveKeys()).toHaveLength(1);
      expect(await rotationOf(made.KeyId!)).toMatchObject({
        KeyRotationEnabled: true,
        RotationPeriodInDays: 365,
      });
    });

    it('never adopts a key of another create (same resource, other token), a foreign key or one pending deletion', async () => {
      const earlier = createContext('Key', { token: 'earlier' });
      const tagged = (tags: Readonly<Record<string, string>>) =>
        kms.send(
          new CreateKeyCommand({
            Tags: Object.entries(tags).map(([TagKey, TagValue]) => ({ TagKey, TagValue })),
          }),
        );
      await tagged(earlier.ownership!.tags);
      await tagged({ team: 'other' });
      const now = createContext('Key', { token: 'now', inDoubt: true });
      const deleting = (await tagged(now.ownership!.tags)).KeyMetadata!.KeyId!;
      await kms.send(new ScheduleKeyDeletionCommand({ KeyId: deleting, PendingWindowInDays: 7 }));
      const out = await keys.create('Key', KEY, {}, now);
      expect([deleting]).not.toContain(out.physicalId);
      expect(await liveKeys()).toHaveLength(3);
      expect((await tagsOf(out.physicalId))['cdkd:token']).toBe('now');
    });
  });
});

describe('AWS::KMS::Alias', () => {
  const newKey = async () => (await keys.create('Key', KEY, {}, createContext('Key'))).physicalId;
  const target = async (name: string) =>
    ((await kms.send(new ListAliasesCommand({}))).Aliases ?? []).find((a) => a.AliasName === name)
      ?.TargetKeyId;

  it('creates, re-points and deletes the alias; a missing alias counts as deleted after the region check', async () => {
    const [a, b] = [await newKey(), await newKey()];
    const out = await aliases.create(
      'Alias',
      ALIAS,
      { AliasName: 'alias/app', TargetKeyId: a },
      createContext('Alias'),
    );
    expect(out.physicalId).toBe('alias/app');
    expect(await target('alias/app')).toBe(a);
    await aliases.update(
      'Alias',
      'alias/app',
      ALIAS,
      { AliasName: 'alias/app', TargetKeyId: b },
      { AliasName: 'alias/app', TargetKeyId: a },
      { expectedRegion: REGION },
    );
    expect(await target('alias/app')).toBe(b);
    await aliases.delete('Alias', 'alias/app', ALIAS, {}, { expectedRegion: REGION });
    expect(await target('alias/app')).toBeUndefined();
    await aliases.delete('Alias', 'alias/app', ALIAS, {}, { expectedRegion: REGION });
    await expect(
      aliases.delete('Alias', 'alias/app', ALIAS, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toThrow(/eu-west-1/);
  });

  it('an existing alias is refused, unless an earlier send of this create made it (same target)', async () => {
    const [a, b] = [await newKey(), await newKey()];
    await aliases.create(
      'Other',
      ALIAS,
      { AliasName: 'alias/taken', TargetKeyId: a },
      createContext('Other'),
    );
    const first: CreateContext = createContext('Alias');
    await expect(
      aliases.create('Alias', ALIAS, { AliasName: 'alias/taken', TargetKeyId: a }, first),
    ).rejects.toMatchObject({ code: 'RESOURCE_ALREADY_EXISTS' });
    const settling = createContext('Alias', { inDoubt: true });
    await expect(
      aliases.create('Alias', ALIAS, { AliasName: 'alias/taken', TargetKeyId: b }, settling),
    ).rejects.toMatchObject({ code: 'RESOURCE_ALREADY_EXISTS' });
    await expect(
      aliases.create('Alias', ALIAS, { AliasName: 'alias/taken', TargetKeyId: a }, settling),
    ).resolves.toEqual({ physicalId: 'alias/taken' });
  });
});

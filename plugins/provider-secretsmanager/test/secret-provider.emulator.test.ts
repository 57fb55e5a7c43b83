import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { SecretProvider } from '../src/secret-provider';

// The provider against the emulator's Secrets Manager, through real SDK
// clients built by cdkd's client factory exactly as a deploy builds them.
const TYPE = 'AWS::SecretsManager::Secret';
const REGION = 'us-east-1';
const STACK = 'SecretsPackTest';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let sm: SecretsManagerClient;
let west: SecretsManagerClient;
let kms: KMSClient;
let provider: SecretProvider;
let counter = 0;

const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  ctx = createProviderContext({ clients: factory, logger: createLogger(new RecordingIoHost()) });
  sm = factory.get(SecretsManagerClient);
  west = factory.get(SecretsManagerClient, { region: 'us-west-2' });
  kms = factory.get(KMSClient);
  provider = new SecretProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

beforeEach(() => emulator.control.reset());

const createContext = (logicalId: string, token = `token-${++counter}`) =>
  buildCreateContext({ stackName: STACK, region: REGION, logicalId, idempotencyToken: token });

const value = async (id: string) => (await sm.send(new GetSecretValueCommand({ SecretId: id }))).SecretString;
const describeSecret = (id: string) => sm.send(new DescribeSecretCommand({ SecretId: id }));
const secretCount = async () => (await sm.send(new ListSecretsCommand({}))).SecretList!.length;
const versionCount = async (id: string) =>
  Object.keys((await describeSecret(id)).VersionIdsToStages ?? {}).length;

describe('create', () => {
  it('creates the named secret with its value, key, tags and ownership marker; Id is the ARN', async () => {
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const context = createContext('Db');
    const out = await provider.create(
      'Db',
      TYPE,
      {
        Name: 'app/db',
        SecretString: 's3cret',
        Description: 'db',
        KmsKeyId: key.Arn,
        Tags: [{ Key: 'team', Value: 'a' }],
      },
      context,
    );
    expect(out.physicalId).toMatch(
      /^arn:aws:secretsmanager:us-east-1:123456789012:secret:app\/db-[A-Za-z]{6}$/,
    );
    expect(out.attributes).toEqual({ Id: out.physicalId });
    expect(await value(out.physicalId)).toBe('s3cret');
    const described = await describeSecret(out.physicalId);
    expect(described).toMatchObject({ Description: 'db', KmsKeyId: key.Arn });
    expect(Object.fromEntries(described.Tags!.map((t) => [t.Key, t.Value]))).toEqual({
      team: 'a',
      ...context.ownership!.tags,
    });
  });

  it('generates the value from GenerateSecretString, in its template', async () => {
    const out = await provider.create(
      'Gen',
      TYPE,
      {
        GenerateSecretString: {
          SecretStringTemplate: '{"username":"admin"}',
          GenerateStringKey: 'password',
          PasswordLength: 24,
          ExcludePunctuation: true,
        },
      },
      createContext('Gen'),
    );
    const secret = JSON.parse((await value(out.physicalId))!) as Record<string, string>;
    expect(secret.username).toBe('admin');
    expect(secret.password).toMatch(/^[A-Za-z0-9]{24}$/);
    expect((await describeSecret(out.physicalId)).Name).toMatch(/^SecretsPackTest-Gen-[A-Z2-7]{13}$/);
  });

  it('a repeated create returns the same secret, even when it generated another password', async () => {
    const context = createContext('Again', 'fixed-token');
    const props = { GenerateSecretString: { PasswordLength: 16 } };
    const first = await provider.create('Again', TYPE, props, context);
    const again = await provider.create('Again', TYPE, props, context);
    expect(again.physicalId).toBe(first.physicalId);
    const literal = createContext('Literal', 'literal-token');
    const one = await provider.create('Literal', TYPE, { SecretString: 'x' }, literal);
    expect((await provider.create('Literal', TYPE, { SecretString: 'x' }, literal)).physicalId).toBe(
      one.physicalId,
    );
    expect(await secretCount()).toBe(2);
    expect(await versionCount(one.physicalId)).toBe(1);
  });

  it('adopts its own secret when the CreateSecret reply is lost', async () => {
    await emulator.control.addFault({
      service: 'secretsmanager',
      operation: 'CreateSecret',
      mode: 'drop',
      count: 1,
    });
    const out = await provider.create(
      'Lost',
      TYPE,
      { Name: 'lost', SecretString: 'v' },
      createContext('Lost'),
    );
    expect(await value(out.physicalId)).toBe('v');
    expect(await secretCount()).toBe(1);
  });

  it('never adopts a secret it did not make, and explains a name held by a scheduled deletion', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'theirs', SecretString: 'theirs' }));
    await expect(
      provider.create('Theirs', TYPE, { Name: 'theirs', SecretString: 'ours' }, createContext('Theirs')),
    ).rejects.toMatchObject({ code: 'RESOURCE_ALREADY_EXISTS' });
    expect(await value('theirs')).toBe('theirs');

    await sm.send(new CreateSecretCommand({ Name: 'pending', SecretString: 'x' }));
    await sm.send(new DeleteSecretCommand({ SecretId: 'pending', RecoveryWindowInDays: 7 }));
    await expect(
      provider.create('Pending', TYPE, { Name: 'pending', SecretString: 'y' }, createContext('Pending')),
    ).rejects.toMatchObject({
      message: expect.stringMatching(
        /^Secrets Manager InvalidRequestException while creating secret pending/,
      ),
      remedy: expect.stringMatching(/RestoreSecret/),
    });
  });

  it('surfaces an unusable KMS key with its own error code and a remedy', async () => {
    await expect(
      provider.create(
        'K',
        TYPE,
        { Name: 'k', SecretString: 'x', KmsKeyId: 'alias/none' },
        createContext('K'),
      ),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/EncryptionFailure/),
      remedy: expect.stringMatching(/KMS key/),
    });
  });
});

describe('update', () => {
  it('writes a new value, resets removed properties, reconciles tags and replicas', async () => {
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const context = createContext('U');
    const before = {
      Name: 'u',
      SecretString: 'one',
      Description: 'first',
      KmsKeyId: key.Arn,
      ReplicaRegions: [{ Region: 'us-west-2' }],
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    };
    const { physicalId } = await provider.create('U', TYPE, before, context);
    expect((await west.send(new DescribeSecretCommand({ SecretId: 'u' }))).PrimaryRegion).toBe(REGION);

    const after = {
      Name: 'u',
      SecretString: 'two',
      ReplicaRegions: [{ Region: 'eu-west-1' }],
      Tags: [{ Key: 'keep', Value: '9' }],
    };
    const out = await provider.update('U', physicalId, TYPE, after, before, {
      expectedRegion: REGION,
      idempotencyToken: 'update-1',
    });
    expect(out).toEqual({ physicalId, wasReplaced: false, attributes: { Id: physicalId } });
    expect(await value(physicalId)).toBe('two');
    const described = await describeSecret(physicalId);
    expect(described.Description).toBeUndefined();
    expect(described.KmsKeyId).toBeUndefined();
    expect(described.ReplicationStatus!.map((r) => r.Region)).toEqual(['eu-west-1']);
    await expect(west.send(new DescribeSecretCommand({ SecretId: 'u' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    expect(Object.fromEntries(described.Tags!.map((t) => [t.Key, t.Value]))).toEqual({
      keep: '9',
      ...context.ownership!.tags,
    });

    // The same update again (its reply lost): no second version.
    const versions = await versionCount(physicalId);
    await provider.update('U', physicalId, TYPE, after, before, {
      expectedRegion: REGION,
      idempotencyToken: 'update-1',
    });
    expect(await versionCount(physicalId)).toBe(versions);
    // A tag-only change makes no version at all.
    await provider.update('U', physicalId, TYPE, { ...after, Tags: [] }, after, { expectedRegion: REGION });
    expect(await versionCount(physicalId)).toBe(versions);
  });

  it('refuses to update in another region than the record', async () => {
    const { physicalId } = await provider.create(
      'R',
      TYPE,
      { Name: 'r', SecretString: 'v' },
      createContext('R'),
    );
    await expect(
      provider.update(
        'R',
        physicalId,
        TYPE,
        { Name: 'r', SecretString: 'w' },
        { Name: 'r', SecretString: 'v' },
        {
          expectedRegion: 'eu-west-1',
        },
      ),
    ).rejects.toThrow(/eu-west-1/);
    expect(await value(physicalId)).toBe('v');
  });
});

describe('delete, attributes, drift and import', () => {
  it('removes the replicas and deletes without a recovery window; a missing secret only in the recorded region', async () => {
    const { physicalId } = await provider.create(
      'D',
      TYPE,
      { Name: 'd', SecretString: 'v', ReplicaRegions: [{ Region: 'us-west-2' }] },
      createContext('D'),
    );
    await provider.delete('D', physicalId, TYPE, undefined, { expectedRegion: REGION });
    await expect(describeSecret(physicalId)).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    await expect(west.send(new DescribeSecretCommand({ SecretId: 'd' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    // The name is free again at once.
    await sm.send(new CreateSecretCommand({ Name: 'd', SecretString: 'new' }));
    await provider.delete('D', physicalId, TYPE, undefined, { expectedRegion: REGION });
    await expect(
      provider.delete('D', physicalId, TYPE, undefined, { expectedRegion: 'eu-west-1' }),
    ).rejects.toThrow(/eu-west-1/);
  });

  it('reads the Id attribute, the metadata for drift (never the value), and imports by name', async () => {
    const props = { Name: 'live', SecretString: 'v', Description: 'd', Tags: [{ Key: 'a', Value: '1' }] };
    const { physicalId } = await provider.create('L', TYPE, props, createContext('L'));
    expect(await provider.getAttribute(physicalId, TYPE, 'Id')).toBe(physicalId);
    expect(await provider.getAttribute('missing', TYPE, 'Id')).toBeUndefined();
    expect(await provider.readCurrentState(physicalId)).toEqual({
      Name: 'live',
      Description: 'd',
      KmsKeyId: 'alias/aws/secretsmanager',
      Type: undefined,
      ReplicaRegions: [],
      Tags: [{ Key: 'a', Value: '1' }],
    });
    expect(await provider.readCurrentState('missing')).toBeUndefined();
    expect(
      await provider.import({
        logicalId: 'L',
        resourceType: TYPE,
        stackName: STACK,
        region: REGION,
        properties: props,
      }),
    ).toEqual({ physicalId, attributes: { Id: physicalId } });
  });
});

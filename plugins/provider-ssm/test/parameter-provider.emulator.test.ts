import {
  DescribeParametersCommand,
  GetParameterCommand,
  GetParameterHistoryCommand,
  ListTagsForResourceCommand,
  PutParameterCommand,
  SSMClient,
} from '@aws-sdk/client-ssm';
import type { ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { SsmParameterProvider } from '../src/parameter-provider';

// The provider against the emulator's Parameter Store, through real SDK
// clients built by cdkd's client factory exactly as a deploy builds them.
const TYPE = 'AWS::SSM::Parameter';
const REGION = 'us-east-1';
const STACK = 'SsmPackTest';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let host: RecordingIoHost;
let ssm: SSMClient;
let provider: SsmParameterProvider;
let counter = 0;

const savedEnv = { ...process.env };

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  host = new RecordingIoHost();
  ctx = createProviderContext({ clients: factory, logger: createLogger(host) });
  ssm = factory.get(SSMClient);
  provider = new SsmParameterProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

beforeEach(() => emulator.control.reset());

/** A create context (ownership, generated names) with a token of its own, as the engine builds it. */
const createContext = (logicalId: string, token = `token-${++counter}`) =>
  buildCreateContext({ stackName: STACK, region: REGION, logicalId, idempotencyToken: token });

const describeOne = async (name: string) =>
  (
    await ssm.send(
      new DescribeParametersCommand({
        ParameterFilters: [{ Key: 'Name', Option: 'Equals', Values: [name] }],
      }),
    )
  ).Parameters![0]!;

const tagsOf = async (name: string) =>
  Object.fromEntries(
    (
      (await ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: name })))
        .TagList ?? []
    ).map((t) => [t.Key, t.Value]),
  );

const versions = async (name: string) =>
  (await ssm.send(new GetParameterHistoryCommand({ Name: name }))).Parameters!.length;

describe('create', () => {
  it('creates the named parameter with its tags and the ownership marker, and returns every attribute', async () => {
    const context = createContext('Param');
    const out = await provider.create(
      'Param',
      TYPE,
      { Name: '/app/url', Type: 'String', Value: 'https://x', Description: 'the url', Tags: { team: 'a' } },
      context,
    );
    expect(out).toEqual({
      physicalId: '/app/url',
      attributes: {
        Arn: 'arn:aws:ssm:us-east-1:123456789012:parameter/app/url',
        Type: 'String',
        Value: 'https://x',
      },
    });
    expect(await describeOne('/app/url')).toMatchObject({
      Description: 'the url',
      Type: 'String',
      Tier: 'Standard',
    });
    expect(await tagsOf('/app/url')).toEqual({ team: 'a', ...context.ownership!.tags });
  });

  it('names an unnamed parameter from the token: the same intent gets the same name', async () => {
    const context = createContext('Unnamed', 'fixed-token');
    const first = await provider.create('Unnamed', TYPE, { Type: 'StringList', Value: 'a,b' }, context);
    expect(first.physicalId).toMatch(/^CFN-SsmPackTest-Unnamed-[A-Z2-7]{13}$/);
    // The same create again (its reply was lost): the same parameter, adopted, not a second one.
    const again = await provider.create('Unnamed', TYPE, { Type: 'StringList', Value: 'a,b' }, context);
    expect(again.physicalId).toBe(first.physicalId);
    expect(await versions(first.physicalId)).toBe(1);
  });

  it('adopts its own parameter when the PutParameter reply is lost', async () => {
    await emulator.control.addFault({ service: 'ssm', operation: 'PutParameter', mode: 'drop', count: 1 });
    const out = await provider.create(
      'Lost',
      TYPE,
      { Name: 'lost', Type: 'String', Value: 'v' },
      createContext('Lost'),
    );
    expect(out.physicalId).toBe('lost');
    expect(await versions('lost')).toBe(1);
  });

  it('never adopts a parameter it did not make', async () => {
    await ssm.send(new PutParameterCommand({ Name: 'taken', Type: 'String', Value: 'theirs' }));
    await expect(
      provider.create(
        'Taken',
        TYPE,
        { Name: 'taken', Type: 'String', Value: 'ours' },
        createContext('Taken'),
      ),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringMatching(/already exists/),
    });
    // Made for this logical id by another create (a replaced original): not adopted either.
    await provider.create('Mine', TYPE, { Name: 'mine', Type: 'String', Value: 'v' }, createContext('Mine'));
    await expect(
      provider.create('Mine', TYPE, { Name: 'mine', Type: 'String', Value: 'v' }, createContext('Mine')),
    ).rejects.toMatchObject({
      code: 'RESOURCE_ALREADY_EXISTS',
      message: expect.stringMatching(/earlier create/),
    });
    expect((await ssm.send(new GetParameterCommand({ Name: 'taken' }))).Parameter!.Value).toBe('theirs');
  });

  it('surfaces Parameter Store validation with its own error code', async () => {
    await expect(
      provider.create(
        'Bad',
        TYPE,
        { Name: 'bad', Type: 'String', Value: 'abc', AllowedPattern: '^[0-9]+$' },
        createContext('Bad'),
      ),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/^SSM ParameterPatternMismatchException while creating/),
    });
    await expect(
      provider.create(
        'Secure',
        TYPE,
        { Name: 's', Type: 'SecureString', Value: 'x' },
        createContext('Secure'),
      ),
    ).rejects.toMatchObject({ message: expect.stringMatching(/cannot be a SecureString/) });
  });

  it('retries the documented TooManyUpdates refusal', async () => {
    await emulator.control.addFault({
      service: 'ssm',
      operation: 'PutParameter',
      error: 'TooManyUpdates',
      status: 400,
      count: 2,
    });
    const out = await provider.create(
      'Busy',
      TYPE,
      { Name: 'busy', Type: 'String', Value: 'v' },
      createContext('Busy'),
    );
    expect(out.physicalId).toBe('busy');
  });
});

describe('update', () => {
  const base = {
    Name: 'cfg',
    Type: 'String',
    Value: 'one',
    Description: 'config',
    AllowedPattern: '^[a-z]+$',
    Tier: 'Advanced',
    Policies: JSON.stringify([
      { Type: 'Expiration', Version: '1.0', Attributes: { Timestamp: '2030-01-01T00:00:00.000Z' } },
    ]),
    Tags: { keep: '1', drop: '2' },
  };

  it('changes the value in place and resets every removed property to its default', async () => {
    const context = createContext('Cfg');
    await provider.create('Cfg', TYPE, base, context);
    const next = {
      Name: 'cfg',
      Type: 'StringList',
      Value: 'two,three',
      Tags: { keep: 'changed', added: 'x' },
    };
    const out = await provider.update('Cfg', 'cfg', TYPE, next, base, { expectedRegion: REGION });
    expect(out).toMatchObject({
      physicalId: 'cfg',
      wasReplaced: false,
      attributes: { Type: 'StringList', Value: 'two,three' },
    });
    const meta = await describeOne('cfg');
    expect(meta.Description).toBeUndefined();
    expect(meta.AllowedPattern).toBeUndefined();
    expect(meta.Policies ?? []).toEqual([]);
    // Parameter Store cannot move an Advanced parameter back to Standard: kept, with a warning.
    expect(meta.Tier).toBe('Advanced');
    expect(host.messages.some((m) => /stays Advanced/.test(m.message))).toBe(true);
    expect(await tagsOf('cfg')).toEqual({ keep: 'changed', added: 'x', ...context.ownership!.tags });
  });

  it('a tag-only change makes no new version; an Intelligent-Tiering tier removed goes back to Standard', async () => {
    const props = {
      Name: 'tiered',
      Type: 'String',
      Value: 'v',
      Tier: 'Intelligent-Tiering',
      DataType: 'text',
    };
    await provider.create('T', TYPE, props, createContext('T'));
    await provider.update('T', 'tiered', TYPE, { ...props, Tags: { a: 'b' } }, props);
    expect(await versions('tiered')).toBe(1);
    const { Tier: _tier, DataType: _dataType, ...withoutTier } = props;
    await provider.update('T', 'tiered', TYPE, withoutTier, props);
    expect(await versions('tiered')).toBe(2);
    expect(await describeOne('tiered')).toMatchObject({ Tier: 'Standard', DataType: 'text' });
  });

  it('refuses to update in another region than the record', async () => {
    await provider.create('R', TYPE, { Name: 'r', Type: 'String', Value: 'v' }, createContext('R'));
    await expect(
      provider.update(
        'R',
        'r',
        TYPE,
        { Name: 'r', Type: 'String', Value: 'w' },
        { Name: 'r', Type: 'String', Value: 'v' },
        {
          expectedRegion: 'eu-west-1',
        },
      ),
    ).rejects.toThrow(/eu-west-1/);
    expect((await ssm.send(new GetParameterCommand({ Name: 'r' }))).Parameter!.Value).toBe('v');
  });
});

describe('delete, attributes, drift and import', () => {
  it('deletes; a missing parameter is deleted only in the recorded region', async () => {
    await provider.create('D', TYPE, { Name: 'd', Type: 'String', Value: 'v' }, createContext('D'));
    await provider.delete('D', 'd', TYPE, undefined, { expectedRegion: REGION });
    await expect(ssm.send(new GetParameterCommand({ Name: 'd' }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
    });
    await provider.delete('D', 'd', TYPE, undefined, { expectedRegion: REGION });
    await expect(provider.delete('D', 'd', TYPE, undefined, { expectedRegion: 'eu-west-1' })).rejects.toThrow(
      /eu-west-1/,
    );
  });

  it('reads attributes live, the current state for drift, and imports by name', async () => {
    const props = { Name: 'live', Type: 'String', Value: 'v', Description: 'd', Tags: { a: '1' } };
    await provider.create('L', TYPE, props, createContext('L'));
    expect(await provider.getAttribute('live', TYPE, 'Value')).toBe('v');
    expect(await provider.getAttribute('absent', TYPE, 'Value')).toBeUndefined();
    expect(await provider.readCurrentState('live')).toEqual({
      Name: 'live',
      Type: 'String',
      Value: 'v',
      DataType: 'text',
      Description: 'd',
      AllowedPattern: '',
      Tier: 'Standard',
      Policies: undefined,
      Tags: { a: '1' },
    });
    expect(await provider.readCurrentState('absent')).toBeUndefined();
    expect(
      await provider.import({
        logicalId: 'L',
        resourceType: TYPE,
        stackName: STACK,
        region: REGION,
        properties: props,
      }),
    ).toMatchObject({ physicalId: 'live', attributes: { Value: 'v' } });
    expect(
      await provider.import({
        logicalId: 'X',
        resourceType: TYPE,
        stackName: STACK,
        region: REGION,
        properties: { Name: 'nope' },
      }),
    ).toBeNull();
  });
});

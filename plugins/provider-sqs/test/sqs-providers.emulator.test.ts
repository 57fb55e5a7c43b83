import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ListQueueTagsCommand,
  SQSClient,
  SetQueueAttributesCommand,
} from '@aws-sdk/client-sqs';
import type { ProviderContext } from '@cdkd/plugin-api';
import { startEmulator } from '../../../test/emulator/src';
import type { RunningEmulator } from '../../../test/emulator/src';
import { AwsClientFactory } from '../../../src/config/aws-clients';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import { createProviderContext } from '../../../src/provisioning/provider-context';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { SqsQueuePolicyProvider } from '../src/queue-policy-provider';
import { SqsQueueProvider } from '../src/queue-provider';

// The providers against the emulator's SQS, through real SDK clients built by
// cdkd's client factory exactly as a deploy builds them.
const QUEUE = 'AWS::SQS::Queue';
const POLICY = 'AWS::SQS::QueuePolicy';
const REGION = 'us-east-1';

let emulator: RunningEmulator;
let ctx: ProviderContext;
let host: RecordingIoHost;
let sqs: SQSClient;
let queues: SqsQueueProvider;
let policies: SqsQueuePolicyProvider;
let counter = 0;

const savedEnv = { ...process.env };
// A project's testTimeout is not applied when jest runs from the repository root: minutes on a loaded machine.
jest.setTimeout(60_000);

beforeAll(async () => {
  emulator = await startEmulator();
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  delete process.env.AWS_PROFILE;
  const factory = await AwsClientFactory.create({ region: REGION, endpointUrl: emulator.url });
  host = new RecordingIoHost();
  ctx = createProviderContext({ clients: factory, logger: createLogger(host) });
  sqs = factory.get(SQSClient);
  queues = new SqsQueueProvider(ctx);
  policies = new SqsQueuePolicyProvider(ctx);
});

afterAll(async () => {
  await emulator?.stop();
  process.env = savedEnv;
});

/** A create context with a token of its own. */
const createContext = () => ({
  stackName: 'SqsPackTest',
  region: REGION,
  idempotencyToken: `token-${++counter}`,
});

async function attributesOf(url: string): Promise<Record<string, string>> {
  return (
    (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['All'] }))).Attributes ??
    {}
  );
}

async function exists(url: string): Promise<boolean> {
  try {
    await attributesOf(url);
    return true;
  } catch (err) {
    if ((err as Error).name === 'QueueDoesNotExist') return false;
    throw err;
  }
}

describe('AWS::SQS::Queue', () => {
  it('creates a queue with a generated name, its attributes and tags, and reports Arn, QueueName, QueueUrl', async () => {
    const result = await queues.create(
      'OrdersQueue',
      QUEUE,
      { VisibilityTimeout: 45, DelaySeconds: 3, Tags: [{ Key: 'team', Value: 'orders' }] },
      createContext(),
    );
    const url = result.physicalId;
    expect(url).toMatch(/\/SqsPackTest-OrdersQueue-[0-9A-F]{12}$/);
    const attrs = await attributesOf(url);
    expect(attrs).toMatchObject({ VisibilityTimeout: '45', DelaySeconds: '3' });
    expect(result.attributes).toEqual({
      Arn: attrs.QueueArn,
      QueueName: url.split('/').pop(),
      QueueUrl: url,
    });
    for (const name of ['Arn', 'QueueName', 'QueueUrl']) {
      expect(await queues.getAttribute(url, QUEUE, name)).toBe(result.attributes?.[name]);
    }
    expect(await queues.getAttribute(url, QUEUE, 'Nope')).toBeUndefined();
    expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl: url }))).Tags).toEqual({ team: 'orders' });
  });

  it('returns the same queue when a create is retried with the same token', async () => {
    const context = createContext();
    const first = await queues.create('Retried', QUEUE, { VisibilityTimeout: 20 }, context);
    const second = await queues.create('Retried', QUEUE, { VisibilityTimeout: 20 }, context);
    expect(second.physicalId).toBe(first.physicalId);
  });

  describe('idempotency across processes (the plugin API contract)', () => {
    /** A create context as cdkd builds it: generated names and ownership tags derived from the token. */
    const fullContext = (stackName = 'SqsPackTest') =>
      buildCreateContext({
        stackName,
        region: REGION,
        logicalId: 'Owned',
        idempotencyToken: `intent-${++counter}`,
      });

    it('tags the queue with its ownership and adopts it when the same create runs again (another process)', async () => {
      const context = fullContext();
      const first = await queues.create('Owned', QUEUE, { VisibilityTimeout: 20 }, context);
      const tags = (await sqs.send(new ListQueueTagsCommand({ QueueUrl: first.physicalId }))).Tags ?? {};
      expect(tags).toEqual(expect.objectContaining(context.ownership!.tags));
      // Another process settling the same intent: a provider instance of its own, the same token.
      const again = await new SqsQueueProvider(ctx).create(
        'Owned',
        QUEUE,
        { VisibilityTimeout: 20 },
        context,
      );
      expect(again.physicalId).toBe(first.physicalId);
      expect(first.physicalId.split('/').pop()).toBe(
        context.generatePhysicalName!({ maxLength: 80, extraCharacters: '-_' }),
      );
    });

    it('adopts its own queue when the reply of CreateQueue was lost', async () => {
      await emulator.control.addFault({ service: 'sqs', operation: 'CreateQueue', mode: 'drop', count: 1 });
      const created = await queues.create('Owned', QUEUE, { DelaySeconds: 1 }, fullContext());
      expect(await exists(created.physicalId)).toBe(true);
    });

    it('refuses a queue of the same name that another stack made, even with identical attributes', async () => {
      const name = `shared-${++counter}`;
      const other = await queues.create('Other', QUEUE, { QueueName: name }, fullContext('OtherStack'));
      const err = await queues
        .create('Owned', QUEUE, { QueueName: name }, fullContext())
        .catch((e: unknown) => e as Error & { code?: string });
      expect(err).toBeInstanceOf(Error);
      expect((err as { code?: string }).code).toBe('RESOURCE_ALREADY_EXISTS');
      expect((err as Error).message).toMatch(
        new RegExp(`queue named ${name} already exists \\(not made by this stack\\)`),
      );
      expect(await exists(other.physicalId)).toBe(true);
    });

    it('refuses a same-named queue with other attributes, or one made without ownership tags', async () => {
      const name = `untagged-${++counter}`;
      await queues.create('Plain', QUEUE, { QueueName: name, VisibilityTimeout: 10 }, createContext());
      for (const props of [
        { QueueName: name, VisibilityTimeout: 99 },
        { QueueName: name, VisibilityTimeout: 10 },
      ]) {
        const err = await queues.create('Owned', QUEUE, props, fullContext()).catch((e: unknown) => e);
        expect((err as { code?: string }).code).toBe('RESOURCE_ALREADY_EXISTS');
      }
    });
  });

  it('creates a named FIFO queue with its FIFO attributes', async () => {
    const name = `sqs-pack-fifo-${Date.now()}.fifo`;
    const { physicalId } = await queues.create(
      'Fifo',
      QUEUE,
      { QueueName: name, FifoQueue: true, ContentBasedDeduplication: true },
      createContext(),
    );
    expect(physicalId.endsWith(`/${name}`)).toBe(true);
    expect(await attributesOf(physicalId)).toMatchObject({
      FifoQueue: 'true',
      ContentBasedDeduplication: 'true',
    });
    const generated = await queues.create('FifoGenerated', QUEUE, { FifoQueue: 'true' }, createContext());
    expect(generated.physicalId).toMatch(/-[0-9A-F]{12}\.fifo$/);
  });

  it('updates in place: changed attributes set, removed ones reset to their defaults, tags diffed', async () => {
    const previous = {
      VisibilityTimeout: 60,
      DelaySeconds: 5,
      MessageRetentionPeriod: 600,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
        { Key: 'change', Value: 'a' },
      ],
    };
    const { physicalId } = await queues.create('Updated', QUEUE, previous, createContext());
    const desired = {
      VisibilityTimeout: 90,
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'change', Value: 'b' },
        { Key: 'new', Value: '3' },
      ],
    };
    const result = await queues.update('Updated', physicalId, QUEUE, desired, previous, {
      expectedRegion: REGION,
    });
    expect(result).toMatchObject({ physicalId, wasReplaced: false });
    expect(await attributesOf(physicalId)).toMatchObject({
      VisibilityTimeout: '90',
      DelaySeconds: '0',
      MessageRetentionPeriod: '345600',
    });
    expect((await sqs.send(new ListQueueTagsCommand({ QueueUrl: physicalId }))).Tags).toEqual({
      keep: '1',
      change: 'b',
      new: '3',
    });
  });

  it('sets and removes a redrive policy', async () => {
    const dlq = await queues.create('Dlq', QUEUE, {}, createContext());
    const redrive = { deadLetterTargetArn: dlq.attributes?.Arn, maxReceiveCount: 4 };
    const source = await queues.create('Source', QUEUE, { RedrivePolicy: redrive }, createContext());
    expect(JSON.parse((await attributesOf(source.physicalId)).RedrivePolicy)).toEqual(redrive);
    await queues.update('Source', source.physicalId, QUEUE, {}, { RedrivePolicy: redrive });
    expect((await attributesOf(source.physicalId)).RedrivePolicy ?? '').toBe('');
  });

  it('reads the current state back in template shape', async () => {
    const properties = {
      VisibilityTimeout: 31,
      ReceiveMessageWaitTimeSeconds: 2,
      Tags: [
        { Key: 'b', Value: '2' },
        { Key: 'a', Value: '1' },
      ],
    };
    const { physicalId } = await queues.create('Read', QUEUE, properties, createContext());
    const state = await queues.readCurrentState(physicalId);
    expect(state).toMatchObject({
      VisibilityTimeout: 31,
      ReceiveMessageWaitTimeSeconds: 2,
      DelaySeconds: 0,
      QueueName: physicalId.split('/').pop(),
      Tags: [
        { Key: 'a', Value: '1' },
        { Key: 'b', Value: '2' },
      ],
    });
  });

  it('deletes, treats an already deleted queue as gone in its own region, and refuses in another', async () => {
    const { physicalId } = await queues.create('Deleted', QUEUE, {}, createContext());
    await queues.delete('Deleted', physicalId, QUEUE, {}, { expectedRegion: REGION });
    expect(await exists(physicalId)).toBe(false);
    await expect(
      queues.delete('Deleted', physicalId, QUEUE, {}, { expectedRegion: REGION }),
    ).resolves.toBeUndefined();
    await expect(
      queues.delete('Deleted', physicalId, QUEUE, {}, { expectedRegion: 'eu-west-1' }),
    ).rejects.toMatchObject({
      code: 'REGION_MISMATCH',
      message: expect.stringContaining('state records it in eu-west-1'),
    });
    expect(await queues.readCurrentState(physicalId)).toBeUndefined();
  });

  it('imports an existing queue by name and finds nothing for a missing one', async () => {
    const { physicalId } = await queues.create('Imported', QUEUE, {}, createContext());
    const name = physicalId.split('/').pop() as string;
    const imported = await queues.import({
      logicalId: 'Imported',
      resourceType: QUEUE,
      stackName: 's',
      region: REGION,
      properties: { QueueName: name },
    });
    expect(imported?.physicalId).toBe((await sqs.send(new GetQueueUrlCommand({ QueueName: name }))).QueueUrl);
    expect(
      await queues.import({
        logicalId: 'X',
        resourceType: QUEUE,
        stackName: 's',
        region: REGION,
        properties: { QueueName: 'no-such-queue-here' },
      }),
    ).toBeNull();
  });

  it('names the AWS error when SQS refuses an attribute', async () => {
    await expect(
      queues.create('Bad', QUEUE, { VisibilityTimeout: 999999 }, createContext()),
    ).rejects.toMatchObject({
      code: 'PROVISIONING_ERROR',
      message: expect.stringMatching(/^SQS \S+ while creating queue SqsPackTest-Bad-/),
    });
  });
});

describe('AWS::SQS::QueuePolicy', () => {
  const document = (sid: string) => ({
    Version: '2012-10-17',
    Statement: [
      {
        Sid: sid,
        Effect: 'Allow',
        Principal: { AWS: '123456789012' },
        Action: 'sqs:SendMessage',
        Resource: '*',
      },
    ],
  });

  async function policyOf(url: string): Promise<string | undefined> {
    const p = (await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['Policy'] })))
      .Attributes?.Policy;
    return p === '' ? undefined : p;
  }

  async function twoQueues(): Promise<[string, string]> {
    const a = await queues.create('PolicyA', QUEUE, {}, createContext());
    const b = await queues.create('PolicyB', QUEUE, {}, createContext());
    return [a.physicalId, b.physicalId];
  }

  it('writes the policy to every queue; the physical id is the first queue', async () => {
    const [a, b] = await twoQueues();
    const result = await policies.create('Policy', POLICY, {
      PolicyDocument: document('one'),
      Queues: [a, b],
    });
    expect(result).toEqual({ physicalId: a, attributes: { Id: a } });
    for (const url of [a, b]) expect(JSON.parse((await policyOf(url)) ?? '{}').Statement[0].Sid).toBe('one');
    expect(await policies.getAttribute(a, POLICY, 'Id')).toBe(a);
    expect(await policies.readCurrentState(a, 'Policy', POLICY, { Queues: [a, b] })).toMatchObject({
      Queues: [a, b],
    });
  });

  it('on update, writes the new document and clears queues no longer listed', async () => {
    const [a, b] = await twoQueues();
    const previous = { PolicyDocument: document('one'), Queues: [a, b] };
    await policies.create('Policy', POLICY, previous);
    const result = await policies.update(
      'Policy',
      a,
      POLICY,
      { PolicyDocument: document('two'), Queues: [b] },
      previous,
    );
    expect(result).toEqual({ physicalId: b, wasReplaced: false, attributes: { Id: b } });
    expect(await policyOf(a)).toBeUndefined();
    expect(JSON.parse((await policyOf(b)) ?? '{}').Statement[0].Sid).toBe('two');
  });

  it('on delete, clears its own policy but leaves one someone else wrote since', async () => {
    const [a, b] = await twoQueues();
    const properties = { PolicyDocument: document('mine'), Queues: [a, b] };
    await policies.create('Policy', POLICY, properties);
    await sqs.send(
      new SetQueueAttributesCommand({
        QueueUrl: b,
        Attributes: { Policy: JSON.stringify(document('theirs')) },
      }),
    );
    await policies.delete('Policy', a, POLICY, properties, { expectedRegion: REGION });
    expect(await policyOf(a)).toBeUndefined();
    expect(JSON.parse((await policyOf(b)) ?? '{}').Statement[0].Sid).toBe('theirs');
    expect(host.text('warn').some((m) => m.includes(b) && m.includes('no longer the one cdkd wrote'))).toBe(
      true,
    );
  });

  it('skips a delete whose document it does not know, and passes over deleted queues', async () => {
    const [a] = await twoQueues();
    expect(await policies.delete('Policy', a, POLICY, undefined)).toMatchObject({ outcome: 'skipped' });
    await queues.delete('PolicyA', a, QUEUE);
    await expect(
      policies.delete(
        'Policy',
        a,
        POLICY,
        { PolicyDocument: document('x'), Queues: [a] },
        { expectedRegion: REGION },
      ),
    ).resolves.toBeUndefined();
    await expect(
      policies.delete(
        'Policy',
        a,
        POLICY,
        { PolicyDocument: document('x'), Queues: [a] },
        { expectedRegion: 'eu-west-1' },
      ),
    ).rejects.toMatchObject({ code: 'REGION_MISMATCH' });
  });

  it('refuses a policy with no queues', async () => {
    await expect(
      policies.create('Policy', POLICY, { PolicyDocument: document('x'), Queues: [] }),
    ).rejects.toThrow(/Queues must list at least one queue URL/);
  });
});

import {
  ATTRIBUTE_PROPERTIES,
  ATTRIBUTE_RESET_VALUES,
  attributesForUpdate,
  attributesFromProperties,
  propertiesFromAttributes,
  tagChanges,
  tagMap,
} from '../src/queue-attributes';
import {
  generateQueueName,
  queueNameFromUrl,
  accountFromUrl,
  MAX_QUEUE_NAME_LENGTH,
} from '../src/queue-name';

describe('attributesFromProperties', () => {
  it('turns typed properties into SQS attribute strings', () => {
    expect(
      attributesFromProperties({
        VisibilityTimeout: 60,
        DelaySeconds: '5',
        SqsManagedSseEnabled: false,
        RedrivePolicy: { deadLetterTargetArn: 'arn:aws:sqs:us-east-1:123456789012:dlq', maxReceiveCount: 3 },
        RedriveAllowPolicy: '{"redrivePermission":"denyAll"}',
        QueueName: 'ignored',
        Tags: [{ Key: 'a', Value: 'b' }],
      }),
    ).toEqual({
      VisibilityTimeout: '60',
      DelaySeconds: '5',
      SqsManagedSseEnabled: 'false',
      RedrivePolicy: '{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":3}',
      RedriveAllowPolicy: '{"redrivePermission":"denyAll"}',
    });
  });

  it('sends FifoQueue only for a FIFO queue', () => {
    expect(attributesFromProperties({ FifoQueue: true })).toEqual({ FifoQueue: 'true' });
    expect(attributesFromProperties({ FifoQueue: 'true' })).toEqual({ FifoQueue: 'true' });
    expect(attributesFromProperties({ FifoQueue: false })).toEqual({});
  });
});

describe('attributesForUpdate (clear-on-removal)', () => {
  it('resets a removed property to its SQS default', () => {
    expect(
      attributesForUpdate(
        {},
        { VisibilityTimeout: 60, MaximumMessageSize: 2048, RedrivePolicy: { a: 1 } },
        false,
      ),
    ).toEqual({
      VisibilityTimeout: '30',
      MaximumMessageSize: '1048576',
      RedrivePolicy: '',
    });
  });

  it('leaves a property that was never set absent, and passes kept ones through', () => {
    expect(attributesForUpdate({ DelaySeconds: 10 }, { DelaySeconds: 5 }, false)).toEqual({
      DelaySeconds: '10',
    });
    expect(
      attributesForUpdate({ DelaySeconds: 10 }, { DelaySeconds: 10, VisibilityTimeout: 40 }, false),
    ).toEqual({
      DelaySeconds: '10',
      VisibilityTimeout: '30',
    });
  });

  it('resets FIFO-only attributes only on a FIFO queue', () => {
    expect(
      attributesForUpdate({}, { ContentBasedDeduplication: true, DeduplicationScope: 'messageGroup' }, true),
    ).toEqual({
      ContentBasedDeduplication: 'false',
      DeduplicationScope: 'queue',
    });
    expect(attributesForUpdate({}, { ContentBasedDeduplication: true }, false)).toEqual({});
  });

  it('returns to SQS-managed encryption when the KMS key is removed', () => {
    expect(attributesForUpdate({}, { KmsMasterKeyId: 'alias/aws/sqs' }, false)).toEqual({
      KmsMasterKeyId: '',
      SqsManagedSseEnabled: 'true',
    });
    expect(attributesForUpdate({ SqsManagedSseEnabled: false }, { KmsMasterKeyId: 'k' }, false)).toEqual({
      KmsMasterKeyId: '',
      SqsManagedSseEnabled: 'false',
    });
    expect(attributesForUpdate({ KmsMasterKeyId: 'k' }, { SqsManagedSseEnabled: true }, false)).toEqual({
      KmsMasterKeyId: 'k',
    });
  });

  it('never sends the create-only FifoQueue', () => {
    expect(attributesForUpdate({ FifoQueue: true }, { FifoQueue: true }, true)).toEqual({});
  });

  it('has a reset value for every attribute property', () => {
    expect(Object.keys(ATTRIBUTE_RESET_VALUES).sort()).toEqual([...ATTRIBUTE_PROPERTIES].sort());
  });
});

describe('propertiesFromAttributes', () => {
  it('types attribute strings back into CloudFormation properties', () => {
    expect(
      propertiesFromAttributes({
        QueueArn: 'arn',
        VisibilityTimeout: '30',
        SqsManagedSseEnabled: 'true',
        RedrivePolicy: '{"deadLetterTargetArn":"arn","maxReceiveCount":3}',
        ContentBasedDeduplication: 'false',
      }),
    ).toEqual({
      VisibilityTimeout: 30,
      SqsManagedSseEnabled: true,
      RedrivePolicy: { deadLetterTargetArn: 'arn', maxReceiveCount: 3 },
    });
    expect(propertiesFromAttributes({ FifoQueue: 'true', ContentBasedDeduplication: 'true' })).toEqual({
      FifoQueue: true,
      ContentBasedDeduplication: true,
    });
  });
});

describe('tags', () => {
  it('maps CloudFormation tags and diffs them', () => {
    expect(
      tagMap([
        { Key: 'a', Value: 'b' },
        { Key: 'n', Value: 1 },
      ]),
    ).toEqual({ a: 'b', n: '1' });
    expect(tagMap(undefined)).toEqual({});
    expect(tagChanges({ a: '1', b: '2' }, { a: '1', b: '1', c: '3' })).toEqual({
      toSet: { b: '2' },
      toRemove: ['c'],
    });
  });
});

describe('generateQueueName', () => {
  it('is <stack>-<logicalId>-<suffix>, stable for one idempotency token', () => {
    const name = generateQueueName('MyStack', 'Queue4A7E3555', 'token-1', false);
    expect(name).toMatch(/^MyStack-Queue4A7E3555-[0-9A-F]{12}$/);
    expect(generateQueueName('MyStack', 'Queue4A7E3555', 'token-1', false)).toBe(name);
    expect(generateQueueName('MyStack', 'Queue4A7E3555', 'token-2', false)).not.toBe(name);
  });

  it('ends in .fifo for a FIFO queue and never exceeds 80 characters', () => {
    const long = 'S'.repeat(70);
    for (const fifo of [false, true]) {
      const name = generateQueueName(long, 'L'.repeat(60), 't', fifo);
      expect(name.length).toBeLessThanOrEqual(MAX_QUEUE_NAME_LENGTH);
      expect(name.endsWith('.fifo')).toBe(fifo);
      expect(name).toMatch(/^S+-L+-[0-9A-F]{12}(\.fifo)?$/);
    }
    expect(generateQueueName('a', 'b', 't', true)).toMatch(/^a-b-[0-9A-F]{12}\.fifo$/);
  });

  it('reads the name and account back from a queue URL', () => {
    expect(queueNameFromUrl('https://sqs.us-east-1.amazonaws.com/123456789012/MyQueue')).toBe('MyQueue');
    expect(accountFromUrl('http://127.0.0.1:4566/000000000000/q.fifo')).toBe('000000000000');
  });
});

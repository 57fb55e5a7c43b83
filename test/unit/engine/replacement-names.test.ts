/**
 * Who holds the name a rollback's re-create collided on, which errors mean a
 * name is still taken, and how the journal records a delete-first replacement
 * and a failed replacement.
 */
import { JournalRecorder } from '../../../src/engine/journal-recorder';
import { isNameInUse, namedOtherwise, replacementHoldsName } from '../../../src/engine/replacement-names';
import type { IntentRecord, ResourceState } from '../../../src/state/types';
import { ResourceExistsError } from '../../../src/util/errors';

const rec = (type: string, physicalId: string, properties: Record<string, unknown>): ResourceState => ({
  resourceType: type,
  physicalId,
  properties,
});

describe('replacementHoldsName', () => {
  it('an explicit name held by the replacement (recorded name or physical id) matches', () => {
    const orig = rec('AWS::DynamoDB::Table', 'orders', { TableName: 'orders' });
    expect(
      replacementHoldsName(orig, rec('AWS::DynamoDB::Table', 'orders', { TableName: 'orders' })),
    ).toEqual({
      holds: true,
      name: 'orders',
    });
    const q = rec('AWS::SQS::Queue', 'https://sqs/1/q', { QueueName: 'q' });
    expect(replacementHoldsName(q, rec('AWS::SQS::Queue', 'https://sqs/1/q', {})).holds).toBe(true);
  });
  it('refuses what it cannot tell: no name, a mask, another parent, a Type change, IAM by recorded name only', () => {
    const t = 'AWS::SQS::Queue';
    expect(replacementHoldsName(rec(t, 'a', {}), rec(t, 'b', {})).holds).toBe(false);
    expect(replacementHoldsName(rec(t, 'a', { QueueName: '***' }), rec(t, '***', {})).holds).toBe(false);
    const rule = 'AWS::Events::Rule';
    expect(
      replacementHoldsName(
        rec(rule, 'arn:x:rule/r', { Name: 'r', EventBusName: 'a' }),
        rec(rule, 'arn:y', { Name: 'r', EventBusName: 'b' }),
      ).holds,
    ).toBe(false);
    expect(replacementHoldsName(rec(t, 'q', { QueueName: 'q' }), rec('AWS::SNS::Topic', 'q', {})).holds).toBe(
      false,
    );
    const role = 'AWS::IAM::Role';
    expect(
      replacementHoldsName(rec(role, 'r', { RoleName: 'R' }), rec(role, 'Stack-R-x', { RoleName: 'R' }))
        .holds,
    ).toBe(false);
    expect(replacementHoldsName(rec(role, 'r', { RoleName: 'R' }), rec(role, 'r', {})).holds).toBe(true);
  });
  it('classifies name-in-use errors through their causes', () => {
    expect(isNameInUse(new ResourceExistsError('x'))).toBe(true);
    expect(isNameInUse(Object.assign(new Error('x'), { cause: { name: 'QueueDeletedRecently' } }))).toBe(
      true,
    );
    expect(isNameInUse(new Error('other'))).toBe(false);
  });
});

describe('namedOtherwise', () => {
  it('is true only when both name the same property differently (case as the service matches it)', () => {
    const t = 'AWS::SNS::Topic';
    expect(namedOtherwise(t, { TopicName: 'b' }, rec(t, 'arn:a', { TopicName: 'a' }))).toBe(true);
    expect(namedOtherwise(t, { TopicName: 'a' }, rec(t, 'arn:a', { TopicName: 'a' }))).toBe(false);
    expect(namedOtherwise(t, { TopicName: 'A' }, rec(t, 'arn:a', { TopicName: 'a' }))).toBe(true);
    const role = 'AWS::IAM::Role';
    expect(namedOtherwise(role, { RoleName: 'R' }, rec(role, 'r', { RoleName: 'r' }))).toBe(false);
    // A generated name, or a masked one, cannot be told apart.
    expect(namedOtherwise(t, { TopicName: 'b' }, rec(t, 'arn:x', {}))).toBe(false);
    expect(namedOtherwise(t, {}, rec(t, 'arn:a', { TopicName: 'a' }))).toBe(false);
  });
});

describe('JournalRecorder: replacement orders', () => {
  const intent = (over: Partial<IntentRecord>): IntentRecord =>
    ({
      id: 'i',
      operation: 'create',
      logicalId: 'T',
      resourceType: 'AWS::DynamoDB::Table',
      provisionedBy: 'cc-api',
      token: 't',
      at: 0,
      properties: { TableName: 'orders' },
      ...over,
    }) as IntentRecord;
  const original = rec('AWS::DynamoDB::Table', 'orders', { TableName: 'orders', K: 1 });

  it('a DELETE then a CREATE of one logical id (the delete-first fallback) is one delete-first replacement', () => {
    const r = new JournalRecorder();
    // The create-first attempt collided on the name (nothing made): a failed replacement, for now.
    r.observe({
      intent: intent({ replaces: 'orders' }),
      effects: [],
      failed: { code: 'RESOURCE_ALREADY_EXISTS', message: 'exists' },
      before: () => original,
    });
    expect(r.failedOperations).toEqual([expect.objectContaining({ replacement: true })]);
    r.observe({
      intent: intent({ operation: 'delete', physicalId: 'orders' }),
      effects: [{ op: 'remove', logicalId: 'T' }],
      before: () => original,
    });
    r.observe({
      intent: intent({}),
      effects: [
        { op: 'set', logicalId: 'T', record: rec('AWS::DynamoDB::Table', 'orders', { K: 2 }), prev: null },
      ],
      before: () => undefined,
    });
    expect(r.operations).toEqual([
      expect.objectContaining({ changeType: 'UPDATE', previousState: original, replacedOriginal: 'deleted' }),
    ]);
    // The replacement completed: its collided first attempt is no failure to settle.
    expect(r.failedOperations).toEqual([]);
  });

  it("a replacement's failed create is a failed UPDATE (replacement) beside the CREATE of what it made", () => {
    const r = new JournalRecorder();
    r.observe({
      intent: intent({ replaces: 'orders' }),
      effects: [
        {
          op: 'depose',
          entry: {
            ...rec('AWS::DynamoDB::Table', 'made', {}),
            logicalId: 'T',
            key: 'T~1',
            reason: 'failed-create',
            deposedAt: 0,
          },
        },
      ],
      failed: { message: 'boom' },
      before: () => original,
    });
    expect(r.failedOperations).toEqual([
      expect.objectContaining({ changeType: 'UPDATE', replacement: true, physicalId: 'orders' }),
      expect.objectContaining({ changeType: 'CREATE', physicalId: 'made' }),
    ]);
  });
});

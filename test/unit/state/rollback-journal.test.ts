/**
 * The rollback journal is a contract with the reference tool: a journal it
 * wrote (fixture shaped after the spec's format) reads here, and one written
 * here has the keys and shapes it reads. The recorder turns session outcomes
 * into the journal's operations.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { journalEntryOf } from '../../../src/engine/journal-recorder';
import {
  ROLLBACK_JOURNAL_VERSION,
  emptyJournal,
  parseRollbackJournal,
  serializeRollbackJournal,
} from '../../../src/state/rollback-journal';
import type { IntentRecord, ResourceState } from '../../../src/state/types';
import { clearSecrets, registerSecret } from '../../../src/template/redaction';

const FIXTURE = path.join(__dirname, '..', '..', 'fixtures', 'rollback-journal', 'reference-v1.json');

describe('rollback journal format', () => {
  it("reads a journal in the reference tool's format", () => {
    const journal = parseRollbackJournal(fs.readFileSync(FIXTURE, 'utf8'), 'MyStack', 'fixture');
    expect(journal.journalVersion).toBe(1);
    expect(journal.segments.map((s) => s.reason)).toEqual(['no-rollback-failure', 'auto-rollback-clean']);
    const [first, second] = journal.segments;
    expect(first.operations.map((o) => `${o.changeType} ${o.logicalId}`)).toEqual([
      'CREATE Bucket',
      'UPDATE Queue',
    ]);
    expect(first.operations[1].previousState?.properties).toEqual({ VisibilityTimeout: 30 });
    expect(first.failedOperations?.[0].attemptedProperties).toEqual({
      MasterUsername: 'admin',
      DBInstanceClass: 'db.t3.micro',
    });
    expect(second.operations).toEqual([]);
    expect(second.failedOperations?.[0].attemptedProperties).toEqual({ VisibilityTimeout: 90 });
  });

  it('writes what it reads, with the same keys', () => {
    const body = fs.readFileSync(FIXTURE, 'utf8');
    const journal = parseRollbackJournal(body, 'MyStack', 'fixture');
    expect(JSON.parse(serializeRollbackJournal(journal))).toEqual(JSON.parse(body));
    const fresh = emptyJournal('Other', 'eu-west-1');
    expect(Object.keys(fresh).sort()).toEqual(['journalVersion', 'region', 'segments', 'stackName']);
    expect(fresh.journalVersion).toBe(ROLLBACK_JOURNAL_VERSION);
  });

  it('masks registered secrets in the properties and previous states it stores, not the ids', () => {
    registerSecret('hunter2-secret');
    try {
      const journal = parseRollbackJournal(fs.readFileSync(FIXTURE, 'utf8'), 'MyStack', 'fixture');
      const [first] = journal.segments;
      first.operations[1].previousState!.properties = { Password: 'hunter2-secret' };
      first.failedOperations![0].attemptedProperties = { MasterUserPassword: 'x-hunter2-secret-y' };
      const stored = serializeRollbackJournal(journal);
      expect(stored).not.toContain('hunter2-secret');
      const back = parseRollbackJournal(stored, 'MyStack', 'fixture');
      expect(back.segments[0].operations[1].previousState?.properties).toEqual({ Password: '***' });
      expect(back.segments[0].operations.map((o) => o.logicalId)).toEqual(['Bucket', 'Queue']);
    } finally {
      clearSecrets();
    }
  });

  it('refuses a newer journalVersion, naming the remedy', () => {
    const body = JSON.stringify({ journalVersion: 2, stackName: 'S', region: 'r', segments: [] });
    expect(() => parseRollbackJournal(body, 'S', 's3://b/k')).toThrow(/journalVersion 2.*reads up to 1/);
    expect(() => parseRollbackJournal('{"journalVersion":1}', 'S', 's3://b/k')).toThrow(/no segments array/);
    expect(() => parseRollbackJournal('not json', 'S', 's3://b/k')).toThrow(/not valid JSON/);
  });
});

describe('journal entries from session outcomes', () => {
  const intent = (over: Partial<IntentRecord>): IntentRecord => ({
    id: 'l:1.0',
    operation: 'create',
    logicalId: 'Q',
    resourceType: 'AWS::SQS::Queue',
    provisionedBy: 'sdk',
    token: 't',
    at: 0,
    properties: { A: 1 },
    ...over,
  });
  const record = (physicalId: string, props: Record<string, unknown> = {}): ResourceState => ({
    physicalId,
    resourceType: 'AWS::SQS::Queue',
    properties: props,
  });

  it('a create of a new logical id is a CREATE', () => {
    const out = journalEntryOf({
      intent: intent({}),
      effects: [{ op: 'set', logicalId: 'Q', record: record('q1', { A: 1 }), prev: null }],
      before: () => undefined,
    });
    expect(out.completed).toMatchObject({ changeType: 'CREATE', logicalId: 'Q', physicalId: 'q1' });
  });

  it('a create that replaces is an UPDATE with the original as its previous state', () => {
    const original = record('q0', { A: 0 });
    const out = journalEntryOf({
      intent: intent({ replaces: 'q0' }),
      effects: [{ op: 'set', logicalId: 'Q', record: record('q1'), prev: 'q0' }],
      before: () => original,
    });
    expect(out.completed).toMatchObject({
      changeType: 'UPDATE',
      physicalId: 'q1',
      previousState: original,
      replacedOriginal: 'deposed',
    });
  });

  it('an in-place update records the record before it', () => {
    const before = record('q0', { A: 0 });
    const out = journalEntryOf({
      intent: intent({ operation: 'update', physicalId: 'q0' }),
      effects: [{ op: 'set', logicalId: 'Q', record: record('q0', { A: 1 }), prev: 'q0' }],
      before: () => before,
    });
    expect(out.completed).toMatchObject({ changeType: 'UPDATE', physicalId: 'q0', previousState: before });
    expect(out.completed?.replacedOriginal).toBeUndefined();
  });

  it('a failed create that made its resource names it; attempted properties are kept', () => {
    const out = journalEntryOf({
      intent: intent({}),
      effects: [
        {
          op: 'depose',
          entry: { ...record('made-1'), logicalId: 'Q', key: 'Q~1', reason: 'failed-create', deposedAt: 0 },
        },
      ],
      failed: { message: 'boom' },
      before: () => undefined,
    });
    expect(out.failed).toEqual({
      logicalId: 'Q',
      changeType: 'CREATE',
      resourceType: 'AWS::SQS::Queue',
      provisionedBy: 'sdk',
      physicalId: 'made-1',
      attemptedProperties: { A: 1 },
    });
  });

  it('outcomes without an AWS call and deletes of deposed copies revert nothing', () => {
    expect(journalEntryOf({ intent: undefined, effects: [], before: () => undefined })).toEqual({});
    expect(
      journalEntryOf({
        intent: intent({ operation: 'delete', deposedKey: 'Q~1', physicalId: 'old' }),
        effects: [{ op: 'undepose', key: 'Q~1' }],
        before: () => undefined,
      }),
    ).toEqual({});
  });
});

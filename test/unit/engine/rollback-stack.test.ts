/**
 * `cdkd rollback` on what a `--no-rollback` deploy left, against the emulator:
 * an operation whose record cannot address its resource is skipped with a
 * warning and nothing sent (the command exits 2 on warnings), and `--orphan`
 * leaves a resource as it is and drops it from the journal, saying what it
 * dropped.
 */
import { deployStack } from '../../../src/engine/deploy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { orphanFrom, rollbackStack } from '../../../src/engine/rollback-stack';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import type { RollbackJournalSegment } from '../../../src/state/rollback-journal';
import { parseTemplate } from '../../../src/template/types';
import { renderRollbackWarnings } from '../../../src/ui/rollback-report';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
jest.setTimeout(60_000);

describe('cdkd rollback: unaddressable operations and --orphan', () => {
  const ctx = useEmulator();
  let store: TestStore;
  let host: RecordingIoHost;
  let provisioner: ResourceProvisioner;

  beforeEach(async () => {
    await ctx.emulator.control.reset();
    store = await testStore(ctx.emulator);
    host = new RecordingIoHost();
    provisioner = new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks([], schemas),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
  });

  /** Two topics made, then the queue after them refused: with --no-rollback both stay, journaled. */
  const failedDeploy = async (stackName: string) => {
    await ctx.emulator.control.setTypeSettings('AWS::SQS::Queue', {
      failWith: {
        errorCode: 'InvalidRequest',
        message: 'injected: the queue is refused',
        operations: ['CREATE'],
        count: 100,
      },
    });
    const result = await deployStack(
      {
        stackName,
        region: REGION,
        template: parseTemplate({
          Resources: {
            A: { Type: 'AWS::SNS::Topic', Properties: { TopicName: `${stackName}-a` } },
            B: { Type: 'AWS::SNS::Topic', Properties: { TopicName: `${stackName}-b` }, DependsOn: 'A' },
            C: { Type: 'AWS::SQS::Queue', Properties: { QueueName: `${stackName}-c` }, DependsOn: 'B' },
          },
        }),
      },
      { store, provisioner, schemas, factory: store.factory, ioHost: host, concurrency: 4, rollback: false },
    );
    expect(result).toEqual(expect.objectContaining({ ok: false, journalKept: true }));
    expect(Object.keys((await store.backend.getState(stackName, REGION))!.state.resources).sort()).toEqual([
      'A',
      'B',
    ]);
  };
  const rollback = (stackName: string, orphan?: string[]) =>
    rollbackStack({
      stackName,
      region: REGION,
      store,
      provisioner,
      ioHost: host,
      ...(orphan ? { orphan } : {}),
    });
  const topics = async () =>
    (await ctx.emulator.control.inventory())
      .filter((r) => r.type === 'AWS::SNS::Topic')
      .map((r) => r.identifier.split(':').pop())
      .sort();

  it('skips, with a warning and no call, an operation whose record has no usable physicalId', async () => {
    await failedDeploy('Torn');
    const stored = (await store.backend.getState('Torn', REGION))!;
    stored.state.resources.B.physicalId = '  ';
    await store.backend.saveState('Torn', REGION, stored.state, stored.etag);
    await ctx.emulator.control.clearRequests();

    const result = await rollback('Torn');
    expect(result.clean).toBe(true);
    expect(result.reverted).toEqual([expect.stringMatching(/^A: deleted .*Torn-a/)]);
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^B: the create is not reverted: its state record has no usable physicalId; nothing was sent/,
      ),
    ]);
    // B's topic and record are left as they are; only A's delete was sent.
    expect(await topics()).toEqual(['Torn-b']);
    expect((await store.backend.getState('Torn', REGION))!.state.resources.B.physicalId).toBe('  ');
    expect((await ctx.emulator.control.requests()).byOperation['cloudcontrol:DeleteResource']).toBe(1);
    // The command exits 2 naming it.
    const warned = renderRollbackWarnings([result])!;
    expect(warned.exitCode).toBe(2);
    expect(warned.message).toMatch(/Torn: B: the create is not reverted/);
    expect(await store.journals.read('Torn', REGION)).toBeUndefined();
  });

  it('--orphan leaves the resource and its record, drops it from the journal and says what it dropped', async () => {
    await failedDeploy('Orphan');
    const result = await rollback('Orphan', ['B', 'Nope']);
    expect(result.clean).toBe(true);
    expect(result.reverted).toEqual([expect.stringMatching(/^A: deleted /)]);
    expect(result.orphaned).toEqual([
      expect.stringMatching(
        /^B: left as it is \(--orphan\); dropped from the journal: its CREATE of .*Orphan-b$/,
      ),
    ]);
    expect(result.warnings).toEqual([
      '--orphan Nope: the journal holds no operation of Nope; nothing dropped.',
    ]);
    expect(await topics()).toEqual(['Orphan-b']);
    expect(Object.keys((await store.backend.getState('Orphan', REGION))!.state.resources)).toEqual(['B']);
    expect(await store.journals.read('Orphan', REGION)).toBeUndefined();
  });

  it('orphanFrom drops completed and failed operations of the id from every segment', () => {
    const segments = [
      {
        operations: [
          { logicalId: 'X', changeType: 'UPDATE', physicalId: 'x1' },
          { logicalId: 'Y', changeType: 'CREATE', physicalId: 'y1' },
        ],
        failedOperations: [{ logicalId: 'X', changeType: 'UPDATE', physicalId: 'x1' }],
      },
      { operations: [{ logicalId: 'X', changeType: 'CREATE', physicalId: 'x2' }] },
    ] as unknown as RollbackJournalSegment[];
    const warnings: string[] = [];
    expect(orphanFrom(segments, ['X'], warnings)).toEqual([
      'X: left as it is (--orphan); dropped from the journal: its UPDATE of x1, its failed UPDATE of x1, its CREATE of x2',
    ]);
    expect(segments.map((s) => s.operations.map((o) => o.logicalId))).toEqual([['Y'], []]);
    expect(segments[0].failedOperations).toBeUndefined();
    expect(warnings).toEqual([]);
  });
});

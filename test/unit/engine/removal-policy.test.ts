/**
 * The one removal-policy rule on every path that removes a resource: the
 * decision itself, the plan, deploy cleanup (removed resources and replaced
 * originals) and destroy — Delete, Retain, RetainExceptOnCreate, and Snapshot
 * both with a pack that can take the snapshot and without one (refused, and
 * nothing changes).
 */
import { deployStack } from '../../../src/engine/deploy-stack';
import type { DeployStackResult } from '../../../src/engine/deploy-stack';
import { destroyStack } from '../../../src/engine/destroy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { RESOURCE_EVENT } from '../../../src/engine/events';
import type { ResourceEvent } from '../../../src/engine/events';
import { planStack } from '../../../src/plan/plan-stack';
import { decideRemoval } from '../../../src/plan/removal-policy';
import type { RemovalCause } from '../../../src/plan/removal-policy';
import type { ProviderRegistration, ResourceProvider } from '../../../src/plugin-api';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import type { PolicyAttribute } from '../../../src/state/types';
import { parseTemplate } from '../../../src/template/types';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
const subject = (policy?: PolicyAttribute) => ({
  logicalId: 'R',
  resourceType: 'AWS::RDS::DBCluster',
  ...(policy ? { deletionPolicy: policy, updateReplacePolicy: policy } : {}),
});

describe('decideRemoval', () => {
  const causes: RemovalCause[] = ['removed', 'replaced', 'destroyed', 'rolled-back-create'];
  const cases: Array<[PolicyAttribute | undefined, RemovalCause, string, string]> = [];
  for (const cause of causes) {
    cases.push([undefined, cause, 'delete', 'delete']);
    cases.push(['Delete', cause, 'delete', 'delete']);
    cases.push(['Retain', cause, 'retain', 'retain']);
    const kept = cause === 'rolled-back-create' ? 'delete' : 'retain';
    cases.push(['RetainExceptOnCreate', cause, kept, kept]);
    cases.push(['Snapshot', cause, 'refuse', 'snapshot']);
  }
  it.each(cases)('%s on %s: %s (%s when the pack can snapshot)', (policy, cause, without, withSnapshot) => {
    expect(decideRemoval(subject(policy), cause).action).toBe(without);
    expect(decideRemoval(subject(policy), cause, { canSnapshot: true }).action).toBe(withSnapshot);
  });

  it('reads UpdateReplacePolicy for a replaced original and DeletionPolicy everywhere else', () => {
    const s = {
      logicalId: 'R',
      resourceType: 'T',
      deletionPolicy: 'Delete',
      updateReplacePolicy: 'Retain',
    } as const;
    expect(decideRemoval(s, 'replaced')).toEqual(
      expect.objectContaining({ action: 'retain', attribute: 'UpdateReplacePolicy' }),
    );
    for (const cause of ['removed', 'destroyed', 'rolled-back-create'] as const)
      expect(decideRemoval(s, cause)).toEqual(
        expect.objectContaining({ action: 'delete', attribute: 'DeletionPolicy' }),
      );
  });

  it('names the resource and the remedy when a snapshot cannot be taken', () => {
    const d = decideRemoval(
      { logicalId: 'Db', resourceType: 'AWS::RDS::DBInstance', deletionPolicy: 'Snapshot' },
      'removed',
    );
    expect(d.reason).toMatch(/Db \(AWS::RDS::DBInstance\) has DeletionPolicy Snapshot/);
    expect(d.remedy).toMatch(/RETAIN .*DESTROY .*provider pack that can snapshot AWS::RDS::DBInstance/);
  });
});

describe('removal policies on plan, deploy cleanup and destroy', () => {
  const ctx = useEmulator();
  let store: TestStore;
  let host: RecordingIoHost;
  let plain: ResourceProvisioner;
  let withSnapshots: ResourceProvisioner;
  /** The in-memory clusters the snapshot-capable pack holds, and the snapshots it took. */
  let clusters: Map<string, Record<string, unknown>>;
  let snapshots: Array<{ physicalId: string; token?: string }>;

  const provisioner = (registry: ProviderRegistry) =>
    new ResourceProvisioner({
      registry,
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });

  beforeEach(async () => {
    await ctx.emulator.control.reset();
    store = await testStore(ctx.emulator);
    host = new RecordingIoHost();
    clusters = new Map();
    snapshots = [];
    let n = 0;
    const clusterProvider: ResourceProvider = {
      create: async (_id, _type, properties) => {
        const physicalId = `cluster-${++n}`;
        clusters.set(physicalId, properties);
        return { physicalId, attributes: { VolumeId: physicalId } };
      },
      update: async (_id, physicalId) => ({ physicalId, wasReplaced: false }),
      delete: async (_id, physicalId) => {
        clusters.delete(physicalId);
      },
      snapshot: async (_id, physicalId, _type, _props, context) => {
        if (!clusters.has(physicalId)) throw new Error(`snapshot of a cluster that is gone: ${physicalId}`);
        snapshots.push({ physicalId, token: context.idempotencyToken });
        return { snapshotId: `snap-${physicalId}` };
      },
    };
    const registration: ProviderRegistration = {
      resourceType: 'AWS::RDS::DBCluster',
      handledProperties: ['DBClusterIdentifier', 'Engine'],
      canSnapshot: true,
      createProvider: () => clusterProvider,
    };
    plain = provisioner(ProviderRegistry.fromPacks([], schemas));
    withSnapshots = provisioner(
      ProviderRegistry.fromPacks(
        [
          {
            pluginName: 'test-rds',
            pluginType: 'user',
            result: { apiVersion: 1, name: 'test-rds', providers: [registration] },
          },
        ],
        schemas,
      ),
    );
  });

  const deploy = (
    stackName: string,
    resources: Record<string, unknown>,
    p: ResourceProvisioner = plain,
  ): Promise<DeployStackResult> =>
    deployStack(
      { stackName, region: REGION, template: parseTemplate({ Resources: resources }) },
      { store, provisioner: p, schemas, factory: store.factory, ioHost: host, concurrency: 4 },
    );
  const destroy = (stackName: string, p: ResourceProvisioner = plain) =>
    destroyStack({ stackName, region: REGION, store, provisioner: p, ioHost: host, concurrency: 4 });
  const topic = (name: string, extra: Record<string, unknown> = {}) => ({
    Type: 'AWS::SNS::Topic',
    Properties: { TopicName: name },
    ...extra,
  });
  const cluster = (id: string, extra: Record<string, unknown> = {}) => ({
    Type: 'AWS::RDS::DBCluster',
    Properties: { DBClusterIdentifier: id, Engine: 'aurora-postgresql' },
    ...extra,
  });
  const topics = async () =>
    (await ctx.emulator.control.inventory())
      .filter((r) => r.type === 'AWS::SNS::Topic')
      .map((r) => r.identifier.split(':').pop())
      .sort();
  const stateOf = async (stackName: string) => (await store.backend.getState(stackName, REGION))?.state;
  const events = () => host.byCode(RESOURCE_EVENT).map((m) => m.data as ResourceEvent);

  it('plans each policy of a removed resource and of a replaced original', async () => {
    await deploy(
      'Plan',
      {
        D: topic('d', { DeletionPolicy: 'Delete' }),
        R: topic('r', { DeletionPolicy: 'Retain' }),
        X: topic('x', { DeletionPolicy: 'RetainExceptOnCreate' }),
        S: topic('s', { DeletionPolicy: 'Snapshot' }),
        V: cluster('db', { DeletionPolicy: 'Snapshot' }),
        U: topic('u1', { UpdateReplacePolicy: 'Snapshot' }),
      },
      withSnapshots,
    );
    const state = await stateOf('Plan');
    const plan = await planStack({
      template: parseTemplate({ Resources: { U: topic('u2', { UpdateReplacePolicy: 'Snapshot' }) } }),
      state,
      schemas: { has: (t) => schemas.has(t), get: (t) => schemas.get(t) },
      resolverEnv: {
        stackName: 'Plan',
        region: REGION,
        partition: 'aws',
        urlSuffix: 'amazonaws.com',
        accountId: async () => '123456789012',
      },
      canSnapshot: (record) => withSnapshots.canSnapshot(record),
    });
    const removal = Object.fromEntries(
      plan.resources.map((r) => [r.logicalId, [r.action, r.removal, r.retain]]),
    );
    expect(removal).toEqual({
      U: ['REPLACE', 'refuse', undefined],
      D: ['DELETE', undefined, undefined],
      R: ['DELETE', 'retain', true],
      X: ['DELETE', 'retain', true],
      S: ['DELETE', 'refuse', undefined],
      V: ['DELETE', 'snapshot', undefined],
    });
  });

  it('deploy cleanup: deletes Delete, keeps Retain and RetainExceptOnCreate, snapshots then deletes Snapshot', async () => {
    await deploy(
      'Cleanup',
      {
        D: topic('d', { DeletionPolicy: 'Delete' }),
        R: topic('r', { DeletionPolicy: 'Retain' }),
        X: topic('x', { DeletionPolicy: 'RetainExceptOnCreate' }),
        V: cluster('db', { DeletionPolicy: 'Snapshot' }),
      },
      withSnapshots,
    );
    const [db] = [...clusters.keys()];
    const result = await deploy('Cleanup', { Other: topic('other') }, withSnapshots);
    expect(result.ok).toBe(true);
    expect(result.summary).toEqual(expect.objectContaining({ created: 1, deleted: 2, retained: 2 }));
    expect(await topics()).toEqual(['other', 'r', 'x']);
    expect(snapshots).toEqual([{ physicalId: db, token: expect.any(String) }]);
    expect(clusters.size).toBe(0);
    expect(Object.keys((await stateOf('Cleanup'))!.resources)).toEqual(['Other']);
  });

  it('deploy cleanup refuses a removed Snapshot resource no provider can snapshot, before changing anything', async () => {
    await deploy('NoSnap', { S: topic('s', { DeletionPolicy: 'Snapshot' }), Keep: topic('keep') });
    const before = await stateOf('NoSnap');
    await expect(deploy('NoSnap', { Keep: topic('keep'), New: topic('new') })).rejects.toThrow(
      /S \(AWS::SNS::Topic\) has DeletionPolicy Snapshot.*Nothing was changed/,
    );
    expect(await topics()).toEqual(['keep', 's']);
    expect(await stateOf('NoSnap')).toEqual(before);
    expect(await store.locks.readLock('NoSnap', REGION)).toBeUndefined();
  });

  it('a replaced original follows UpdateReplacePolicy: Snapshot snapshots it (with a pack), or refuses (without)', async () => {
    await deploy('Replace', { V: cluster('db1', { UpdateReplacePolicy: 'Snapshot' }) }, withSnapshots);
    const [original] = [...clusters.keys()];
    // DBClusterIdentifier is create-only: a new one replaces the cluster.
    const replaced = await deploy(
      'Replace',
      { V: cluster('db2', { UpdateReplacePolicy: 'Snapshot' }) },
      withSnapshots,
    );
    expect(replaced.ok).toBe(true);
    expect(replaced.summary.replaced).toBe(1);
    expect(snapshots.map((s) => s.physicalId)).toEqual([original]);
    expect([...clusters.keys()]).not.toContain(original);

    await deploy('ReplaceTopic', { T: topic('t1', { UpdateReplacePolicy: 'Snapshot' }) });
    await expect(
      deploy('ReplaceTopic', { T: topic('t2', { UpdateReplacePolicy: 'Snapshot' }) }),
    ).rejects.toThrow(/T \(AWS::SNS::Topic\) has UpdateReplacePolicy Snapshot/);
    expect(await topics()).toEqual(['t1']);
  });

  it('a replaced original with UpdateReplacePolicy RetainExceptOnCreate is kept', async () => {
    await deploy('ReplaceKeep', { T: topic('k1', { UpdateReplacePolicy: 'RetainExceptOnCreate' }) });
    const result = await deploy('ReplaceKeep', {
      T: topic('k2', { UpdateReplacePolicy: 'RetainExceptOnCreate' }),
    });
    expect(result.summary.replaced).toBe(1);
    expect(await topics()).toEqual(['k1', 'k2']);
  });

  it('destroy: deletes Delete, keeps Retain and RetainExceptOnCreate, snapshots then deletes Snapshot', async () => {
    await deploy(
      'Destroy',
      {
        D: topic('d'),
        R: topic('r', { DeletionPolicy: 'Retain' }),
        X: topic('x', { DeletionPolicy: 'RetainExceptOnCreate' }),
        V: cluster('db', { DeletionPolicy: 'Snapshot' }),
      },
      withSnapshots,
    );
    const [db] = [...clusters.keys()];
    const result = await destroy('Destroy', withSnapshots);
    expect(result.complete).toBe(true);
    expect(result.retained.sort()).toEqual(['R', 'X']);
    expect(result.deleted.sort()).toEqual(['D', 'V']);
    expect(await topics()).toEqual(['r', 'x']);
    expect(snapshots.map((s) => s.physicalId)).toEqual([db]);
    expect(await stateOf('Destroy')).toBeUndefined();
    expect(
      events()
        .filter((e) => e.action === 'RETAIN')
        .map((e) => e.reason),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/DeletionPolicy Retain: kept/),
        expect.stringMatching(/RetainExceptOnCreate: kept/),
      ]),
    );
  });

  it('destroy refuses a Snapshot resource no provider can snapshot, and deletes nothing', async () => {
    await deploy('DestroyNoSnap', { S: topic('s', { DeletionPolicy: 'Snapshot' }), D: topic('d') });
    await expect(destroy('DestroyNoSnap')).rejects.toThrow(
      /DestroyNoSnap cannot be destroyed: S \(AWS::SNS::Topic\) has DeletionPolicy Snapshot.*Nothing was deleted/,
    );
    expect(await topics()).toEqual(['d', 's']);
    expect(Object.keys((await stateOf('DestroyNoSnap'))!.resources).sort()).toEqual(['D', 'S']);
    expect(await store.locks.readLock('DestroyNoSnap', REGION)).toBeUndefined();
  });
});

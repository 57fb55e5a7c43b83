/** What the state commands do (list, tree, show, info, orphan, force-unlock) against the emulator. */
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import {
  buildStackTree,
  forceUnlockStack,
  getStateInfo,
  listStackSummaries,
  loadStackView,
  orphanStack,
  resolveStackRegion,
} from '../../../src/state/inspect';
import type { ForceUnlockResult } from '../../../src/state/inspect';
import { renderStackTree, renderStackView } from '../../../src/state/render';
import type { StackState } from '../../../src/state/types';
import { CdkdError } from '../../../src/util/errors';
import { sameBucket, testStore, useEmulator } from './helpers';
import type { TestStore } from './helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

function state(stackName: string, region: string, extra: Partial<StackState> = {}): StackState {
  return { version: 9, stackName, region, resources: {}, outputs: {}, lastModified: 1710835200000, ...extra };
}

const nestedRow = { physicalId: 'child', resourceType: 'AWS::CloudFormation::Stack', properties: {} };

async function exists(store: TestStore, key: string): Promise<boolean> {
  try {
    await (await store.bucket.client()).send(new GetObjectCommand({ Bucket: store.bucket.name, Key: key }));
    return true;
  } catch {
    return false;
  }
}

async function seedTree(store: TestStore): Promise<void> {
  await store.backend.saveState(
    'Deep',
    'us-east-1',
    state('Deep', 'us-east-1', { resources: { Child: nestedRow } }),
  );
  await store.backend.saveState(
    'Deep~Child',
    'us-east-1',
    state('Deep~Child', 'us-east-1', {
      parentStack: 'Deep',
      parentLogicalId: 'Child',
      parentRegion: 'us-east-1',
      resources: { Grandchild: nestedRow },
    }),
  );
  await store.backend.saveState(
    'Deep~Child~Grandchild',
    'us-east-1',
    state('Deep~Child~Grandchild', 'us-east-1', {
      parentStack: 'Deep~Child',
      parentLogicalId: 'Grandchild',
      parentRegion: 'us-east-1',
    }),
  );
  // A child whose parent record is gone stays visible at the root.
  await store.backend.saveState(
    'Orphaned~X',
    'us-east-1',
    state('Orphaned~X', 'us-east-1', { parentStack: 'Orphaned' }),
  );
}

describe('state inspection', () => {
  it('lists stacks with details and draws the nested-stack tree', async () => {
    const store = await testStore(ctx.emulator);
    await seedTree(store);
    const lock = await store.locks.acquire('Deep', 'us-east-1', { operation: 'deploy' });
    const stacks = await listStackSummaries(store, { details: true });
    expect(stacks.map((s) => s.stackName)).toEqual([
      'Deep',
      'Deep~Child',
      'Deep~Child~Grandchild',
      'Orphaned~X',
    ]);
    expect(stacks[0]).toEqual(
      expect.objectContaining({
        resourceCount: 1,
        schemaVersion: 9,
        lock: expect.objectContaining({ owner: store.locks.owner, operation: 'deploy', expired: false }),
      }),
    );
    // A nested stack has no lock of its own: it is locked while its top-level stack is.
    expect(stacks[1].lock).toEqual(stacks[0].lock);
    expect(stacks[3].lock).toBeNull();
    expect(renderStackTree(buildStackTree(stacks))).toEqual([
      'Deep (us-east-1)',
      '└── Deep~Child (us-east-1)',
      '    └── Deep~Child~Grandchild (us-east-1)',
      'Orphaned~X (us-east-1)',
    ]);
    await lock.release();
  });

  it('lists an unreadable record with its error instead of failing', async () => {
    const store = await testStore(ctx.emulator);
    await (
      await store.bucket.client()
    ).send(
      new PutObjectCommand({
        Bucket: store.bucket.name,
        Key: 'cdkd/Bad/us-east-1/state.json',
        Body: 'garbage',
      }),
    );
    const [bad] = await listStackSummaries(store, { details: true });
    expect(bad.error).toContain('is corrupt');
  });

  it('shows a stack with its nested children, and fails fast on a torn tree', async () => {
    const store = await testStore(ctx.emulator);
    await seedTree(store);
    const view = await loadStackView(store, 'Deep', 'us-east-1', { nested: true });
    expect(view.children?.[0].state.stackName).toBe('Deep~Child');
    expect(view.children?.[0].children?.[0].children).toEqual([]);
    expect(Object.keys(view)).toEqual(['state', 'lock', 'children']);
    expect(Object.keys(await loadStackView(store, 'Deep', 'us-east-1'))).toEqual(['state', 'lock']);

    await store.backend.deleteState('Deep~Child~Grandchild', 'us-east-1');
    const err = await loadStackView(store, 'Deep', 'us-east-1', { nested: true }).catch((e) => e);
    expect(CdkdError.isCdkdError(err) && err.code).toBe('NESTED_STATE_MISSING');
    expect(err.message).toContain('cdkd/Deep~Child~Grandchild/us-east-1/state.json');
    expect(err.remedy).toContain('cdkd state orphan Deep~Child --region us-east-1');
  });

  it('renders non-scalar outputs as JSON and the provisioning layer of every record', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState(
      'Show',
      'us-east-1',
      state('Show', 'us-east-1', {
        outputs: {
          NameServers: ['ns-1', 'ns-2'],
          Plain: 'a,b',
          QueueUrl: 'https://q',
          'Show:QueueUrl': 'https://q',
          SelfExported: 'v',
        },
        exportNames: ['SelfExported', 'Show:QueueUrl'],
        resources: {
          Old: {
            physicalId: 'o',
            resourceType: 'AWS::SNS::Topic',
            properties: { Tags: [{ Key: 'k', Value: 'v' }] },
          },
          Cc: { physicalId: 'c', resourceType: 'AWS::X::Y', properties: {}, provisionedBy: 'cc-api' },
        },
      }),
    );
    const lines = renderStackView(await loadStackView(store, 'Show', 'us-east-1'));
    expect(lines).toContain('  NameServers: ["ns-1","ns-2"]');
    expect(lines).toContain('  Plain: a,b');
    // An exported output appears once, under its own name, with the export name beside it.
    expect(lines).toContain('  QueueUrl: https://q (exported as Show:QueueUrl)');
    expect(lines.filter((l) => l.includes('https://q'))).toHaveLength(1);
    expect(lines).toContain('  SelfExported: v (exported as SelfExported)');
    expect(lines).toContain('    ProvisionedBy: (sdk, legacy default)');
    expect(lines).toContain('    ProvisionedBy: cc-api');
    expect(lines).toContain('      Tags: [{"Key":"k","Value":"v"}]');
    expect(lines).toContain('Lock: unlocked');
  });

  it('resolves the region of a stack, and asks for --region when it is ambiguous', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('One', 'eu-west-1', state('One', 'eu-west-1'));
    await store.backend.saveState('Two', 'us-east-1', state('Two', 'us-east-1'));
    await store.backend.saveState('Two', 'us-west-2', state('Two', 'us-west-2'));
    expect(await resolveStackRegion(store, 'One')).toBe('eu-west-1');
    expect(await resolveStackRegion(store, 'Two', undefined, 'us-west-2')).toBe('us-west-2');
    const ambiguous = await resolveStackRegion(store, 'Two').catch((e) => e);
    expect(ambiguous.code).toBe('STACK_REGION_AMBIGUOUS');
    expect(ambiguous.remedy).toContain('us-east-1, us-west-2');
    expect((await resolveStackRegion(store, 'None').catch((e) => e)).code).toBe('STACK_STATE_NOT_FOUND');
  });

  it('reports the bucket, its region, the name source, schema version, stack count and asset regions', async () => {
    const store = await testStore(ctx.emulator, { bucketRegion: 'ap-southeast-2' });
    await store.backend.saveState('A', 'us-east-1', state('A', 'us-east-1'));
    await (
      await store.bucket.client()
    ).send(
      new PutObjectCommand({
        Bucket: store.bucket.name,
        Key: 'cdkd-bootstrap/ap-southeast-2.json',
        Body: '{}',
      }),
    );
    expect(await getStateInfo(store)).toEqual({
      bucket: store.bucket.name,
      bucketRegion: 'ap-southeast-2',
      bucketRegionResolved: true,
      source: 'cli-flag',
      prefix: 'cdkd',
      schemaVersion: 9,
      stackCount: 1,
      bootstrappedRegions: ['ap-southeast-2'],
    });
  });
});

describe('orphanStack', () => {
  it('removes the state record, journal and exports entries, and leaves the lock released', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState(
      'Gone',
      'us-east-1',
      state('Gone', 'us-east-1', { outputs: { E: 'v' }, exportNames: ['E'] }),
    );
    await store.exportsIndex.updateStack(
      'us-east-1',
      state('Gone', 'us-east-1', { outputs: { E: 'v' }, exportNames: ['E'] }),
    );
    await store.backend.saveState(
      'Gone~Kid',
      'us-east-1',
      state('Gone~Kid', 'us-east-1', { parentStack: 'Gone' }),
    );
    const journalKey = store.bucket.keys.journalKey('Gone', 'us-east-1');
    await (
      await store.bucket.client()
    ).send(new PutObjectCommand({ Bucket: store.bucket.name, Key: journalKey, Body: '{}' }));

    const result = await orphanStack(store, 'Gone', 'us-east-1');
    expect(result).toEqual({
      stackName: 'Gone',
      region: 'us-east-1',
      stateKey: 'cdkd/Gone/us-east-1/state.json',
      journalRemoved: true,
      remainingChildren: ['Gone~Kid'],
    });
    expect(await store.backend.getState('Gone', 'us-east-1')).toBeUndefined();
    expect(await exists(store, journalKey)).toBe(false);
    expect(await exists(store, store.bucket.keys.lockKey('Gone', 'us-east-1'))).toBe(false);
    expect(await store.exportsIndex.lookup('us-east-1', 'E')).toBeUndefined();
  });

  it('refuses while another process holds the lock', async () => {
    const store = await testStore(ctx.emulator);
    await store.backend.saveState('Busy', 'us-east-1', state('Busy', 'us-east-1'));
    const other = sameBucket(store, { owner: 'deployer@ci:7' });
    const lock = await other.locks.acquire('Busy', 'us-east-1', { operation: 'deploy' });
    const err = await orphanStack(store, 'Busy', 'us-east-1').catch((e) => e);
    expect(err.code).toBe('LOCK_HELD');
    expect(err.message).toContain('Refusing to orphan Busy');
    expect(err.message).toContain('deployer@ci:7');
    expect(await store.backend.getState('Busy', 'us-east-1')).toBeDefined();
    await lock.release();
  });
});

describe('forceUnlockStack', () => {
  it('finds the locked region, removes the lock whoever holds it, and says when there is none', async () => {
    const store = await testStore(ctx.emulator);
    const other = sameBucket(store, { owner: 'gone@ci:9' });
    await other.locks.acquire('Stuck', 'eu-north-1', { operation: 'deploy' });
    const result = (await forceUnlockStack(store, 'Stuck')) as ForceUnlockResult;
    expect(result.region).toBe('eu-north-1');
    expect(result.removed).toEqual(
      expect.objectContaining({ owner: 'gone@ci:9', operation: 'deploy', expired: false }),
    );
    expect(await store.locks.readLock('Stuck', 'eu-north-1')).toBeUndefined();
    expect(((await forceUnlockStack(store, 'Stuck', 'eu-north-1')) as ForceUnlockResult).removed).toBeNull();
  });

  it("takes a nested stack's lock to be its top-level stack's: a child command waits on, and unlocks, the parent", async () => {
    const store = await testStore(ctx.emulator);
    const other = sameBucket(store, { owner: 'parent@ci:3' });
    await other.locks.acquire('Top', 'eu-north-1', { operation: 'deploy' });
    // A command addressing the grandchild directly cannot take a lock while the parent's deploy holds it.
    const err = await store.locks.acquire('Top~Child~Grandchild', 'eu-north-1', { retries: 0 }).then(
      () => undefined,
      (e: CdkdError) => e,
    );
    expect(err?.message).toContain('Stack Top (whose lock nested stack Top~Child~Grandchild works under)');
    expect(err?.remedy).toContain('cdkd force-unlock Top --region eu-north-1');
    const result = (await forceUnlockStack(store, 'Top~Child')) as ForceUnlockResult;
    expect(result).toEqual(
      expect.objectContaining({
        stackName: 'Top',
        region: 'eu-north-1',
        removed: expect.objectContaining({ owner: 'parent@ci:3' }),
      }),
    );
    expect(await store.locks.readLock('Top', 'eu-north-1')).toBeUndefined();
  });

  it('leaves a live lock in place when the confirmation says no', async () => {
    const store = await testStore(ctx.emulator);
    const other = sameBucket(store, { owner: 'alive@ci:1' });
    await other.locks.acquire('Alive', 'us-east-1', { operation: 'deploy' });
    const asked: string[] = [];
    const answer = await forceUnlockStack(store, 'Alive', 'us-east-1', undefined, async (c) => {
      asked.push(c.lock.owner ?? '');
      return false;
    });
    expect(answer).toBe('cancelled');
    expect(asked).toEqual(['alive@ci:1']);
    expect(await store.locks.readLock('Alive', 'us-east-1')).toBeDefined();
  });
});

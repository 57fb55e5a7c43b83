/**
 * `cdkd gc` against the emulator's versioned state bucket: a placeholder no
 * pending operation names is collected with every version; one a locked
 * stack's pending operation names is never taken; one an unlocked stack's
 * pending operation names is kept until older than the timeout; --dry-run
 * deletes nothing.
 */
import { ListObjectVersionsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { collectGarbage } from '../../../src/engine/gc';
import { requestIdFor } from '../../../src/provisioning/custom-resource-provider';
import { customResourceResponseKey } from '../../../src/state/keys';
import type { IntentRecord } from '../../../src/state/types';
import { sameBucket, testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const ctx = useEmulator();
jest.setTimeout(30_000);

async function putPlaceholder(store: TestStore, requestId: string, body = ''): Promise<string> {
  const key = customResourceResponseKey(requestId);
  const s3 = await store.bucket.client();
  await s3.send(new PutObjectCommand({ Bucket: store.bucket.name, Key: key, Body: body }));
  return key;
}

async function versionsOf(store: TestStore, key: string): Promise<number> {
  const s3 = await store.bucket.client();
  const out = await s3.send(new ListObjectVersionsCommand({ Bucket: store.bucket.name, Prefix: key }));
  return (out.Versions ?? []).length + (out.DeleteMarkers ?? []).length;
}

/** A pending custom-resource create in `stackName`'s write-ahead log, as a killed deploy leaves it. */
async function pendingCreate(store: TestStore, stackName: string, token: string): Promise<void> {
  const intent: IntentRecord = {
    id: 'L1:1.0',
    operation: 'create',
    logicalId: 'Custom',
    resourceType: 'Custom::Thing',
    provisionedBy: 'sdk',
    token,
    at: Date.now(),
  };
  await store.wal.write({
    walVersion: 1,
    stackName,
    region: 'us-east-1',
    lineage: 'L1',
    seq: 1,
    writer: 'gone@ci:1',
    writtenAt: Date.now(),
    records: [{ t: 'intent', intent }],
  });
}

describe('cdkd gc', () => {
  it('collects only placeholders no live run may wait on, with every version', async () => {
    const store = await testStore(ctx.emulator);
    // Stranded: nothing names it; a late handler PUT over it left a second version (with Data).
    const stranded = await putPlaceholder(store, 'stranded-request');
    await putPlaceholder(
      store,
      'stranded-request',
      JSON.stringify({ Status: 'SUCCESS', Data: { Password: 'p' } }),
    );
    // A live deploy of Busy (its lock held by another process) waits on this one.
    await pendingCreate(store, 'Busy', 'token-busy');
    const busy = await putPlaceholder(store, requestIdFor('token-busy', 'Create'));
    await sameBucket(store, { owner: 'deployer@ci:7' }).locks.acquire('Busy', 'us-east-1', {
      operation: 'deploy',
    });
    // A killed deploy of Crashed: its re-run waits on this one.
    await pendingCreate(store, 'Crashed', 'token-crashed');
    const crashed = await putPlaceholder(store, requestIdFor('token-crashed', 'Create'));

    const dry = await collectGarbage({ store, timeoutSeconds: 3600, dryRun: true });
    expect(dry.collected.map((p) => p.key)).toEqual([stranded]);
    expect(await versionsOf(store, stranded)).toBe(2);

    const run = await collectGarbage({ store, timeoutSeconds: 3600 });
    expect(run.collected).toEqual([
      expect.objectContaining({ key: stranded, reason: 'no pending operation names its request' }),
    ]);
    expect(run.kept.map((p) => [p.key, p.reason.split(':')[0]]).sort()).toEqual(
      [
        [busy, expect.stringContaining('the stack is locked')],
        [crashed, expect.stringContaining('the next run of that stack waits on it')],
      ].sort(),
    );
    expect(await versionsOf(store, stranded)).toBe(0);
    expect(run.warnings).toEqual([]);

    // Past the timeout: the unlocked stack's placeholder goes; the locked stack's stays whatever its age.
    const later = await collectGarbage({ store, timeoutSeconds: 3600, now: () => Date.now() + 3601_000 });
    expect(later.collected.map((p) => p.key)).toEqual([crashed]);
    expect(later.kept.map((p) => p.key)).toEqual([busy]);
    expect(await versionsOf(store, crashed)).toBe(0);
    expect(await versionsOf(store, busy)).toBe(1);
  });

  it('a nested stack pending under a locked parent is covered by the parent lock', async () => {
    const store = await testStore(ctx.emulator);
    await pendingCreate(store, 'Top~Child', 'token-child');
    const key = await putPlaceholder(store, requestIdFor('token-child', 'Create', 0));
    await sameBucket(store, { owner: 'deployer@ci:8' }).locks.acquire('Top', 'us-east-1');
    const run = await collectGarbage({ store, timeoutSeconds: 1, now: () => Date.now() + 60_000 });
    expect(run.kept.map((p) => p.key)).toEqual([key]);
  });
});

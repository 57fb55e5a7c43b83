/**
 * Reversing a replacement, against the emulator (rollback-internals "Reversing
 * a replacement" and "Failed CREATEs that made their resource"): a first deploy,
 * then a second whose create-only change replaces a resource and whose later
 * resource fails (an injected Cloud Control failure), undone by the automatic
 * rollback or by `cdkd rollback` after `--no-rollback`. Each case checks state,
 * the emulator's inventory and requests, the journal and the warnings.
 */
import { deployStack } from '../../../src/engine/deploy-stack';
import type { DeployStackResult } from '../../../src/engine/deploy-stack';
import { DeployJournal } from '../../../src/engine/deploy-journal';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { ResourceOperations } from '../../../src/engine/resource-operations';
import { rollbackStack } from '../../../src/engine/rollback-stack';
import type { RollbackStackResult } from '../../../src/engine/rollback-stack';
import { StackSession } from '../../../src/engine/stack-session';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import type { ResourceState } from '../../../src/state/types';
import { parseTemplate } from '../../../src/template/types';
import { renderRollbackWarnings } from '../../../src/ui/rollback-report';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
jest.setTimeout(60_000);

type Resources = Record<string, Record<string, unknown>>;

/** A DynamoDB table under a fixed name: a new key schema (create-only) replaces it under the same name. */
const table = (name: string, key: string, extra: Record<string, unknown> = {}) => ({
  Type: 'AWS::DynamoDB::Table',
  Properties: {
    TableName: name,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
    KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
    ...extra,
  },
});
const queue = (name: string) => ({ Type: 'AWS::SQS::Queue', Properties: { QueueName: name } });
const topic = (name: string) => ({ Type: 'AWS::SNS::Topic', Properties: { TopicName: name } });
/** The resource made to fail: an SSM parameter, after everything it depends on. */
const failing = (name: string, dependsOn: string) => ({
  Type: 'AWS::SSM::Parameter',
  Properties: { Name: name, Type: 'String', Value: 'v' },
  DependsOn: dependsOn,
});

describe('reversing a replacement (rollback and cdkd rollback)', () => {
  const ctx = useEmulator();
  let store: TestStore;
  let host: RecordingIoHost;
  let provisioner: ResourceProvisioner;
  let sleeps: number[];

  beforeEach(async () => {
    await ctx.emulator.control.reset();
    await ctx.emulator.control.updateSettings({ sqsDeleteCooldownMs: 0 });
    store = await testStore(ctx.emulator);
    host = new RecordingIoHost();
    sleeps = [];
    provisioner = new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks([], schemas),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
  });

  const deploy = (stackName: string, resources: Resources, rollback = true): Promise<DeployStackResult> =>
    deployStack(
      { stackName, region: REGION, template: parseTemplate({ Resources: resources }) },
      { store, provisioner, schemas, factory: store.factory, ioHost: host, concurrency: 4, rollback },
    );
  const rollback = (stackName: string, sleep?: (ms: number) => Promise<void>): Promise<RollbackStackResult> =>
    rollbackStack({
      stackName,
      region: REGION,
      store,
      provisioner,
      ioHost: host,
      sleep:
        sleep ??
        (async (ms) => {
          sleeps.push(ms);
        }),
    });
  /** Every Cloud Control create of the type fails from now on. */
  const failCreates = (type: string, afterCreate = false) =>
    ctx.emulator.control.setTypeSettings(type, {
      failWith: {
        errorCode: 'InvalidRequest',
        message: `injected: ${type} refused`,
        operations: ['CREATE'],
        count: 100,
        ...(afterCreate ? { afterCreate: true } : {}),
      },
    });
  const stopFailing = (type: string) => ctx.emulator.control.setTypeSettings(type, { failWith: null });
  const state = async (stackName: string) => (await store.backend.getState(stackName, REGION))!.state;
  const journal = (stackName: string) => store.journals.read(stackName, REGION);
  /** The emulator's resources of a type, by identifier, with their properties. */
  const inventory = async (type: string) =>
    Object.fromEntries(
      (await ctx.emulator.control.inventory())
        .filter((r) => r.type === type)
        .map((r) => [r.identifier, r.properties as Record<string, unknown>]),
    );
  const requestsOf = async (type: string) =>
    (await ctx.emulator.control.requests()).byResourceType[type] ?? {};
  /** The key a table's record or live properties name. */
  const keyOf = (properties: Record<string, unknown> | undefined) =>
    (properties?.KeySchema as Array<{ AttributeName: string }> | undefined)?.[0]?.AttributeName;

  /** Failures and warnings of a rollback, readable in a diff. */
  const outcome = (r: { failed: Array<{ logicalId: string; error: unknown }>; warnings: string[] }) => ({
    failed: r.failed.map((f) => `${f.logicalId}: ${String(f.error)}`),
    warnings: r.warnings,
  });

  /** Inventory of a type equals what state records of it (no orphan, no lost record). */
  const expectInventoryIsState = async (stackName: string, type: string) => {
    const recorded = Object.values((await state(stackName)).resources)
      .filter((r) => r.resourceType === type)
      .map((r) => r.physicalId)
      .sort();
    expect(Object.keys(await inventory(type)).sort()).toEqual(recorded);
  };

  it('delete-first: a replacement the deploy made delete-first is reversed delete-new-first, then re-created', async () => {
    const s = 'DelFirst';
    expect((await deploy(s, { T: table(`${s}-t`, 'pk') })).ok).toBe(true);
    await failCreates('AWS::SSM::Parameter');
    const failed = await deploy(s, { T: table(`${s}-t`, 'id'), F: failing(`/${s}/f`, 'T') }, false);
    expect(failed).toEqual(expect.objectContaining({ ok: false, journalKept: true }));
    // The copy collided on the fixed name, so the deploy deleted the original first.
    const [seg] = (await journal(s))!.segments;
    expect(seg.operations).toEqual([
      expect.objectContaining({ logicalId: 'T', changeType: 'UPDATE', replacedOriginal: 'deleted' }),
    ]);
    expect(keyOf((await inventory('AWS::DynamoDB::Table'))[`${s}-t`])).toBe('id');

    await ctx.emulator.control.clearRequests();
    const result = await rollback(s);
    expect(outcome(result)).toEqual({ failed: [], warnings: [] });
    expect(result.clean).toBe(true);
    expect(result.reverted).toContainEqual(expect.stringMatching(/^T: the original was re-created/));
    // Delete-new-first: one delete, then one create that never collided.
    const calls = await requestsOf('AWS::DynamoDB::Table');
    expect(calls['cloudcontrol:DeleteResource']).toBe(1);
    expect(calls['cloudcontrol:CreateResource']).toBe(1);
    expect(sleeps).toEqual([]);
    expect(keyOf((await inventory('AWS::DynamoDB::Table'))[`${s}-t`])).toBe('pk');
    expect(keyOf((await state(s)).resources.T.properties)).toBe('pk');
    await expectInventoryIsState(s, 'AWS::DynamoDB::Table');
    expect(await journal(s)).toBeUndefined();
  });
});

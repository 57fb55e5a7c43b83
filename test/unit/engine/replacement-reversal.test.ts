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
import { journalEntryOf } from '../../../src/engine/journal-recorder';
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
import {
  CreateTopicCommand,
  DeleteTopicCommand,
  GetTopicAttributesCommand,
  SNSClient,
} from '@aws-sdk/client-sns';
import { DeleteQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { ProviderContext, ProviderPack, ResourceProvider } from '../../../src/plugin-api';
import { sqsProviderPack } from '../../../plugins/provider-sqs/src/hook';
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
  const stopFailing = (type: string) => ctx.emulator.control.clearTypeSettings(type);
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
    // Only F failed: the collided create-first attempt is not journaled as a failed replacement.
    expect(seg.failedOperations?.map((f) => `${f.changeType} ${f.logicalId}`)).toEqual(['CREATE F']);
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

  /** Rewrites the stored journal (a journal an older cdkd or the reference tool wrote lacks replacedOriginal). */
  const withoutReplacedOriginal = async (stackName: string) => {
    const j = (await journal(stackName))!;
    for (const seg of j.segments) for (const op of seg.operations) delete op.replacedOriginal;
    await store.journals.write(j);
  };
  /** Rewrites the stored state.json. */
  const editState = async (stackName: string, edit: (st: Awaited<ReturnType<typeof state>>) => void) => {
    const stored = (await store.backend.getState(stackName, REGION))!;
    edit(stored.state);
    await store.backend.saveState(stackName, REGION, stored.state, stored.etag);
  };
  const sns = () => store.factory.get(SNSClient, { region: REGION });
  const topicNames = async () =>
    Object.keys(await inventory('AWS::SNS::Topic'))
      .map((arn) => arn.split(':').pop())
      .sort();

  /**
   * The state the reference tool's create-first replacement leaves: the original deleted
   * as soon as its copy was made (no deposed record), a journal without replacedOriginal.
   */
  const referenceToolShape = async (stackName: string) => {
    const original = ((await state(stackName)).deposed ?? []).filter((d) => d.reason === 'replaced');
    expect(original).toHaveLength(1);
    await sns().send(new DeleteTopicCommand({ TopicArn: original[0].physicalId }));
    await editState(stackName, (st) => {
      st.deposed = st.deposed!.filter((d) => d.key !== original[0].key);
    });
    await withoutReplacedOriginal(stackName);
  };

  it('create-first: the original is re-created from its journaled pre-deploy record, then the copy is deleted', async () => {
    const s = 'CreateFirst';
    expect((await deploy(s, { T: topic(`${s}-t1`) })).ok).toBe(true);
    await failCreates('AWS::SSM::Parameter');
    const failed = await deploy(s, { T: topic(`${s}-t2`), F: failing(`/${s}/f`, 'T') }, false);
    expect(failed.journalKept).toBe(true);
    await referenceToolShape(s);
    expect(await topicNames()).toEqual([`${s}-t2`]);

    await ctx.emulator.control.clearRequests();
    const result = await rollback(s);
    expect(outcome(result)).toEqual({ failed: [], warnings: [] });
    expect(result.reverted).toContainEqual(
      expect.stringMatching(
        /^T: the original was re-created from its pre-deploy record as .*CreateFirst-t1, replacing .*CreateFirst-t2$/,
      ),
    );
    // Create-first: the re-create did not collide, then the copy went.
    const calls = await requestsOf('AWS::SNS::Topic');
    expect(calls['cloudcontrol:CreateResource']).toBe(1);
    expect(calls['cloudcontrol:DeleteResource']).toBe(1);
    expect(await topicNames()).toEqual([`${s}-t1`]);
    expect((await state(s)).resources.T.properties).toEqual({ TopicName: `${s}-t1` });
    await expectInventoryIsState(s, 'AWS::SNS::Topic');
    expect(await journal(s)).toBeUndefined();
  });

  it('name collision: the copy that provably holds the name is deleted first and the re-create retried while the name is released', async () => {
    const s = 'Collide';
    expect((await deploy(s, { T: table(`${s}-t`, 'pk') })).ok).toBe(true);
    await failCreates('AWS::SSM::Parameter');
    expect(
      (await deploy(s, { T: table(`${s}-t`, 'id'), F: failing(`/${s}/f`, 'T') }, false)).journalKept,
    ).toBe(true);
    // A journal whose verdict is create-first, its original gone, while the copy holds the name. A cdkd
    // deploy makes such a copy delete-first, so the journal is edited to reach the fallback.
    const j = (await journal(s))!;
    j.segments[0].operations[0].replacedOriginal = 'deposed';
    await store.journals.write(j);
    await ctx.emulator.control.clearRequests();
    // The name is in use for two creates: the first, while the copy holds it, and the next, right after
    // the copy's delete (as while a deleted name is released); the retry after one sleep succeeds.
    await ctx.emulator.control.addFault({
      service: 'cloudcontrol',
      operation: 'CreateResource',
      typeName: 'AWS::DynamoDB::Table',
      error: 'AlreadyExistsException',
      count: 2,
    });
    const result = await rollback(s);
    expect(outcome(result)).toEqual({ failed: [], warnings: [] });
    expect(host.messages.map((m) => m.message)).toContainEqual(
      expect.stringMatching(/T: the replacement Collide-t holds Collide-t; deleting it first/),
    );
    expect(sleeps).toEqual([2_000]);
    const calls = await requestsOf('AWS::DynamoDB::Table');
    expect(calls['cloudcontrol:CreateResource']).toBe(3);
    expect(calls['cloudcontrol:DeleteResource']).toBe(1);
    expect(keyOf((await inventory('AWS::DynamoDB::Table'))[`${s}-t`])).toBe('pk');
    expect(keyOf((await state(s)).resources.T.properties)).toBe('pk');
    await expectInventoryIsState(s, 'AWS::DynamoDB::Table');
    expect(await journal(s)).toBeUndefined();
  });

  it('a copy kept by UpdateReplacePolicy Retain that holds the name: ROLLBACK_NAME_CONFLICT, journal kept, nothing deleted', async () => {
    const s = 'KeptCopy';
    expect((await deploy(s, { T: table(`${s}-t`, 'pk') })).ok).toBe(true);
    await failCreates('AWS::SSM::Parameter');
    await deploy(s, { T: table(`${s}-t`, 'id'), F: failing(`/${s}/f`, 'T') }, false);
    // A second failed deploy only adds UpdateReplacePolicy Retain to the copy's record (no AWS call).
    const again = await deploy(
      s,
      { T: { ...table(`${s}-t`, 'id'), UpdateReplacePolicy: 'Retain' }, F: failing(`/${s}/f`, 'T') },
      false,
    );
    expect(again.journalKept).toBe(true);
    expect((await state(s)).resources.T.updateReplacePolicy).toBe('Retain');

    await ctx.emulator.control.clearRequests();
    const result = await rollback(s);
    expect(result.clean).toBe(false);
    expect(result.failed).toEqual([
      {
        logicalId: 'T',
        error: expect.objectContaining({
          code: 'ROLLBACK_NAME_CONFLICT',
          message: expect.stringMatching(/UpdateReplacePolicy Retain keeps, still holds the name KeptCopy-t/),
        }),
      },
    ]);
    expect((await requestsOf('AWS::DynamoDB::Table'))['cloudcontrol:DeleteResource']).toBeUndefined();
    expect(keyOf((await inventory('AWS::DynamoDB::Table'))[`${s}-t`])).toBe('id');
    expect(keyOf((await state(s)).resources.T.properties)).toBe('id');
    expect((await journal(s))!.segments[0].operations).toEqual([
      expect.objectContaining({ logicalId: 'T', changeType: 'UPDATE' }),
    ]);
  });

  it('an original naming a resource the deploy replaced: create-first with a warning, the copy never deleted to free the name', async () => {
    const s = 'CrossRef';
    const v1 = {
      P: topic(`${s}-p1`),
      T: table(`${s}-t`, 'pk', { Tags: [{ Key: 'topic', Value: { Ref: 'P' } }] }),
    };
    expect((await deploy(s, v1)).ok).toBe(true);
    const oldTopic = (await state(s)).resources.P.physicalId;
    await failCreates('AWS::SSM::Parameter');
    const failed = await deploy(s, {
      P: topic(`${s}-p2`),
      T: table(`${s}-t`, 'id', { Tags: [{ Key: 'topic', Value: { Ref: 'P' } }] }),
      F: failing(`/${s}/f`, 'T'),
    });
    const rolled = failed.rollback!;
    expect(rolled.clean).toBe(false);
    expect(rolled.warnings).toContainEqual(
      `T: its pre-deploy properties name P (${oldTopic}), which the failed deploy replaced or deleted; the original is re-created before its replacement CrossRef-t is deleted, and the replacement is never deleted to free a name.`,
    );
    expect(rolled.failed).toEqual([
      {
        logicalId: 'T',
        error: expect.objectContaining({
          code: 'ROLLBACK_NAME_CONFLICT',
          message: expect.stringMatching(
            /the name CrossRef-t is taken [\s\S]*its pre-deploy properties name P/,
          ),
        }),
      },
    ]);
    // The copy stays under T (its name was not freed); P's original is back.
    expect(keyOf((await inventory('AWS::DynamoDB::Table'))[`${s}-t`])).toBe('id');
    const after = await state(s);
    expect(keyOf(after.resources.T.properties)).toBe('id');
    expect(after.resources.P.physicalId).toBe(oldTopic);
    expect(await topicNames()).toEqual([`${s}-p1`]);
    expect(await journal(s)).toBeDefined();
  });

  it('a name held by something cdkd cannot attribute is refused, naming the name, journal kept', async () => {
    const s = 'Foreign';
    expect((await deploy(s, { T: topic(`${s}-t1`) })).ok).toBe(true);
    await failCreates('AWS::SSM::Parameter');
    await deploy(s, { T: topic(`${s}-t2`), F: failing(`/${s}/f`, 'T') }, false);
    await referenceToolShape(s);
    // Something outside the stack takes the original's name.
    await sns().send(new CreateTopicCommand({ Name: `${s}-t1` }));

    await ctx.emulator.control.clearRequests();
    const result = await rollback(s);
    expect(result.failed).toEqual([
      {
        logicalId: 'T',
        error: expect.objectContaining({
          code: 'ROLLBACK_NAME_CONFLICT',
          message: expect.stringMatching(
            /the name Foreign-t1 is taken [\s\S]*cdkd cannot show that its replacement holds it[\s\S]*Nothing was deleted/,
          ),
        }),
      },
    ]);
    expect((await requestsOf('AWS::SNS::Topic'))['cloudcontrol:DeleteResource']).toBeUndefined();
    expect(await topicNames()).toEqual([`${s}-t1`, `${s}-t2`]);
    expect((await state(s)).resources.T.physicalId).toMatch(/:Foreign-t2$/);
    expect((await journal(s))!.segments).toHaveLength(1);
  });

  it('an original kept by UpdateReplacePolicy Retain is re-adopted, not re-created; the retained copy survives too', async () => {
    const s = 'Readopt';
    expect((await deploy(s, { Q: queue(`${s}-q1`) })).ok).toBe(true);
    const original = (await state(s)).resources.Q.physicalId;
    await failCreates('AWS::SSM::Parameter');
    await ctx.emulator.control.clearRequests();
    const failed = await deploy(s, {
      Q: { ...queue(`${s}-q2`), UpdateReplacePolicy: 'Retain' },
      F: failing(`/${s}/f`, 'Q'),
    });
    expect(outcome(failed.rollback!)).toEqual({
      failed: [],
      warnings: [expect.stringMatching(/^Q: the replacement .*Readopt-q2 is kept \(.*UpdateReplacePolicy/)],
    });
    expect(failed.rollback!.reverted).toContainEqual(
      expect.stringMatching(/^Q: the original .*Readopt-q1 is back in place of .*Readopt-q2$/),
    );
    // Only the copy was ever created; nothing was deleted.
    const calls = await requestsOf('AWS::SQS::Queue');
    expect(calls['cloudcontrol:CreateResource']).toBe(1);
    expect(calls['cloudcontrol:DeleteResource']).toBeUndefined();
    expect((await state(s)).resources.Q.physicalId).toBe(original);
    expect(
      Object.keys(await inventory('AWS::SQS::Queue'))
        .map((u) => u.split('/').pop())
        .sort(),
    ).toEqual([`${s}-q1`, `${s}-q2`]);
    expect(await journal(s)).toBeUndefined();
  });

  describe('a failed CREATE that made its resource: who else may own it (laterOwner)', () => {
    /** A parameter's record as an import (not this stack's deploy) writes it. */
    const importedParameter = (name: string, dependencies: string[]): ResourceState => ({
      resourceType: 'AWS::SSM::Parameter',
      physicalId: name,
      properties: { Name: name, Type: 'String', Value: 'v' },
      dependencies,
      provisionedBy: 'cc-api',
    });
    const ssmParams = async () => Object.keys(await inventory('AWS::SSM::Parameter')).sort();
    /** F's create makes its parameter, then fails (with --no-rollback: journaled, nothing deleted). */
    const madeThenFailed = async (s: string) => {
      expect((await deploy(s, { A: topic(`${s}-a`) })).ok).toBe(true);
      await failCreates('AWS::SSM::Parameter', true);
      const failed = await deploy(s, { A: topic(`${s}-a`), F: failing(`/${s}/f`, 'A') }, false);
      expect(failed.journalKept).toBe(true);
      await stopFailing('AWS::SSM::Parameter');
      expect(await ssmParams()).toEqual([`/${s}/f`]);
    };

    it('a state record of its type holding the same id tracks it: dropped silently, not deleted', async () => {
      const s = 'Tracked';
      await madeThenFailed(s);
      // As a later import under another logical id leaves it.
      await editState(s, (st) => {
        st.resources.G = importedParameter(`/${s}/f`, []);
      });
      const result = await rollback(s);
      expect(outcome(result)).toEqual({ failed: [], warnings: [] });
      expect(renderRollbackWarnings([result])).toBeUndefined();
      expect(await ssmParams()).toEqual([`/${s}/f`]);
      const after = await state(s);
      expect(after.resources.G.physicalId).toBe(`/${s}/f`);
      expect(after.deposed ?? []).toEqual([]);
      expect(await journal(s)).toBeUndefined();
    });

    it('a newer segment that completed a CREATE of its type: not deleted, a warning naming the id, exit 2', async () => {
      const s = 'Newer';
      await madeThenFailed(s);
      // A second failed deploy creates another parameter, then fails on a topic.
      await failCreates('AWS::SNS::Topic');
      await deploy(
        s,
        {
          A: topic(`${s}-a`),
          G: { ...failing(`/${s}/g`, 'A'), DependsOn: undefined },
          H: { ...topic(`${s}-h`), DependsOn: 'G' },
        },
        false,
      );
      await stopFailing('AWS::SNS::Topic');
      expect(await ssmParams()).toEqual([`/${s}/f`, `/${s}/g`]);
      const result = await rollback(s);
      expect(outcome(result)).toEqual({
        failed: [],
        warnings: [
          `F: /${s}/f, made by the create that failed, is not deleted: a newer failed deploy completed a CREATE of AWS::SSM::Parameter, which may hold it; it may still exist untracked and needs manual attention.`,
        ],
      });
      const warned = renderRollbackWarnings([result])!;
      expect(warned.exitCode).toBe(2);
      expect(warned.message).toContain(`/${s}/f`);
      // G (the newer segment's create) is reverted; F's parameter is left.
      expect(await ssmParams()).toEqual([`/${s}/f`]);
      expect(await journal(s)).toBeUndefined();
    });

    it('a different record under its logical id: not deleted, a warning naming the id, exit 2', async () => {
      const s = 'Different';
      await madeThenFailed(s);
      // As an import of another parameter under F by an older cdkd leaves it.
      await editState(s, (st) => {
        st.resources.F = importedParameter(`/${s}/other`, ['A']);
      });
      const result = await rollback(s);
      expect(outcome(result)).toEqual({
        failed: [],
        warnings: [
          `F: /${s}/f, made by the create that failed, is not deleted: state tracks /${s}/other under F, a different resource; it may still exist untracked and needs manual attention.`,
        ],
      });
      expect(renderRollbackWarnings([result])!.exitCode).toBe(2);
      expect(await ssmParams()).toEqual([`/${s}/f`]);
      expect((await state(s)).resources.F.physicalId).toBe(`/${s}/other`);
    });
  });

  it('a deploy killed between the delete-first delete and the create: cdkd rollback restores the original, a re-deploy converges', async () => {
    const s = 'Killed';
    const type = 'AWS::DynamoDB::Table';
    // DeletionPolicy Retain on both: only UpdateReplacePolicy decides whether a replaced copy goes.
    const v1 = { T: { ...table(`${s}-t`, 'pk'), DeletionPolicy: 'Retain' } };
    expect((await deploy(s, v1)).ok).toBe(true);
    const copyProperties = table(`${s}-t`, 'id').Properties;

    // The deploy, by hand up to the kill: the original deleted to free its name (journaled at a fold),
    // the copy's create announced and sent, and the process gone before its outcome is recorded.
    const logger = createLogger(host);
    const session = await StackSession.open({
      store,
      stackName: s,
      region: REGION,
      operation: 'deploy',
      logger,
    });
    const deployJournal = new DeployJournal(store.journals, session, logger, !session.initial);
    await deployJournal.start();
    const ops = new ResourceOperations({
      session,
      provisioner,
      ioHost: host,
      logger,
      expectedRegion: REGION,
      withSecrets: async (p) => p,
    });
    await ops.delete({
      logicalId: 'T',
      record: session.builder.get('T')!,
      reason: 'frees the name for its replacement',
    });
    await session.foldNow();
    const recordBase = { resourceType: type, dependencies: [], deletionPolicy: 'Retain' as const };
    const intent = await session.announce({
      operation: 'create',
      logicalId: 'T',
      resourceType: type,
      provisionedBy: 'cc-api',
      properties: copyProperties,
      recordBase,
    });
    await provisioner
      .route(type, copyProperties, REGION)
      .provider.create(
        'T',
        type,
        copyProperties,
        buildCreateContext({ stackName: s, region: REGION, logicalId: 'T', idempotencyToken: intent.token }),
      );
    await session.flushLog();
    await store.locks.forceUnlock(s, REGION);
    expect(keyOf((await inventory(type))[`${s}-t`])).toBe('id');

    const result = await rollback(s);
    expect(outcome(result)).toEqual({ failed: [], warnings: [] });
    expect(result.clean).toBe(true);
    expect(result.reverted).toEqual([expect.stringMatching(/^T: the original was re-created/)]);
    expect(keyOf((await inventory(type))[`${s}-t`])).toBe('pk');
    const after = await state(s);
    expect(keyOf(after.resources.T.properties)).toBe('pk');
    expect(after.deposed ?? []).toEqual([]);
    await expectInventoryIsState(s, type);
    expect(await journal(s)).toBeUndefined();

    // A plain re-deploy of the pre-deploy template has nothing to do; the new one converges.
    expect((await deploy(s, v1)).noChanges).toBe(true);
    const forward = await deploy(s, { T: { ...table(`${s}-t`, 'id'), DeletionPolicy: 'Retain' } });
    expect(forward.ok).toBe(true);
    expect(keyOf((await inventory(type))[`${s}-t`])).toBe('id');
    await expectInventoryIsState(s, type);
  });

  /** A provisioner with these packs installed, as the CLI loads them. */
  const withPacks = (...packs: ProviderPack[]) => {
    const registry = ProviderRegistry.fromPacks(
      packs.map((result) => ({
        pluginName: result.name,
        pluginType: 'core',
        pluginVersion: '0.1.0',
        result,
      })),
      schemas,
    );
    provisioner = new ResourceProvisioner({
      registry,
      schemas: registry.schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
  };

  describe('what counts as a replacement is what the provider reported', () => {
    const queuePolicy = (queue: string) => ({
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        Queues: [{ Ref: queue }],
        PolicyDocument: {
          Version: '2012-10-17',
          Statement: [{ Effect: 'Allow', Principal: '*', Action: 'sqs:SendMessage', Resource: '*' }],
        },
      },
    });
    const policyOn = async (url: string) =>
      (
        await store.factory
          .get(SQSClient, { region: REGION })
          .send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['Policy'] }))
      ).Attributes?.Policy;

    it('a QueuePolicy whose first queue changed (a new physical id, in place) is reverted in place', async () => {
      withPacks(sqsProviderPack());
      const s = 'PolicyMove';
      const queues = { A: queue(`${s}-a`), B: queue(`${s}-b`) };
      expect((await deploy(s, { ...queues, P: queuePolicy('A') })).ok).toBe(true);
      const before = await state(s);
      const [a, b] = [before.resources.A.physicalId, before.resources.B.physicalId];
      expect(before.resources.P.physicalId).toBe(a);
      await failCreates('AWS::SSM::Parameter');
      const failed = await deploy(s, { ...queues, P: queuePolicy('B'), F: failing(`/${s}/f`, 'P') }, false);
      expect(failed.journalKept).toBe(true);
      const [seg] = (await journal(s))!.segments;
      const [op] = seg.operations;
      expect(op).toEqual(
        expect.objectContaining({ logicalId: 'P', changeType: 'UPDATE', physicalId: b, replacement: false }),
      );
      expect(op.replacedOriginal).toBeUndefined();
      expect(await policyOn(a)).toBeUndefined();

      const result = await rollback(s);
      expect(outcome(result)).toEqual({ failed: [], warnings: [] });
      expect(result.reverted).toEqual(['P: updated back to its pre-deploy properties']);
      // Back on the pre-deploy queue only; state names it again, the queues are as recorded.
      expect(await policyOn(a)).toBeDefined();
      expect(await policyOn(b)).toBeUndefined();
      const after = await state(s);
      expect(after.resources.P.physicalId).toBe(a);
      expect(after.resources.P.properties?.Queues).toEqual([a]);
      await expectInventoryIsState(s, 'AWS::SQS::Queue');
      expect(await journal(s)).toBeUndefined();
    });

    /** A topic pack whose update replaces the topic under the same ARN (deleted, then made again), and says so. */
    const replacingTopicPack = (): ProviderPack => {
      const provider = (ctx: ProviderContext): ResourceProvider => {
        const client = () => ctx.clients.get(SNSClient);
        const make = async (properties: Record<string, unknown>) => {
          const out = await client().send(
            new CreateTopicCommand({
              Name: String(properties.TopicName),
              Attributes: { DisplayName: String(properties.DisplayName ?? '') },
            }),
          );
          return out.TopicArn!;
        };
        return {
          create: async (_id, _type, properties) => ({ physicalId: await make(properties) }),
          update: async (_id, physicalId, _type, properties) => {
            await client().send(new DeleteTopicCommand({ TopicArn: physicalId }));
            return { physicalId: await make(properties), wasReplaced: true };
          },
          delete: async (_id, physicalId) => {
            await client().send(new DeleteTopicCommand({ TopicArn: physicalId }));
          },
        };
      };
      return {
        apiVersion: 1,
        name: '@test/replacing-topic',
        providers: [
          {
            resourceType: 'AWS::SNS::Topic',
            handledProperties: ['TopicName', 'DisplayName'],
            createProvider: provider,
          },
        ],
      };
    };

    it('an update its provider answered as a replacement under the same physical id is reversed as one', async () => {
      withPacks(replacingTopicPack());
      const s = 'SameIdReplace';
      const named = (display: string) => ({
        Type: 'AWS::SNS::Topic',
        Properties: { TopicName: `${s}-t`, DisplayName: display },
      });
      expect((await deploy(s, { T: named('one') })).ok).toBe(true);
      const arn = (await state(s)).resources.T.physicalId;
      await failCreates('AWS::SSM::Parameter');
      expect((await deploy(s, { T: named('two'), F: failing(`/${s}/f`, 'T') }, false)).journalKept).toBe(
        true,
      );
      const [op] = (await journal(s))!.segments[0].operations;
      expect(op).toEqual(
        expect.objectContaining({
          logicalId: 'T',
          physicalId: arn,
          replacement: true,
          replacedOriginal: 'deleted',
        }),
      );

      const result = await rollback(s);
      expect(outcome(result)).toEqual({ failed: [], warnings: [] });
      expect(result.reverted).toEqual([
        `T: the original was re-created from its pre-deploy record as ${arn}, replacing ${arn}`,
      ]);
      const display = await sns().send(new GetTopicAttributesCommand({ TopicArn: arn }));
      expect(display.Attributes?.DisplayName).toBe('one');
      expect((await state(s)).resources.T.properties).toEqual({ TopicName: `${s}-t`, DisplayName: 'one' });
      await expectInventoryIsState(s, 'AWS::SNS::Topic');
      expect(await journal(s)).toBeUndefined();
    });

    it('a journal without the answer (an older cdkd) still reads a changed physical id as a replacement', async () => {
      withPacks(sqsProviderPack());
      const s = 'PolicyLegacy';
      const queues = { A: queue(`${s}-a`), B: queue(`${s}-b`) };
      expect((await deploy(s, { ...queues, P: queuePolicy('A') })).ok).toBe(true);
      const a = (await state(s)).resources.A.physicalId;
      await failCreates('AWS::SSM::Parameter');
      await deploy(s, { ...queues, P: queuePolicy('B'), F: failing(`/${s}/f`, 'P') }, false);
      const j = (await journal(s))!;
      for (const op of j.segments[0].operations) {
        delete op.replacement;
        op.replacedOriginal = 'deleted';
      }
      await store.journals.write(j);
      const result = await rollback(s);
      expect(outcome(result)).toEqual({ failed: [], warnings: [] });
      expect(result.reverted).toEqual([expect.stringMatching(/^P: the original was re-created/)]);
      expect(await policyOn(a)).toBeDefined();
      expect((await state(s)).resources.P.physicalId).toBe(a);
    });
  });

  describe('an original left alive is read before it is re-adopted', () => {
    /** A replacement whose later resource failed under --no-rollback: the original is deposed, still in AWS. */
    const replacedThenFailed = async (s: string) => {
      expect((await deploy(s, { Q: queue(`${s}-q1`) })).ok).toBe(true);
      const original = (await state(s)).resources.Q.physicalId;
      await failCreates('AWS::SSM::Parameter');
      expect((await deploy(s, { Q: queue(`${s}-q2`), F: failing(`/${s}/f`, 'Q') }, false)).journalKept).toBe(
        true,
      );
      expect((await state(s)).deposed?.map((d) => d.physicalId)).toEqual([original]);
      return original;
    };
    const queueNames = async () =>
      Object.keys(await inventory('AWS::SQS::Queue'))
        .map((u) => u.split('/').pop())
        .sort();

    it('an original deleted out of band is re-created from its pre-deploy record, and the copy deleted', async () => {
      const s = 'GoneOriginal';
      const original = await replacedThenFailed(s);
      await store.factory
        .get(SQSClient, { region: REGION })
        .send(new DeleteQueueCommand({ QueueUrl: original }));
      expect(await queueNames()).toEqual([`${s}-q2`]);

      const result = await rollback(s);
      expect(outcome(result)).toEqual({ failed: [], warnings: [] });
      expect(result.reverted).toEqual([
        expect.stringMatching(
          /^Q: the original was re-created from its pre-deploy record as .*GoneOriginal-q1, replacing .*GoneOriginal-q2$/,
        ),
      ]);
      expect(await queueNames()).toEqual([`${s}-q1`]);
      const after = await state(s);
      expect(after.resources.Q.properties).toEqual({ QueueName: `${s}-q1` });
      expect(after.deposed ?? []).toEqual([]);
      await expectInventoryIsState(s, 'AWS::SQS::Queue');
      expect(await journal(s)).toBeUndefined();
    });

    it('a read that fails fails the operation, naming it; nothing changes and the journal is kept', async () => {
      const s = 'UnreadOriginal';
      const original = await replacedThenFailed(s);
      await ctx.emulator.control.addFault({
        service: 'cloudcontrol',
        operation: 'GetResource',
        error: 'AccessDeniedException',
        count: 1,
      });
      const result = await rollback(s);
      expect(result.failed).toEqual([
        {
          logicalId: 'Q',
          error: expect.objectContaining({
            code: 'ROLLBACK_READ_FAILED',
            message: expect.stringContaining(
              `Q: the original ${original} could not be read before it is re-adopted`,
            ),
          }),
        },
      ]);
      expect(await queueNames()).toEqual([`${s}-q1`, `${s}-q2`]);
      const after = await state(s);
      expect(after.resources.Q.physicalId).toMatch(/UnreadOriginal-q2$/);
      expect(after.deposed?.map((d) => d.physicalId)).toEqual([original]);
      expect((await journal(s))!.segments).toHaveLength(1);
      // Once AWS answers, a re-run re-adopts it.
      const again = await rollback(s);
      expect(outcome(again)).toEqual({ failed: [], warnings: [] });
      expect((await state(s)).resources.Q.physicalId).toBe(original);
      expect(await queueNames()).toEqual([`${s}-q1`]);
    });
  });

  it('a replacement whose new name something else holds does not delete the original to free it', async () => {
    const s = 'Taken';
    expect((await deploy(s, { T: topic(`${s}-t1`) })).ok).toBe(true);
    const original = (await state(s)).resources.T.physicalId;
    await sns().send(new CreateTopicCommand({ Name: `${s}-t2` }));
    const failed = await deploy(s, { T: topic(`${s}-t2`) }, false);
    expect(failed.ok).toBe(false);
    expect(failed.failed).toEqual([
      { logicalId: 'T', error: expect.objectContaining({ code: 'RESOURCE_ALREADY_EXISTS' }) },
    ]);
    // The original does not hold Taken-t2: it stays, and state still names it.
    expect(await topicNames()).toEqual([`${s}-t1`, `${s}-t2`]);
    expect((await state(s)).resources.T.physicalId).toBe(original);
  });
});

describe('journalEntryOf: what the journal records of an update outcome', () => {
  const record = (resourceType: string, physicalId: string): ResourceState => ({
    resourceType,
    physicalId,
    properties: { Name: physicalId },
    dependencies: [],
    provisionedBy: 'cc-api',
  });
  /** An update of R from `before` to `after`, with the provider's answer when given. */
  const updated = (before: ResourceState, after: ResourceState, replaced?: boolean) =>
    journalEntryOf({
      intent: {
        id: 'l:1.0',
        operation: 'update',
        logicalId: 'R',
        resourceType: after.resourceType,
        provisionedBy: 'cc-api',
        token: 't',
        at: 0,
        physicalId: before.physicalId,
      },
      effects: [{ op: 'set', logicalId: 'R', record: after, prev: before.physicalId }],
      ...(replaced !== undefined ? { replaced } : {}),
      before: () => before,
    }).completed;

  it('a Type change is a replacement whatever the provider answered', () => {
    expect(updated(record('Test::A', 'r1'), record('Test::B', 'r1'), false)).toEqual(
      expect.objectContaining({ replacement: true, replacedOriginal: 'deleted' }),
    );
  });

  it('an outcome without the answer (a log an older cdkd wrote) records none; a changed id still reads as a replacement', () => {
    const op = updated(record('Test::A', 'r1'), record('Test::A', 'r2'));
    expect(op).toEqual(expect.objectContaining({ replacedOriginal: 'deleted' }));
    expect(op).not.toHaveProperty('replacement');
    expect(updated(record('Test::A', 'r1'), record('Test::A', 'r1'))).not.toHaveProperty('replacedOriginal');
  });
});

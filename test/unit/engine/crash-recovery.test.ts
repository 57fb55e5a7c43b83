/**
 * A run that dies between announcing an operation and recording its outcome,
 * reproduced deterministically: a session announces an intent (durable in the
 * write-ahead log), the call is or is not sent, and the session is abandoned
 * without closing (as a killed process leaves it). The next deploy settles the
 * intent before planning and converges with exactly one resource per logical id.
 */
import * as fs from 'node:fs';
import { GetTopicAttributesCommand, SNSClient } from '@aws-sdk/client-sns';
import * as os from 'node:os';
import * as path from 'node:path';
import { deployStack } from '../../../src/engine/deploy-stack';
import type { DeployStackResult } from '../../../src/engine/deploy-stack';
import { destroyStack } from '../../../src/engine/destroy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { StackSession } from '../../../src/engine/stack-session';
import { buildCreateContext } from '../../../src/provisioning/create-context';
import type { CreateContext } from '../../../src/plugin-api';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { pushState } from '../../../src/state/push';
import { clearSecrets, registerSecret } from '../../../src/template/redaction';
import { parseTemplate } from '../../../src/template/types';
import { ProvisioningError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import type { IoHost, IoMessage } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
jest.setTimeout(60_000);

describe('recovery from an interrupted run', () => {
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
      retry: { maxAttempts: 2, baseDelayMs: 1 },
    });
  });

  const topics = (names: Record<string, string>) =>
    Object.fromEntries(
      Object.entries(names).map(([id, name]) => [
        id,
        { Type: 'AWS::SNS::Topic', Properties: { TopicName: name } },
      ]),
    );
  const deploy = (stackName: string, resources: Record<string, unknown>): Promise<DeployStackResult> =>
    deployStack(
      { stackName, region: REGION, template: parseTemplate({ Resources: resources }) },
      // --no-rollback: these cases inspect what a failed deploy leaves for the next run.
      { store, provisioner, schemas, factory: store.factory, ioHost: host, concurrency: 4, rollback: false },
    );
  const appTopics = async () =>
    (await ctx.emulator.control.inventory())
      .filter((r) => r.type === 'AWS::SNS::Topic')
      .map((r) => r.identifier);

  /**
   * An ioHost that records into `host` and, at the first message `when` picks, has another process
   * take the stack's lock (force-unlock) and this run renew it, so the run learns it lost the lock.
   */
  function stealsLockWhen(stackName: string, when: (m: IoMessage) => boolean) {
    let stolen: Promise<void> | undefined;
    const held = () =>
      [...(store.locks as unknown as { held: Map<string, { renew(): Promise<void> }> }).held.values()][0];
    const ioHost: IoHost = {
      notify: (m) => {
        host.notify(m);
        if (!stolen && when(m)) {
          stolen = (async () => {
            await store.locks.forceUnlock(stackName, REGION);
            await held()?.renew();
          })();
        }
      },
    };
    return { ioHost, stolen: () => stolen };
  }

  /** Opens a session, announces a create, optionally sends it, and abandons the session like a killed process. */
  async function dieDuringCreate(
    stackName: string,
    logicalId: string,
    name: string,
    send: boolean,
  ): Promise<void> {
    const session = await StackSession.open({
      store,
      stackName,
      region: REGION,
      operation: 'deploy',
      logger: createLogger(host),
    });
    const properties = { TopicName: name };
    const intent = await session.announce({
      operation: 'create',
      logicalId,
      resourceType: 'AWS::SNS::Topic',
      provisionedBy: 'cc-api',
      properties,
      recordBase: { resourceType: 'AWS::SNS::Topic', dependencies: [] },
    });
    if (send) {
      const routed = provisioner.route('AWS::SNS::Topic', properties, REGION);
      await routed.provider.create(
        logicalId,
        'AWS::SNS::Topic',
        properties,
        buildCreateContext({ stackName, region: REGION, logicalId, idempotencyToken: intent.token }),
      );
    }
    await session.flushLog();
    // The process is gone: its lock stays until it expires or is removed.
    await store.locks.forceUnlock(stackName, REGION);
  }

  it('adopts what a create whose outcome was never recorded made (same token), making nothing twice', async () => {
    await dieDuringCreate('Killed', 'A', 'killed-a', true);
    expect(await appTopics()).toHaveLength(1);
    const result = await deploy('Killed', topics({ A: 'killed-a', B: 'killed-b' }));
    expect(result.ok).toBe(true);
    expect(result.summary).toEqual(expect.objectContaining({ created: 1, unchanged: 1 }));
    expect((await appTopics()).sort()).toEqual([
      expect.stringMatching(/:killed-a$/),
      expect.stringMatching(/:killed-b$/),
    ]);
    const state = (await store.backend.getState('Killed', REGION))!.state;
    expect(Object.keys(state.resources).sort()).toEqual(['A', 'B']);
    expect(state.pendingIntents).toBeUndefined();
    expect(await store.wal.list('Killed', REGION)).toEqual([]);
    expect(host.text('info').some((m) => m.includes('settling 1 operation(s)'))).toBe(true);
  });

  it('restores a NoEcho value the log keeps masked before re-sending a create, and never sends the mask', async () => {
    const secret = 'noecho-Topic-Secret-1';
    registerSecret(secret);
    const session = await StackSession.open({
      store,
      stackName: 'Masked',
      region: REGION,
      operation: 'deploy',
      logger: createLogger(host),
    });
    await session.announce({
      operation: 'create',
      logicalId: 'A',
      resourceType: 'AWS::SNS::Topic',
      provisionedBy: 'cc-api',
      properties: { TopicName: 'masked-a', DisplayName: secret },
      recordBase: { resourceType: 'AWS::SNS::Topic', dependencies: [] },
    });
    await session.flushLog();
    await store.locks.forceUnlock('Masked', REGION);
    // The next process is given another NoEcho value: the operation is refused by name and stays pending.
    clearSecrets();
    const masked = (pw: string) =>
      deployStack(
        {
          stackName: 'Masked',
          region: REGION,
          parameterValues: { Pw: pw },
          template: parseTemplate({
            Parameters: { Pw: { Type: 'String', NoEcho: true } },
            Resources: {
              A: {
                Type: 'AWS::SNS::Topic',
                Properties: { TopicName: 'masked-a', DisplayName: { Ref: 'Pw' } },
              },
            },
          }),
        },
        {
          store,
          provisioner,
          schemas,
          factory: store.factory,
          ioHost: host,
          concurrency: 4,
          rollback: false,
        },
      );
    await expect(masked('noecho-something-else')).rejects.toThrow(
      /A \(AWS::SNS::Topic\): the create an interrupted run left in flight sent a secret value .* at Properties\/DisplayName.* stays pending/,
    );
    expect(await appTopics()).toEqual([]);
    // A process given the same value restores it (proven by the digest) and sends it.
    const creates = jest.spyOn(provisioner, 'create');
    const updates = jest.spyOn(provisioner, 'update');
    const result = await masked(secret);
    expect(result.ok).toBe(true);
    expect(creates).toHaveBeenCalledTimes(1);
    // The settled create is what the template asks for: no update follows it.
    expect(updates).not.toHaveBeenCalled();
    expect(result.summary).toMatchObject({ updated: 0 });
    expect(creates.mock.calls[0][3]).toEqual({ TopicName: 'masked-a', DisplayName: secret });
    const sns = store.factory.get(SNSClient, { region: REGION });
    const [arn] = await appTopics();
    const attrs = await sns.send(new GetTopicAttributesCommand({ TopicArn: arn }));
    expect(attrs.Attributes?.DisplayName).toBe(secret);
    clearSecrets();
  });

  it('sends a create that was announced but never sent, once, and keeps the lineage across runs', async () => {
    await dieDuringCreate('Unsent', 'A', 'unsent-a', false);
    expect(await appTopics()).toEqual([]);
    const first = await deploy('Unsent', topics({ A: 'unsent-a' }));
    expect(first.ok).toBe(true);
    expect(await appTopics()).toEqual([expect.stringMatching(/:unsent-a$/)]);
    const state = (await store.backend.getState('Unsent', REGION))!.state;
    expect(state.lineage).toEqual(expect.any(String));
    const again = await deploy('Unsent', topics({ A: 'unsent-a', B: 'unsent-b' }));
    expect(again.ok).toBe(true);
    const after = (await store.backend.getState('Unsent', REGION))!.state;
    expect(after.lineage).toBe(state.lineage);
    expect(after.serial).toBeGreaterThan(state.serial!);
  });

  it('destroys what an interrupted create made although state.json never recorded it', async () => {
    await dieDuringCreate('Gone', 'A', 'gone-a', true);
    expect(await store.backend.getState('Gone', REGION)).toBeUndefined();
    const result = await destroyStack({
      stackName: 'Gone',
      region: REGION,
      store,
      provisioner,
      ioHost: host,
      concurrency: 4,
    });
    expect(result.complete).toBe(true);
    expect(await appTopics()).toEqual([]);
    expect(await store.backend.getState('Gone', REGION)).toBeUndefined();
    expect(await store.wal.list('Gone', REGION)).toEqual([]);
  });

  it('keeps the original of an interrupted replacement as a deposed record and deletes it on the next deploy', async () => {
    const table = (key: string) => ({
      Orders: {
        Type: 'AWS::DynamoDB::Table',
        Properties: {
          KeySchema: [{ AttributeName: key, KeyType: 'HASH' }],
          AttributeDefinitions: [{ AttributeName: key, AttributeType: 'S' }],
          BillingMode: 'PAY_PER_REQUEST',
        },
      },
    });
    expect((await deploy('Repl', table('id'))).ok).toBe(true);
    // The cleanup of the replacement fails: the original must stay in state, not only in memory.
    await ctx.emulator.control.setTypeSettings('AWS::DynamoDB::Table', {
      failWith: { errorCode: 'GeneralServiceException', operations: ['DELETE'], count: 1 },
    });
    const replaced = await deploy('Repl', table('orderId'));
    expect(replaced.ok).toBe(false);
    const state = (await store.backend.getState('Repl', REGION))!.state;
    expect(state.deposed).toEqual([
      expect.objectContaining({
        logicalId: 'Orders',
        reason: 'replaced',
        resourceType: 'AWS::DynamoDB::Table',
      }),
    ]);
    const tables = async () =>
      (await ctx.emulator.control.inventory()).filter((r) => r.type === 'AWS::DynamoDB::Table');
    expect(await tables()).toHaveLength(2);

    const next = await deploy('Repl', table('orderId'));
    expect(next.ok).toBe(true);
    expect(await tables()).toHaveLength(1);
    expect((await store.backend.getState('Repl', REGION))!.state.deposed).toBeUndefined();
  });

  it('keeps what a failed Cloud Control create made, and does not free its fixed name unproven on the next deploy', async () => {
    await ctx.emulator.control.setTypeSettings('AWS::Logs::LogGroup', {
      failWith: { errorCode: 'NotStabilized', afterCreate: true, count: 1 },
    });
    const group = { G: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: 'fixed-group' } } };
    const failed = await deploy('Made', group);
    expect(failed.ok).toBe(false);
    const state = (await store.backend.getState('Made', REGION))!.state;
    expect(state.resources.G).toBeUndefined();
    expect(state.deposed).toEqual([
      expect.objectContaining({ logicalId: 'G', physicalId: 'fixed-group', reason: 'failed-create' }),
    ]);
    // The next deploy's create collides with the name. A log group's name is free for anything once the
    // group is gone, and Cloud Control reports no identity of what it made: the copy is not deleted.
    const next = await deploy('Made', group);
    expect(next.ok).toBe(false);
    expect(next.warnings).toEqual([expect.stringMatching(/fixed-group .*recorded no identity/)]);
    const groups = (await ctx.emulator.control.inventory()).filter((r) => r.type === 'AWS::Logs::LogGroup');
    expect(groups.map((g) => g.identifier)).toEqual(['fixed-group']);
    const after = (await store.backend.getState('Made', REGION))!.state;
    expect(after.resources.G).toBeUndefined();
    expect(after.deposed).toBeUndefined();
  });

  it('settles a pending pack operation through the pack that received it, and names it when it is gone', async () => {
    const type = 'Acme::Test::Thing';
    const schema = {
      typeName: type,
      properties: { Name: { type: 'string' }, Arn: { type: 'string' } },
      additionalProperties: false,
      primaryIdentifier: ['/properties/Name'],
      createOnlyProperties: ['/properties/Name'],
      readOnlyProperties: ['/properties/Arn'],
    };
    const calls: Array<{ pack: string; token?: string; inDoubt?: boolean }> = [];
    let failFirst = true;
    const pack = (name: string, pluginType: string) => ({
      pluginName: name,
      pluginType,
      pluginVersion: '1.0.0',
      result: {
        apiVersion: 1,
        name,
        providers: [
          {
            resourceType: type,
            handledProperties: ['Name'],
            schema,
            createProvider: () => ({
              create: async (_id: string, _t: string, props: Record<string, unknown>, c: CreateContext) => {
                calls.push({ pack: name, token: c.idempotencyToken, inDoubt: c.inDoubt });
                if (name === '@acme/a' && failFirst) {
                  failFirst = false;
                  // The call went out and its answer was lost: the outcome is in doubt, the intent stays pending.
                  throw new ProvisioningError('connection reset', { inDoubt: true });
                }
                return { physicalId: `${name}/${String(props.Name)}` };
              },
              update: async () => ({ physicalId: 'x', wasReplaced: false }),
              delete: async () => undefined,
            }),
          },
        ],
      },
    });
    /** A deploy with these packs installed (their schemas known to the plan, as the CLI loads them). */
    const withPacks =
      (...packs: ReturnType<typeof pack>[]) =>
      (resources: Record<string, unknown>): Promise<DeployStackResult> => {
        const registry = ProviderRegistry.fromPacks(packs, schemas);
        const p = new ResourceProvisioner({
          registry,
          schemas: registry.schemas,
          factory: store.factory,
          logger: createLogger(host),
          retry: { maxAttempts: 1, baseDelayMs: 1 },
        });
        return deployStack(
          { stackName: 'Packs', region: REGION, template: parseTemplate({ Resources: resources }) },
          {
            store,
            provisioner: p,
            schemas: registry.schemas,
            factory: store.factory,
            ioHost: host,
            concurrency: 4,
            rollback: false,
          },
        );
      };
    const things = { T: { Type: type, Properties: { Name: 'one' } } };

    expect((await withPacks(pack('@acme/a', 'user'))(things)).ok).toBe(false);
    const pending = (await store.backend.getState('Packs', REGION))!.state.pendingIntents;
    expect(pending).toEqual([
      expect.objectContaining({ logicalId: 'T', providerPack: '@acme/a', providerPackVersion: '1.0.0' }),
    ]);

    // Another pack registers the type now: the pending call is not re-sent through it.
    await expect(withPacks(pack('@acme/b', 'user'))(things)).rejects.toMatchObject({
      code: 'SETTLE_FAILED',
      message: expect.stringContaining(
        'T: An interrupted run sent an operation on a Acme::Test::Thing through the provider pack @acme/a 1.0.0, which is not installed now',
      ),
    });
    expect(calls.map((c) => c.pack)).toEqual(['@acme/a']);

    // With @acme/a back (and @acme/b ranked above it for new resources), the settle goes to @acme/a with the same token.
    const settled = await withPacks(pack('@acme/a', 'user'), pack('@acme/b', 'project'))(things);
    expect(settled.ok).toBe(true);
    expect(calls.map((c) => c.pack)).toEqual(['@acme/a', '@acme/a']);
    expect(calls[1]).toEqual({ pack: '@acme/a', token: calls[0].token, inDoubt: true });
    expect(host.text().join('\n')).toMatch(
      /settling 1 operation\(s\) an interrupted run left in flight before planning: T \(create through @acme\/a\)\./,
    );
    const state = (await store.backend.getState('Packs', REGION))!.state;
    expect(state.resources.T).toEqual(
      expect.objectContaining({
        physicalId: '@acme/a/one',
        providerPack: '@acme/a',
        providerPackVersion: '1.0.0',
      }),
    );
    expect(state.pendingIntents).toBeUndefined();
  });

  it('writes the full state to a local file when the final save fails, and state push restores it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-errored-'));
    try {
      await ctx.emulator.control.addFault({
        service: 's3',
        operation: 'PutObject',
        error: 'AccessDenied',
        probability: 1,
        match: { Key: store.bucket.keys.stateKey('Errored', REGION) },
      });
      const failed = deployStack(
        {
          stackName: 'Errored',
          region: REGION,
          template: parseTemplate({ Resources: topics({ A: 'errored-a' }) }),
        },
        {
          store,
          provisioner,
          schemas,
          factory: store.factory,
          ioHost: host,
          concurrency: 4,
          erroredStateDir: dir,
        },
      );
      const file = path.join(dir, `cdkd-errored-state.Errored.${REGION}.json`);
      await expect(failed).rejects.toThrow(`The full state is in ${file}`);
      await expect(failed).rejects.toMatchObject({
        code: 'STATE_NOT_SAVED',
        remedy: expect.stringContaining(`cdkd state push ${file}`),
      });
      expect(await store.locks.readLock('Errored', REGION)).toBeUndefined();
      const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { resources: Record<string, unknown> };
      expect(Object.keys(saved.resources)).toEqual(['A']);

      await ctx.emulator.control.clearFaults();
      const pushed = await pushState(store, file);
      expect(pushed).toEqual(
        expect.objectContaining({ stackName: 'Errored', region: REGION, replaced: false }),
      );
      const state = (await store.backend.getState('Errored', REGION))!.state;
      expect(Object.keys(state.resources)).toEqual(['A']);
      expect(await store.wal.list('Errored', REGION)).toEqual([]);
      // The stack is whole again: nothing to do.
      const again = await deploy('Errored', topics({ A: 'errored-a' }));
      expect(again.noChanges).toBe(true);
      expect(await appTopics()).toHaveLength(1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('deletes the log segments a run killed after its last fold left, although nothing else changes', async () => {
    await deploy('Folded', topics({ A: 'folded-a' }));
    const state = (await store.backend.getState('Folded', REGION))!.state;
    // The segment a killed run folded into state.json but never got to delete.
    await store.wal.write({
      walVersion: 1,
      stackName: 'Folded',
      region: REGION,
      lineage: state.lineage!,
      seq: state.walSeq ?? 1,
      writer: 'killed',
      writtenAt: Date.now(),
      records: [],
    });
    expect(await store.wal.list('Folded', REGION)).toHaveLength(1);
    const again = await deploy('Folded', topics({ A: 'folded-a' }));
    expect(again.ok).toBe(true);
    expect(await store.wal.list('Folded', REGION)).toEqual([]);
    expect(await appTopics()).toHaveLength(1);
  });

  it('names the lost lock, not the aborted calls, when the lock is taken while it settles', async () => {
    await dieDuringCreate('SettleLost', 'A', 'settle-lost-a', false);
    // The re-sent create is held long enough for the lock to be taken from under it.
    await ctx.emulator.control.setTypeLatency('AWS::SNS::Topic', 3000);
    const thief = stealsLockWhen('SettleLost', (m) => m.message.includes('settling 1 operation(s)'));
    const running = deployStack(
      {
        stackName: 'SettleLost',
        region: REGION,
        template: parseTemplate({ Resources: topics({ A: 'settle-lost-a' }) }),
      },
      {
        store,
        provisioner,
        schemas,
        factory: store.factory,
        ioHost: thief.ioHost,
        concurrency: 1,
        rollback: false,
      },
    );
    const error = await running.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await thief.stolen();
    expect(error?.message).toMatch(/Lost the lock on SettleLost/);
    expect(error?.message).not.toMatch(/could not be settled/);
    await ctx.emulator.control.clearTypeSettings();
    const next = await deploy('SettleLost', topics({ A: 'settle-lost-a' }));
    expect(next.ok).toBe(true);
    expect(await appTopics()).toHaveLength(1);
  });

  it('stops when another process takes the lock, writes no state.json, and the next deploy converges', async () => {
    await ctx.emulator.control.setTypeLatency('AWS::SNS::Topic', 300);
    const names = Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`T${i}`, `lost-${i}`]));
    // The moment the first topic is created, someone force-unlocks and the lock is renewed.
    const thief = stealsLockWhen('Lost', (m) => {
      const e = m.data as { status?: string } | undefined;
      return m.code === 'CDKD_RESOURCE_EVENT' && e?.status === 'succeeded';
    });
    const running = deployStack(
      { stackName: 'Lost', region: REGION, template: parseTemplate({ Resources: topics(names) }) },
      {
        store,
        provisioner,
        schemas,
        factory: store.factory,
        ioHost: thief.ioHost,
        concurrency: 1,
      },
    );
    await expect(running).rejects.toThrow(/Lost the lock on Lost.*state\.json was not written/s);
    await thief.stolen();
    expect(await store.backend.getState('Lost', REGION)).toBeUndefined();
    await ctx.emulator.control.clearTypeSettings();
    const next = await deploy('Lost', topics(names));
    expect(next.ok).toBe(true);
    expect(await appTopics()).toHaveLength(6);
    const state = (await store.backend.getState('Lost', REGION))!.state;
    expect(Object.keys(state.resources)).toHaveLength(6);
  });
});

/**
 * The deploy engine on hand-written templates, against the emulator: failures
 * keep finished work, dependents are skipped, fixed-name replacements delete
 * first, retain policies, interrupts, and the no-change fast path.
 */
import { deployStack } from '../../../src/engine/deploy-stack';
import type { DeployStackOptions, DeployStackResult } from '../../../src/engine/deploy-stack';
import type { ProviderRegistration, ResourceProvider } from '../../../src/plugin-api';
import { destroyStack } from '../../../src/engine/destroy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { parseTemplate } from '../../../src/template/types';
import { RESOURCE_EVENT } from '../../../src/engine/events';
import type { ResourceEvent } from '../../../src/engine/events';
import { RecordingIoHost, TeeIoHost, createLogger } from '../../../src/util/io-host';
import { testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();

describe('deployStack', () => {
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

  const deploy = (
    stackName: string,
    resources: Record<string, unknown>,
    extra: {
      signal?: AbortSignal;
      outputs?: Record<string, unknown>;
      force?: boolean;
      beforeChanges?: DeployStackOptions['beforeChanges'];
      provisioner?: ResourceProvisioner;
      rollback?: boolean;
    } = {},
  ): Promise<DeployStackResult> =>
    deployStack(
      {
        stackName,
        region: REGION,
        template: parseTemplate({ Resources: resources, Outputs: extra.outputs }),
      },
      {
        store,
        provisioner: extra.provisioner ?? provisioner,
        schemas,
        factory: store.factory,
        ioHost: host,
        concurrency: 4,
        signal: extra.signal,
        force: extra.force,
        beforeChanges: extra.beforeChanges,
        rollback: extra.rollback,
      },
    );
  const topic = (name: string, extra: Record<string, unknown> = {}) => ({
    Type: 'AWS::SNS::Topic',
    Properties: { TopicName: name },
    ...extra,
  });
  const events = () => host.byCode(RESOURCE_EVENT).map((m) => m.data as ResourceEvent);
  const inventory = async (type: string) =>
    (await ctx.emulator.control.inventory())
      .filter((r) => r.type === type)
      .map((r) => r.identifier)
      .sort();

  it('keeps finished resources when one fails, skips its dependents, and releases the lock', async () => {
    await ctx.emulator.control.setTypeSettings('AWS::Logs::LogGroup', {
      failWith: { errorCode: 'InvalidRequest', message: 'bad retention' },
    });
    const result = await deploy(
      'Failing',
      {
        A: topic('a'),
        B: {
          Type: 'AWS::Logs::LogGroup',
          Properties: { LogGroupName: { 'Fn::GetAtt': ['A', 'TopicName'] } },
        },
        C: topic('c', { DependsOn: 'B' }),
        D: topic('d'),
      },
      { rollback: false },
    );
    expect(result.ok).toBe(false);
    expect(result.journalKept).toBe(true);
    expect(result.failed.map((f) => f.logicalId)).toEqual(['B']);
    expect(result.skipped.map((s) => s.logicalId)).toEqual(['C']);
    // Skipped counts only what a failed dependency held back, not what was left undispatched.
    expect(result.summary.skipped).toBe(1);
    expect(String((result.failed[0].error as Error).message)).toMatch(
      /B \(AWS::Logs::LogGroup\).*InvalidRequest.*bad retention/,
    );
    const state = (await store.backend.getState('Failing', REGION))!.state;
    expect(Object.keys(state.resources).sort()).toEqual(['A', 'D']);
    expect(events().find((e) => e.logicalId === 'C')).toEqual(expect.objectContaining({ status: 'skipped' }));
    expect(await store.locks.readLock('Failing', REGION)).toBeUndefined();

    // The next deploy creates only what is missing.
    await ctx.emulator.control.clearTypeSettings();
    const again = await deploy('Failing', {
      A: topic('a'),
      B: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: { 'Fn::GetAtt': ['A', 'TopicName'] } } },
      C: topic('c', { DependsOn: 'B' }),
      D: topic('d'),
    });
    expect(again.ok).toBe(true);
    expect(again.summary).toEqual(expect.objectContaining({ created: 2, unchanged: 2 }));
    expect(await inventory('AWS::SNS::Topic')).toHaveLength(3);
  });

  it('replaces a resource whose fixed name would collide by deleting the original first', async () => {
    const table = (keyName: string) => ({
      Type: 'AWS::DynamoDB::Table',
      Properties: {
        TableName: 'orders',
        KeySchema: [{ AttributeName: keyName, KeyType: 'HASH' }],
        AttributeDefinitions: [{ AttributeName: keyName, AttributeType: 'S' }],
        BillingMode: 'PAY_PER_REQUEST',
      },
    });
    expect((await deploy('Tables', { Orders: table('id') })).ok).toBe(true);
    const result = await deploy('Tables', { Orders: table('orderId') });
    expect(result.failed).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.summary.replaced).toBe(1);
    const [item] = (await ctx.emulator.control.inventory()).filter((r) => r.type === 'AWS::DynamoDB::Table');
    expect(item.properties.KeySchema).toEqual([{ AttributeName: 'orderId', KeyType: 'HASH' }]);
  });

  it('keeps a removed resource with DeletionPolicy Retain in AWS and drops it from state', async () => {
    await deploy('Retain', { Kept: topic('kept', { DeletionPolicy: 'Retain' }), Gone: topic('gone') });
    const result = await deploy('Retain', { Other: topic('other') });
    expect(result.summary).toEqual(expect.objectContaining({ created: 1, deleted: 1, retained: 1 }));
    const state = (await store.backend.getState('Retain', REGION))!.state;
    expect(Object.keys(state.resources)).toEqual(['Other']);
    expect(await inventory('AWS::SNS::Topic')).toEqual([
      expect.stringMatching(/:kept$/),
      expect.stringMatching(/:other$/),
    ]);
  });

  it('keeps the original of a replacement when UpdateReplacePolicy is Retain', async () => {
    await deploy('Urp', { T: topic('first', { UpdateReplacePolicy: 'Retain' }) });
    const result = await deploy('Urp', { T: topic('second', { UpdateReplacePolicy: 'Retain' }) });
    expect(result.summary.replaced).toBe(1);
    expect(result.leftOver).toEqual([
      expect.objectContaining({ logicalId: 'T', physicalId: expect.stringMatching(/:first$/) }),
    ]);
    expect(await inventory('AWS::SNS::Topic')).toHaveLength(2);
  });

  it('stops dispatching when interrupted, saves what finished and releases the lock', async () => {
    const controller = new AbortController();
    // Interrupt the moment A is created: B (which waits for A) must not start.
    const interrupting = new TeeIoHost([
      host,
      {
        notify: (m) => {
          const e = m.data as ResourceEvent | undefined;
          if (m.code === RESOURCE_EVENT && e?.logicalId === 'A' && e.status === 'succeeded')
            controller.abort();
        },
      },
    ]);
    const result = await deployStack(
      {
        stackName: 'Interrupted',
        region: REGION,
        template: parseTemplate({
          Resources: {
            A: topic('ia'),
            B: topic('ib', { DependsOn: 'A' }),
            C: topic('ic', { DependsOn: 'B' }),
          },
        }),
      },
      {
        store,
        provisioner,
        schemas,
        factory: store.factory,
        ioHost: interrupting,
        concurrency: 4,
        signal: controller.signal,
      },
    );
    expect(result.interrupted).toBe(true);
    expect(result.ok).toBe(false);
    const state = (await store.backend.getState('Interrupted', REGION))!.state;
    expect(Object.keys(state.resources)).toEqual(['A']);
    expect(state.pendingIntents).toBeUndefined();
    expect(events().filter((e) => e.logicalId === 'B')).toEqual([]);
    expect(await store.locks.readLock('Interrupted', REGION)).toBeUndefined();
  });

  it('records outputs and export names, and takes no lock when nothing changed', async () => {
    const resources = { T: topic('out') };
    const outputs = { TopicArn: { Value: { Ref: 'T' }, Export: { Name: 'shared-topic' } } };
    const first = await deploy('Outputs', resources, { outputs });
    expect(first.outputs).toEqual({
      TopicArn: expect.stringMatching(/:out$/),
      'shared-topic': expect.stringMatching(/:out$/),
    });
    await ctx.emulator.control.clearRequests();
    const second = await deploy('Outputs', resources, { outputs });
    expect(second.noChanges).toBe(true);
    const ops = Object.keys((await ctx.emulator.control.requests()).byOperation);
    expect(
      ops.filter(
        (o) =>
          !/^(s3:GetObject|s3:GetBucketLocation|s3:HeadBucket|sts:GetCallerIdentity|s3:ListObjectsV2)$/.test(
            o,
          ),
      ),
    ).toEqual([]);
  });

  it('refuses a stack with a type nothing can provision before locking or changing anything', async () => {
    await ctx.emulator.control.clearRequests();
    const attempt = deploy('Custom', {
      T: topic('custom-t'),
      Child: { Type: 'AWS::SNS::Topick', Properties: {} },
    });
    await expect(attempt).rejects.toThrow(
      /Child \(AWS::SNS::Topick\): it is not a type in AWS's CloudFormation catalogue.*Nothing was changed/,
    );
    const ops = Object.keys((await ctx.emulator.control.requests()).byOperation);
    expect(ops.filter((o) => /^(cloudcontrol|s3:Put)/.test(o))).toEqual([]);
    expect(await store.backend.getState('Custom', REGION)).toBeUndefined();
  });

  it('destroys in reverse dependency order and deletes the state file', async () => {
    await deploy('Destroyed', { A: topic('da'), B: topic('db', { DependsOn: 'A' }) });
    host.messages.length = 0;
    const result = await destroyStack({
      stackName: 'Destroyed',
      region: REGION,
      store,
      provisioner,
      ioHost: host,
      concurrency: 4,
    });
    expect(result.complete).toBe(true);
    const order = events()
      .filter((e) => e.status === 'succeeded')
      .map((e) => e.logicalId);
    expect(order).toEqual(['B', 'A']);
    expect(await store.backend.getState('Destroyed', REGION)).toBeUndefined();
    expect(await inventory('AWS::SNS::Topic')).toEqual([]);
  });

  it('reads an attribute that appears after create from the resource, and records it', async () => {
    // A VPC's Ipv6CidrBlocks exist only once a CIDR block is attached: the create-time record lacks them.
    const reads: string[] = [];
    const vpcProvider: ResourceProvider = {
      create: async () => ({ physicalId: 'vpc-0a1b', attributes: { VpcId: 'vpc-0a1b' } }),
      update: async (_l, physicalId) => ({ physicalId, wasReplaced: false }),
      delete: async () => undefined,
      getAttribute: async (_id, _type, attribute) => {
        reads.push(attribute);
        return attribute === 'Ipv6CidrBlocks' ? ['2600:1f18:ab::/56'] : undefined;
      },
    };
    const registration: ProviderRegistration = {
      resourceType: 'AWS::EC2::VPC',
      handledProperties: ['CidrBlock'],
      createProvider: () => vpcProvider,
    };
    const withPack = new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks(
        [
          {
            pluginName: 'test-vpc',
            pluginType: 'user',
            result: { apiVersion: 1, name: 'test-vpc', providers: [registration] },
          },
        ],
        schemas,
      ),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
    const resources = {
      Vpc: { Type: 'AWS::EC2::VPC', Properties: { CidrBlock: '10.0.0.0/16' } },
      Param: {
        Type: 'AWS::SSM::Parameter',
        Properties: {
          Type: 'String',
          Value: { 'Fn::Select': [0, { 'Fn::GetAtt': ['Vpc', 'Ipv6CidrBlocks'] }] },
        },
      },
    };
    const result = await deploy('LiveAttr', resources, { provisioner: withPack });
    expect(result.failed).toEqual([]);
    expect(reads).toEqual(['Ipv6CidrBlocks']);
    const state = (await store.backend.getState('LiveAttr', REGION))!.state;
    expect(state.resources.Vpc.attributes?.Ipv6CidrBlocks).toEqual(['2600:1f18:ab::/56']);
    expect(state.resources.Param.properties?.Value).toBe('2600:1f18:ab::/56');
    // Recorded now: the next deploy reads it from state, not from the resource.
    const again = await deploy('LiveAttr', resources, { provisioner: withPack });
    expect(again.noChanges).toBe(true);
    expect(reads).toEqual(['Ipv6CidrBlocks']);
  });

  it("masks the attributes a registration declares secret, from a create's result and from a live read", async () => {
    // Neither the result nor the read marks the value: the type's declaration is what makes it secret.
    const minted = (id: string) => `minted-secret-of-${id}`;
    const keyProvider: ResourceProvider = {
      create: async (logicalId) =>
        logicalId === 'Created'
          ? {
              physicalId: 'AKIACREATED',
              attributes: { Id: 'AKIACREATED', SecretAccessKey: minted('created') },
            }
          : { physicalId: 'AKIALIVE', attributes: { Id: 'AKIALIVE' } },
      update: async (_l, physicalId) => ({ physicalId, wasReplaced: false }),
      delete: async () => undefined,
      getAttribute: async (_id, _type, attribute) =>
        attribute === 'SecretAccessKey' ? minted('live') : undefined,
    };
    const withPack = new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks(
        [
          {
            pluginName: 'test-keys',
            pluginType: 'user',
            result: {
              apiVersion: 1,
              name: 'test-keys',
              providers: [
                {
                  resourceType: 'AWS::IAM::AccessKey',
                  handledProperties: ['UserName'],
                  secretAttributes: ['SecretAccessKey'],
                  createProvider: () => keyProvider,
                },
              ],
            },
          },
        ],
        schemas,
      ),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
    const consumer = (key: string) => ({
      Type: 'AWS::SSM::Parameter',
      Properties: { Type: 'String', Value: { 'Fn::GetAtt': [key, 'SecretAccessKey'] } },
    });
    const result = await deploy(
      'DeclaredSecrets',
      {
        Created: { Type: 'AWS::IAM::AccessKey', Properties: { UserName: 'u' } },
        Live: { Type: 'AWS::IAM::AccessKey', Properties: { UserName: 'u' } },
        FromCreated: consumer('Created'),
        FromLive: consumer('Live'),
      },
      {
        provisioner: withPack,
        outputs: { Shown: { Value: { 'Fn::GetAtt': ['Created', 'SecretAccessKey'] } } },
      },
    );
    expect(result.failed).toEqual([]);
    const state = (await store.backend.getState('DeclaredSecrets', REGION))!.state;
    expect(state.resources.Created.attributes).toEqual({ Id: 'AKIACREATED', SecretAccessKey: '***' });
    expect(state.resources.Live.attributes).toEqual({ Id: 'AKIALIVE', SecretAccessKey: '***' });
    expect(state.resources.FromCreated.properties.Value).toBe('***');
    expect(state.resources.FromLive.properties.Value).toBe('***');
    expect(state.outputs.Shown).toBe('***');
  });

  it('re-applies unchanged resources with --force, calling the provider with the desired properties', async () => {
    const resources = { T: topic('forced', { Properties: { TopicName: 'forced', DisplayName: 'Forced' } }) };
    await deploy('Forced', resources);
    await ctx.emulator.control.clearRequests();
    const result = await deploy('Forced', resources, { force: true });
    expect(result.noChanges).toBe(false);
    expect(result.summary).toEqual(expect.objectContaining({ updated: 1, unchanged: 0 }));
    const ops = (await ctx.emulator.control.requests()).byOperation;
    expect(ops['cloudcontrol:UpdateResource']).toBe(1);
  });

  it('asks before changing a stack with changes, and changes nothing when the answer is no', async () => {
    const asked: string[] = [];
    const refuse: DeployStackOptions['beforeChanges'] = async (plan) => {
      asked.push(plan.stackName);
      throw new Error('not approved');
    };
    await expect(deploy('Gated', { T: topic('gated') }, { beforeChanges: refuse })).rejects.toThrow(
      'not approved',
    );
    expect(await store.backend.getState('Gated', REGION)).toBeUndefined();
    expect(await store.locks.readLock('Gated', REGION)).toBeUndefined();
    expect(await inventory('AWS::SNS::Topic')).toEqual([]);
    // Nothing to change: nothing to ask.
    await deploy('Gated', { T: topic('gated') });
    await deploy('Gated', { T: topic('gated') }, { beforeChanges: refuse });
    expect(asked).toEqual(['Gated']);
  });
});

/**
 * Nested stacks deployed and rolled back against the emulator in process:
 * `cdkd rollback` of a nested-stack update redeploys each level with the asset
 * storage-name rewrite its deploy used (recorded in the journal), a child's stale
 * journal is not ignored when the nested stack is unchanged, `TimeoutInMinutes`
 * expiry (an injected timer) fails and rolls back the nested stack, and a NoEcho
 * child output reaches the parent's resource in clear within the same run while
 * state, journal and events keep it masked, and a grandchild's warnings (its
 * deploy's, its automatic rollback's, its destroy's and its rollback's) reach
 * the top-level result named `W > Child > Grandchild` with exit 2.
 */
import { GetObjectCommand, ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { deployStack } from '../../../src/engine/deploy-stack';
import type { DeployStackInput, DeployStackResult } from '../../../src/engine/deploy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import type { ProvisionerOptions } from '../../../src/engine/provisioner';
import { RESOURCE_EVENT } from '../../../src/engine/events';
import type { ResourceEvent } from '../../../src/engine/events';
import { rollbackStack } from '../../../src/engine/rollback-stack';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { clearSecrets, redactSecretsInText } from '../../../src/template/redaction';
import { parseTemplate } from '../../../src/template/types';
import { destroyStack } from '../../../src/engine/destroy-stack';
import { renderDeployFailure, renderDeployWarnings } from '../../../src/ui/deploy-report';
import { renderDestroyWarnings } from '../../../src/ui/destroy-report';
import { renderRollbackWarnings } from '../../../src/ui/rollback-report';
import type { CdkdError } from '../../../src/util/errors';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { zipOf } from '../../emulator/test/support/zip';
import { createBucket, testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
jest.setTimeout(90_000);

/** What the asset manifest names (never created) and where cdkd published the templates. */
const BOOTSTRAP_BUCKET = 'cdk-hnb659fds-assets-123456789012-us-east-1';

/** The value the custom resource's handler mints (no expression behind it to read again). */
const MINTED = 'minted-token-9f8e7d6c5b4a';
// Answers SUCCESS with NoEcho Data { Value }, deleting as well as creating.
const TOKEN_HANDLER = `
const https = require('https');
const { URL } = require('url');
exports.handler = (event) => new Promise((resolve, reject) => {
  const body = JSON.stringify({
    Status: 'SUCCESS', StackId: event.StackId, RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
    PhysicalResourceId: event.PhysicalResourceId || 'token-' + event.ResourceProperties.Name,
    NoEcho: true, Data: { Value: '${MINTED}' },
  });
  const url = new URL(event.ResponseURL);
  const req = https.request({ hostname: url.hostname, path: url.pathname + url.search, method: 'PUT',
    headers: { 'content-type': '', 'content-length': Buffer.byteLength(body) } }, (res) => { res.resume(); res.on('end', resolve); });
  req.on('error', reject);
  req.end(body);
});
`;

describe('nested stacks in process', () => {
  const ctx = useEmulator();
  let store: TestStore;
  let host: RecordingIoHost;
  let provisioner: ResourceProvisioner;
  let assets: string;

  beforeEach(async () => {
    await ctx.emulator.control.reset();
    clearSecrets();
    store = await testStore(ctx.emulator);
    assets = await createBucket(store.factory, { versioned: false });
    host = new RecordingIoHost();
    provisioner = provisionerWith({});
  });

  /** A provisioner on the emulator, one attempt per operation, with `extra` options. */
  const provisionerWith = (extra: Partial<ProvisionerOptions>) =>
    new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks([], schemas),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
      ...extra,
    });

  /** Publishes a template; returns the URL the app (before the rewrite) names it by. */
  const publish = async (key: string, template: object): Promise<string> => {
    await store.factory
      .get(S3Client, { region: REGION })
      .send(new PutObjectCommand({ Bucket: assets, Key: key, Body: JSON.stringify(template) }));
    return `https://s3.${REGION}.amazonaws.com/${BOOTSTRAP_BUCKET}/${key}`;
  };
  const rewrite = () => [{ from: BOOTSTRAP_BUCKET, to: assets }];
  const nested = (url: string, extra: Record<string, unknown> = {}) => ({
    Type: 'AWS::CloudFormation::Stack',
    Properties: { TemplateURL: url.replace(BOOTSTRAP_BUCKET, assets), ...extra },
  });
  const deploy = (
    stackName: string,
    template: object,
    extra: Partial<DeployStackInput> = {},
    rollback = true,
    using = provisioner,
  ): Promise<DeployStackResult> =>
    deployStack(
      { stackName, region: REGION, template: parseTemplate(template), replacements: rewrite(), ...extra },
      { store, provisioner: using, schemas, factory: store.factory, ioHost: host, concurrency: 4, rollback },
    );
  const withCustomResources = () =>
    provisionerWith({ customResources: { responses: store.bucket, pollIntervalsMs: [50, 100] } });
  /** A custom-resource handler that answers every request with a NoEcho value; returns its ServiceToken. */
  const handlerFunction = async (): Promise<string> => {
    const fn = await store.factory.get(LambdaClient, { region: REGION }).send(
      new CreateFunctionCommand({
        FunctionName: 'token-handler',
        Runtime: 'nodejs20.x',
        Handler: 'index.handler',
        Role: 'arn:aws:iam::123456789012:role/token-handler',
        Code: { ZipFile: await zipOf({ 'index.js': TOKEN_HANDLER }) },
        Timeout: 30,
      }),
    );
    return fn.FunctionArn!;
  };
  /** Every resource the emulator holds, against every resource the state records hold. */
  const inventoryMatchesState = async (prefix: string) => {
    const inventory = (await ctx.emulator.control.inventory())
      .map((r) => r.type)
      .filter((t) => t !== 'AWS::S3::Bucket')
      .sort();
    const stacks = (await store.backend.listStacks()).filter((s) => s.stackName.startsWith(prefix));
    const recorded: string[] = [];
    for (const s of stacks) {
      const st = (await store.backend.getState(s.stackName, s.region))!.state;
      for (const r of Object.values(st.resources))
        if (r.resourceType !== 'AWS::CloudFormation::Stack') recorded.push(r.resourceType);
    }
    return { inventory, recorded: recorded.sort() };
  };

  /** Parent > Child > Grandchild in cdkd asset mode: every template names the next one in the bootstrap bucket. */
  const threeLevels = async (version: string, retention: number) => {
    const gc = await publish(`gc-${version}.json`, {
      Resources: { Q: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: retention } } },
    });
    return publish(`child-${version}.json`, {
      Resources: { Grandchild: { Type: 'AWS::CloudFormation::Stack', Properties: { TemplateURL: gc } } },
    });
  };
  const retentionOf = async (stackName: string) =>
    (await store.backend.getState(stackName, REGION))!.state.resources.Q.properties?.MessageRetentionPeriod;
  const failTopicCreates = () =>
    ctx.emulator.control.setTypeSettings('AWS::SNS::Topic', {
      failWith: { errorCode: 'InvalidRequest', message: 'injected', operations: ['CREATE'], count: 100 },
    });

  describe('cdkd rollback of a nested-stack update in cdkd asset mode', () => {
    const updateThatFails = async () => {
      const v1 = await threeLevels('v1', 600);
      expect((await deploy('P', { Resources: { Child: nested(v1) } })).ok).toBe(true);
      const v2 = await threeLevels('v2', 1200);
      await failTopicCreates();
      // The grandchild's queue is updated (the child deploy completes), then the parent's topic is refused.
      const failed = await deploy(
        'P',
        {
          Resources: {
            Child: nested(v2),
            After: { Type: 'AWS::SNS::Topic', Properties: {}, DependsOn: 'Child' },
          },
        },
        {},
        false,
      );
      expect(failed).toEqual(expect.objectContaining({ ok: false, journalKept: true }));
      expect(await retentionOf('P~Child~Grandchild')).toBe(1200);
    };

    const rollbackP = () =>
      rollbackStack({ stackName: 'P', region: REGION, store, provisioner, ioHost: host });

    it('returns every level to its pre-deploy state with the rewrite the deploy recorded', async () => {
      await updateThatFails();
      const result = await rollbackP();
      expect(result.failed).toEqual([]);
      expect(result.clean).toBe(true);
      expect(await retentionOf('P~Child~Grandchild')).toBe(600);
      const child = (await store.backend.getState('P~Child', REGION))!.state;
      expect(child.resources.Grandchild.properties?.TemplateURL).toBe(
        `https://s3.${REGION}.amazonaws.com/${assets}/gc-v1.json`,
      );
      const { inventory, recorded } = await inventoryMatchesState('P');
      expect(inventory).toEqual(recorded);
      expect(await store.journals.read('P', REGION)).toBeUndefined();
    });

    it('a journal an earlier cdkd wrote (no rewrite recorded) says so, fails on the template and keeps the journal', async () => {
      await updateThatFails();
      const journal = (await store.journals.read('P', REGION))!;
      expect(journal.segments[0].assetNameRewrite).toEqual(rewrite());
      await store.journals.write({
        ...journal,
        segments: journal.segments.map(({ assetNameRewrite: _r, ...rest }) => rest),
      });
      const result = await rollbackP();
      expect(result.clean).toBe(false);
      expect(result.failed).toEqual([
        expect.objectContaining({
          logicalId: 'Child',
          error: expect.objectContaining({ message: expect.stringMatching(/bucket does not exist/) }),
        }),
      ]);
      expect(host.messages.map((m) => m.message).join('\n')).toMatch(
        /P: this journal was written by an earlier cdkd, which did not record the asset storage-name rewrite/,
      );
      expect((await store.journals.read('P', REGION))!.segments).toHaveLength(1);
    });
  });

  describe('a stale child journal', () => {
    it('an unchanged nested stack whose grandchild a --no-rollback failure left half-updated is deployed again', async () => {
      const v1 = await threeLevels('v1', 600);
      expect((await deploy('J', { Resources: { Child: nested(v1) } })).ok).toBe(true);
      // v2: the grandchild's queue is updated, then its new topic is refused; every level keeps its journal.
      const gc = await publish('gc-v2.json', {
        Resources: {
          Q: { Type: 'AWS::SQS::Queue', Properties: { MessageRetentionPeriod: 1200 } },
          T: { Type: 'AWS::SNS::Topic', Properties: {}, DependsOn: 'Q' },
        },
      });
      const v2 = await publish('child-v2.json', {
        Resources: { Grandchild: { Type: 'AWS::CloudFormation::Stack', Properties: { TemplateURL: gc } } },
      });
      await failTopicCreates();
      const failed = await deploy('J', { Resources: { Child: nested(v2) } }, {}, false);
      expect(failed.ok).toBe(false);
      expect(await retentionOf('J~Child~Grandchild')).toBe(1200);
      for (const name of ['J', 'J~Child', 'J~Child~Grandchild'])
        expect(await store.journals.read(name, REGION)).toBeDefined();

      // The app is reverted: the parent's template is v1 again, the nested stack unchanged in it.
      await ctx.emulator.control.setTypeSettings('AWS::SNS::Topic', {});
      host.messages.length = 0;
      const reverted = await deploy('J', { Resources: { Child: nested(v1) } });
      expect(reverted.failed).toEqual([]);
      expect(reverted.ok).toBe(true);
      expect(reverted.noChanges).toBe(false);
      expect(host.messages.map((m) => m.message)).toContainEqual(
        expect.stringMatching(
          /^J > Child, J > Child > Grandchild: a rollback journal left by an earlier deploy that did not finish; the nested stack Child is unchanged in the template but is deployed again.*cdkd rollback J first/,
        ),
      );
      expect(await retentionOf('J~Child~Grandchild')).toBe(600);
      for (const name of ['J', 'J~Child', 'J~Child~Grandchild'])
        expect(await store.journals.read(name, REGION)).toBeUndefined();
      const { inventory, recorded } = await inventoryMatchesState('J');
      expect(inventory).toEqual(recorded);

      // Settled: the next deploy of the same app has nothing to do.
      expect((await deploy('J', { Resources: { Child: nested(v1) } })).noChanges).toBe(true);
    });
  });

  describe("a child's warnings", () => {
    /** Parent > Child > Grandchild, the grandchild holding these resources. */
    const levels = async (version: string, resources: Record<string, unknown>) => {
      const gc = await publish(`warn-gc-${version}.json`, { Resources: resources });
      return publish(`warn-child-${version}.json`, {
        Resources: { Grandchild: { Type: 'AWS::CloudFormation::Stack', Properties: { TemplateURL: gc } } },
      });
    };
    const queue = { Q: { Type: 'AWS::SQS::Queue', Properties: {} } };
    const group = {
      G: { Type: 'AWS::Logs::LogGroup', Properties: { LogGroupName: 'w-group' }, DependsOn: 'Q' },
    };
    const unproven = {
      stackName: 'W~Child~Grandchild',
      warning: expect.stringMatching(/w-group .*no identity/),
    };
    const namedLine = /\n {2}W > Child > Grandchild: .*w-group .*no identity/;
    /** What a destroy or rollback of W is given. */
    const onW = () => ({ stackName: 'W', region: REGION, store, provisioner, ioHost: host });
    /** The command's error: exit 2, with the grandchild's line named by its stacks. */
    const expectNamedExit2 = (warned: CdkdError | undefined, code: string) => {
      expect(warned?.code).toBe(code);
      expect(warned?.exitCode).toBe(2);
      expect(warned?.message).toMatch(namedLine);
    };
    /** The grandchild's log group is made, then its create fails (Cloud Control records no identity of it). */
    const failGroupCreate = (rollback: boolean) =>
      ctx.emulator.control
        .setTypeSettings('AWS::Logs::LogGroup', {
          failWith: { errorCode: 'NotStabilized', afterCreate: true, count: 1 },
        })
        .then(async () =>
          deploy(
            'W',
            { Resources: { Child: nested(await levels('v1', { ...queue, ...group })) } },
            {},
            rollback,
          ),
        );

    it('a leftover a grandchild left unproven reaches the top-level deploy result, named, and the deploy exits 2', async () => {
      expect((await failGroupCreate(false)).ok).toBe(false);

      // The next deploy drops the group from the template: Cloud Control reports no identity of what it
      // made and the name is free for anything once the group is gone, so it is left, with a warning.
      const next = await deploy('W', { Resources: { Child: nested(await levels('v2', queue)) } });
      expect(next.failed).toEqual([]);
      expect(next.ok).toBe(true);
      expect(next.warnings).toEqual([]);
      expect(next.nestedWarnings).toEqual([unproven]);
      const warned = renderDeployWarnings({ stacks: [next], failedStacks: [], skippedStacks: [], ok: true });
      expectNamedExit2(warned, 'DEPLOY_WARNINGS');
    });

    it("the grandchild's automatic rollback keeping what its failed create made reaches the top-level deploy result", async () => {
      // DeletionPolicy Retain: the automatic rollback keeps the group the failed create made, with a warning.
      const kept = { G: { ...group.G, DeletionPolicy: 'Retain' } };
      await ctx.emulator.control.setTypeSettings('AWS::Logs::LogGroup', {
        failWith: { errorCode: 'NotStabilized', afterCreate: true, count: 1 },
      });
      const failed = await deploy('W', {
        Resources: { Child: nested(await levels('v1', { ...queue, ...kept })) },
      });
      expect(failed.ok).toBe(false);
      expect(failed.rollback?.clean).toBe(true);
      expect(failed.rollback?.warnings).toEqual([]);
      expect(failed.nestedWarnings).toEqual([
        {
          stackName: 'W~Child~Grandchild',
          warning: expect.stringMatching(/^G: .*w-group.* is kept .*no longer tracked/),
        },
      ]);
      const report = renderDeployFailure({
        stacks: [failed],
        failedStacks: [],
        skippedStacks: [],
        ok: false,
      });
      expect(report.message).toMatch(/\n {4}warning: W > Child > Grandchild: G: .*w-group.* is kept/);
    });

    it('destroying the parent: the grandchild leaving the unproven leftover reaches the top level, exit 2', async () => {
      expect((await failGroupCreate(false)).ok).toBe(false);
      const destroyed = await destroyStack(onW());
      expect(destroyed.complete).toBe(true);
      expect(destroyed.warnings).toEqual([]);
      expect(destroyed.nestedWarnings).toEqual([unproven]);
      expectNamedExit2(renderDestroyWarnings([destroyed]), 'DESTROY_WARNINGS');
    });

    it("cdkd rollback of the parent: the grandchild's warning is named Parent > Child > Grandchild, exit 2", async () => {
      expect((await failGroupCreate(false)).ok).toBe(false);
      const rolled = await rollbackStack(onW());
      expect(rolled.clean).toBe(true);
      // As the command lists them: each nested stack's result before its parent's.
      const results = [...(rolled.nestedStacks ?? []), rolled];
      expectNamedExit2(renderRollbackWarnings(results), 'ROLLBACK_WARNINGS');
    });

    it("reverting the parent's journal alone: the child's destroy passes the grandchild's warning up, exit 2", async () => {
      expect((await failGroupCreate(false)).ok).toBe(false);
      const rolled = await rollbackStack({ ...onW(), nested: false });
      expect(rolled.failed).toEqual([]);
      expect(rolled.warnings).toEqual([]);
      expect(rolled.nestedWarnings).toEqual([unproven]);
      expectNamedExit2(renderRollbackWarnings([rolled]), 'ROLLBACK_WARNINGS');
    });
  });

  describe('TimeoutInMinutes', () => {
    it('expiry (an injected clock) stops the child, fails the nested stack and rolls every level back', async () => {
      const timers: Array<{ ms: number; fire: () => void; cancelled: boolean }> = [];
      const timed = provisionerWith({
        nestedStackTimeouts: (ms, fire) => {
          const t = { ms, fire, cancelled: false };
          timers.push(t);
          return () => (t.cancelled = true);
        },
      });
      // The clock passes the timeout while the child's first queue is being made: the second is never started.
      const events = new RecordingIoHost();
      const ioHost = {
        notify: (msg: Parameters<RecordingIoHost['notify']>[0]) => {
          events.notify(msg);
          const e = msg.data as ResourceEvent | undefined;
          if (msg.code === RESOURCE_EVENT && e?.stackName === 'T~Child' && e.logicalId === 'First')
            if (e.status === 'started') timers.forEach((t) => t.fire());
        },
      };
      const child = await publish('timed.json', {
        Resources: {
          First: { Type: 'AWS::SQS::Queue', Properties: {} },
          Second: { Type: 'AWS::SQS::Queue', Properties: {}, DependsOn: 'First' },
        },
      });
      const result = await deployStack(
        {
          stackName: 'T',
          region: REGION,
          template: parseTemplate({ Resources: { Child: nested(child, { TimeoutInMinutes: 5 }) } }),
          replacements: rewrite(),
        },
        { store, provisioner: timed, schemas, factory: store.factory, ioHost, concurrency: 4 },
      );
      expect(timers.map((t) => t.ms)).toEqual([5 * 60_000]);
      expect(timers[0].cancelled).toBe(true);
      expect(result.ok).toBe(false);
      expect(result.failed).toEqual([
        expect.objectContaining({
          logicalId: 'Child',
          error: expect.objectContaining({
            code: 'NESTED_STACK_TIMEOUT',
            message: 'Nested stack T~Child did not finish within its TimeoutInMinutes (5).',
          }),
        }),
      ]);
      const started = events.messages
        .filter((m) => m.code === RESOURCE_EVENT)
        .map((m) => m.data as ResourceEvent)
        .filter((e) => e.status === 'started')
        .map((e) => `${e.stackName}/${e.logicalId}`);
      expect(started).not.toContain('T~Child/Second');
      // Rolled back as CloudFormation does: the child's queue is gone with it, and so is every record.
      expect(result.rollback?.clean).toBe(true);
      expect(await inventoryMatchesState('T')).toEqual({ inventory: [], recorded: [] });
      expect(await store.backend.listStacks()).toEqual([]);
      expect(await store.journals.read('T', REGION)).toBeUndefined();
      expect(await store.journals.read('T~Child', REGION)).toBeUndefined();
    });
  });

  describe('NoEcho child outputs', () => {
    const SECRET = 'correct-horse-battery-staple';
    /** Everything cdkd wrote to the state bucket, and every event and log line. */
    const everythingWritten = async () => {
      const s3 = store.factory.get(S3Client, { region: REGION });
      const listed = await s3.send(new ListObjectVersionsCommand({ Bucket: store.bucket.name }));
      const bodies: string[] = [];
      for (const v of listed.Versions ?? []) {
        const o = await s3.send(
          new GetObjectCommand({ Bucket: store.bucket.name, Key: v.Key, VersionId: v.VersionId }),
        );
        bodies.push(`${v.Key}: ${await o.Body!.transformToString()}`);
      }
      return { bodies, said: host.messages.map((m) => `${m.message} ${JSON.stringify(m.data ?? null)}`) };
    };
    /** Nothing cdkd stored holds `secret`; its messages neither, and what it would print is masked. */
    const expectMaskedEverywhere = async (secret: string) => {
      const { bodies, said } = await everythingWritten();
      expect(bodies.filter((b) => b.includes(secret))).toEqual([]);
      expect(host.messages.filter((m) => m.message.includes(secret))).toEqual([]);
      expect(said.map(redactSecretsInText).filter((b) => b.includes(secret))).toEqual([]);
    };
    const ssmValue = async (name: string) =>
      (await store.factory.get(SSMClient, { region: REGION }).send(new GetParameterCommand({ Name: name })))
        .Parameter?.Value;

    it('a NoEcho parameter passed down reaches the parent resource in clear in the same run, masked everywhere cdkd writes', async () => {
      const child = await publish('secret-child.json', {
        Parameters: { Password: { Type: 'String', NoEcho: true } },
        Resources: { Q: { Type: 'AWS::SQS::Queue', Properties: {} } },
        Outputs: { Dsn: { Value: { 'Fn::Sub': 'postgres://app:${Password}@db' } } },
      });
      const result = await deploy(
        'S',
        {
          Parameters: { Password: { Type: 'String', NoEcho: true } },
          Resources: {
            Child: nested(child, { Parameters: { Password: { Ref: 'Password' } } }),
            Dsn: {
              Type: 'AWS::SSM::Parameter',
              Properties: { Name: 'dsn', Type: 'String', Value: { 'Fn::GetAtt': ['Child', 'Outputs.Dsn'] } },
            },
          },
        },
        { parameterValues: { Password: SECRET } },
      );
      expect(result.failed).toEqual([]);
      expect(result.ok).toBe(true);
      expect(await ssmValue('dsn')).toBe(`postgres://app:${SECRET}@db`);
      await expectMaskedEverywhere(SECRET);
    });

    /** A parameter holding the child's Token output. */
    const tokenCopy = (name: string) => ({
      Type: 'AWS::SSM::Parameter',
      Properties: { Name: name, Type: 'String', Value: { 'Fn::GetAtt': ['Child', 'Outputs.Token'] } },
    });

    it('a NoEcho custom-resource value made in the child reaches the parent resource in clear in the same run', async () => {
      const token = await handlerFunction();
      const child = await publish('minted-child.json', {
        Resources: { Token: { Type: 'Custom::Token', Properties: { ServiceToken: token, Name: 'db' } } },
        Outputs: { Token: { Value: { 'Fn::GetAtt': ['Token', 'Value'] } } },
      });
      const result = await deploy(
        'M',
        {
          Resources: {
            Child: nested(child),
            Copy: tokenCopy('copy'),
          },
        },
        {},
        true,
        withCustomResources(),
      );
      expect(result.failed).toEqual([]);
      expect(result.ok).toBe(true);
      expect(await ssmValue('copy')).toBe(MINTED);
      await expectMaskedEverywhere(MINTED);

      // A later process, the child unchanged: only the mask is left, so the new consumer is refused, never sent ***.
      clearSecrets();
      const later = await deploy(
        'M',
        {
          Resources: {
            Child: nested(child),
            Copy: tokenCopy('copy'),
            Again: tokenCopy('again'),
          },
        },
        {},
        true,
        withCustomResources(),
      );
      expect(later.ok).toBe(false);
      expect(later.failed).toEqual([
        expect.objectContaining({
          logicalId: 'Again',
          error: expect.objectContaining({ code: 'MASKED_SECRET_VALUE' }),
        }),
      ]);
      expect(await ssmValue('copy')).toBe(MINTED);
      await expect(ssmValue('again')).rejects.toThrow(/ParameterNotFound|not found/i);
    });
  });
});

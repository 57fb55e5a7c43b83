/**
 * Nested stacks deployed and rolled back against the emulator in process:
 * `cdkd rollback` of a nested-stack update redeploys each level with the asset
 * storage-name rewrite its deploy used (recorded in the journal), a child's stale
 * journal is not ignored when the nested stack is unchanged, `TimeoutInMinutes`
 * expiry (an injected timer) fails and rolls back the nested stack, and a NoEcho
 * child output reaches the parent's resource in clear within the same run while
 * state, journal and events keep it masked.
 */
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { deployStack } from '../../../src/engine/deploy-stack';
import type { DeployStackInput, DeployStackResult } from '../../../src/engine/deploy-stack';
import { ResourceProvisioner } from '../../../src/engine/provisioner';
import { rollbackStack } from '../../../src/engine/rollback-stack';
import { ProviderRegistry } from '../../../src/provisioning/provider-registry';
import { SchemaStore } from '../../../src/provisioning/schema-store';
import { clearSecrets } from '../../../src/template/redaction';
import { parseTemplate } from '../../../src/template/types';
import { RecordingIoHost, createLogger } from '../../../src/util/io-host';
import { createBucket, testStore, useEmulator } from '../state/helpers';
import type { TestStore } from '../state/helpers';

const REGION = 'us-east-1';
const schemas = SchemaStore.default();
jest.setTimeout(90_000);

/** What the asset manifest names (never created) and where cdkd published the templates. */
const BOOTSTRAP_BUCKET = 'cdk-hnb659fds-assets-123456789012-us-east-1';

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
    provisioner = new ResourceProvisioner({
      registry: ProviderRegistry.fromPacks([], schemas),
      schemas,
      factory: store.factory,
      logger: createLogger(host),
      retry: { maxAttempts: 1, baseDelayMs: 1 },
    });
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
  ): Promise<DeployStackResult> =>
    deployStack(
      { stackName, region: REGION, template: parseTemplate(template), replacements: rewrite(), ...extra },
      { store, provisioner, schemas, factory: store.factory, ioHost: host, concurrency: 4, rollback },
    );
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

    it('returns every level to its pre-deploy state with the rewrite the deploy recorded', async () => {
      await updateThatFails();
      const result = await rollbackStack({
        stackName: 'P',
        region: REGION,
        store,
        provisioner,
        ioHost: host,
      });
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
      const result = await rollbackStack({
        stackName: 'P',
        region: REGION,
        store,
        provisioner,
        ioHost: host,
      });
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
});

/**
 * CDK's own custom-resource handlers through the built CLI, run by the
 * emulator's Lambda: `autoDeleteObjects` (the bucket's objects are gone after
 * destroy), `logRetention`, `iam.OpenIdConnectProvider`, an `AwsCustomResource`
 * whose SSM call lands in the emulator, and a
 * `custom-resources.Provider` with `onEvent` — create, an update that sends
 * `OldResourceProperties` and changes the physical id (the old one gets a
 * Delete after the deploy), and destroy, the inventory equal to state after
 * each step. A second Provider has `isComplete`: every request goes through
 * the framework's waiter, an AWS::StepFunctions::StateMachine the emulator's
 * Step Functions runs (its Retry waits made instant with the emulator's
 * `stepFunctionsTimeScale`), which polls isComplete until it answers complete
 * with Data.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { IAMClient, ListOpenIDConnectProvidersCommand } from '@aws-sdk/client-iam';
import { ListObjectVersionsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetParameterCommand, GetParametersByPathCommand, SSMClient } from '@aws-sdk/client-ssm';
import {
  ROOT,
  STATE_BUCKET,
  expectExit,
  inventoryResources,
  startHarness,
  stateResources,
} from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const APP = path.join(ROOT, 'test', 'e2e', 'apps', 'custom-resources-app');
const STACK = 'E2eCustomResources';

describe("CDK's custom-resource handlers", () => {
  let h: CdkdHarness;
  let out: string;
  let s3: S3Client;
  let ssm: SSMClient;
  let logs: CloudWatchLogsClient;
  let iam: IAMClient;

  const deploy = (...context: string[]) =>
    h.cdkd(
      [
        'deploy',
        '--require-approval',
        'never',
        '--progress',
        'events',
        '-o',
        out,
        '-c',
        `stackName=${STACK}`,
        ...context.flatMap((c) => ['-c', c]),
      ],
      { cwd: APP },
    );
  const parameter = async (name: string) => {
    try {
      return (await ssm.send(new GetParameterCommand({ Name: name }))).Parameter?.Value;
    } catch (err) {
      if ((err as Error).name === 'ParameterNotFound') return undefined;
      throw err;
    }
  };
  /**
   * What the app's own resources are in the emulator: without what the handlers made as their
   * side effects (the SSM parameters and the OIDC provider, checked on their own) and the log groups Lambda makes for
   * every function that runs (as in AWS, left behind by a destroy).
   */
  const appObjects = async () =>
    inventoryResources(await h.appInventory()).filter(
      (id) =>
        !/^(AWS::Logs::LogGroup \/aws\/lambda\/|AWS::SSM::Parameter \/e2e\/|AWS::IAM::OIDCProvider )/.test(
          id,
        ),
    );
  const expectInventoryMatchesState = async () => {
    const state = await h.readState(STACK);
    // Inline IAM policies have no object of their own; a custom resource is what its handler made.
    const own = (ids: string[]) =>
      ids.filter((id) => !/^(AWS::IAM::Policy |Custom::|AWS::CloudFormation::CustomResource )/.test(id));
    expect(await appObjects()).toEqual(own(stateResources(state)));
    return state!;
  };
  const oidcProviders = async () =>
    ((await iam.send(new ListOpenIDConnectProvidersCommand({}))).OpenIDConnectProviderList ?? []).map(
      (p) => p.Arn,
    );
  /** Response placeholders in the state bucket, any version. */
  const placeholders = async () => {
    const out = await s3.send(
      new ListObjectVersionsCommand({ Bucket: STATE_BUCKET, Prefix: 'custom-resource-responses/' }),
    );
    return [...(out.Versions ?? []), ...(out.DeleteMarkers ?? [])].map((v) => v.Key);
  };
  /** How many times isComplete was polled for each request it saw (SSM parameters named by request id). */
  const pollCounts = async () =>
    ((await ssm.send(new GetParametersByPathCommand({ Path: '/e2e/polls/' }))).Parameters ?? []).map(
      (p) => p.Value,
    );
  const byType = (state: Awaited<ReturnType<CdkdHarness['readState']>>, type: string) =>
    Object.values(state!.resources).filter((r) => r.resourceType === type);

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-custom-resources-out-'));
    const client = {
      region: 'us-east-1',
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    };
    s3 = new S3Client({ ...client, forcePathStyle: true });
    ssm = new SSMClient(client);
    logs = new CloudWatchLogsClient(client);
    iam = new IAMClient(client);
    expectExit(await h.cdkd(['bootstrap']));
    // The waiter retries isComplete every queryInterval (5 s): no real waiting in the test.
    await h.emulator.control.updateSettings({ stepFunctionsTimeScale: 0 });
  });

  afterAll(async () => {
    s3?.destroy();
    ssm?.destroy();
    logs?.destroy();
    iam?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('creates: each handler runs, its SDK calls land in the emulator, Data becomes attributes', async () => {
    const result = await deploy();
    expectExit(result);
    const state = await expectInventoryMatchesState();
    expect(byType(state, 'Custom::S3AutoDeleteObjects')).toHaveLength(1);
    expect(byType(state, 'Custom::AWS')[0].physicalId).toBe('/e2e/custom-resource');
    const thing = byType(state, 'AWS::CloudFormation::CustomResource').find(
      (r) => r.physicalId !== 'waited',
    )!;
    expect(thing.physicalId).toBe('thing-one');
    expect(thing.provisionedBy).toBe('sdk');
    expect(state.outputs).toMatchObject({ Echo: 'one', Old: 'none', RequestType: 'Create' });
    expect(await parameter('/e2e/custom-resource')).toBe('made by v1');
    expect(await placeholders()).toEqual([]);
    // logRetention: the handler set the function's log group retention.
    const group = `/aws/lambda/${state.outputs!.OnEventName as string}`;
    const groups = await logs.send(new DescribeLogGroupsCommand({ logGroupNamePrefix: group }));
    expect(groups.logGroups?.find((g) => g.logGroupName === group)?.retentionInDays).toBe(7);
    // OpenIdConnectProvider: the handler made it in IAM; its ARN is the physical id.
    const [oidc] = byType(state, 'Custom::AWSCDKOpenIdConnectProvider');
    expect(await oidcProviders()).toEqual([oidc.physicalId]);
    // Provider with isComplete: the waiter state machine polled it three times, its Data resolved.
    expect(byType(state, 'AWS::StepFunctions::StateMachine')).toHaveLength(1);
    expect(state.outputs).toMatchObject({
      WaitedPolls: '3',
      WaitedName: 'one',
      WaitedOld: 'none',
      WaitedStarted: 'Create',
    });
    expect(await pollCounts()).toEqual(['3']);
  });

  it('updates: Update carries OldResourceProperties; a new physical id deletes the old one after the deploy', async () => {
    const result = await deploy('variant=v2');
    expectExit(result);
    const state = await expectInventoryMatchesState();
    const thing = byType(state, 'AWS::CloudFormation::CustomResource').find(
      (r) => r.physicalId !== 'waited',
    )!;
    expect(thing.physicalId).toBe('thing-two');
    expect(state.outputs).toMatchObject({ Echo: 'two', Old: 'one', RequestType: 'Update' });
    expect(await parameter('/e2e/deleted/thing-one')).toBe('deleted');
    expect(state.deposed ?? []).toEqual([]);
    expect(await parameter('/e2e/custom-resource')).toBe('made by v2');
    expect(await placeholders()).toEqual([]);
    // The Update went through the waiter too, with OldResourceProperties.
    expect(state.outputs).toMatchObject({
      WaitedPolls: '3',
      WaitedName: 'two',
      WaitedOld: 'one',
      WaitedStarted: 'Update',
    });
    expect(await pollCounts()).toEqual(['3', '3']);
  });

  it('destroys: autoDeleteObjects empties the bucket, the AwsCustomResource deletes its parameter', async () => {
    const bucket = (await h.readState(STACK))!.outputs!.BucketName as string;
    for (const key of ['a.txt', 'dir/b.txt'])
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: key }));
    const result = await h.cdkd(
      ['destroy', '--force', '--progress', 'events', '-o', out, '-c', `stackName=${STACK}`],
      {
        cwd: APP,
      },
    );
    expectExit(result);
    expect(await h.readState(STACK)).toBeUndefined();
    expect(await appObjects()).toEqual([]);
    expect(await parameter('/e2e/custom-resource')).toBeUndefined();
    expect(await parameter('/e2e/deleted/thing-two')).toBe('deleted');
    expect(await oidcProviders()).toEqual([]);
    // The Delete was polled through the waiter before its state machine went (appObjects is empty).
    expect(await pollCounts()).toEqual(['3', '3', '3']);
    await expect(s3.send(new ListObjectVersionsCommand({ Bucket: bucket }))).rejects.toMatchObject({
      name: 'NoSuchBucket',
    });
  });
});

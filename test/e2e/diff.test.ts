/**
 * `cdkd diff` with the built CLI and real CDK apps: against an empty state
 * (everything is created), against a state record written by the test
 * (an update, a replacement, a deletion, an unchanged resource), and for a
 * Lambda whose code is a file asset published into the emulator.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ACCOUNT, REGION, ROOT, STATE_BUCKET, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import type { StackPlan } from '../../src/plan/types';
import type { StackState } from '../../src/state/types';

const BASIC = path.join(ROOT, 'examples', 'basic-app');
const LAMBDA = path.join(ROOT, 'examples', 'lambda-asset-app');
const STACK = 'E2eDiff';

describe('cdkd diff', () => {
  let h: CdkdHarness;
  let out: string;
  let s3: S3Client;

  const diff = async (cwd: string, ...args: string[]) => {
    const result = await h.cdkd(['diff', '--json', '-o', out, ...args], { cwd });
    expectExit(result);
    return (JSON.parse(result.stdout) as { stacks: StackPlan[] }).stacks[0];
  };
  const actions = (plan: StackPlan) => Object.fromEntries(plan.resources.map((r) => [r.logicalId, r.action]));

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-diff-out-'));
    s3 = new S3Client({
      region: REGION,
      endpoint: h.emulator.url,
      forcePathStyle: true,
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    });
    expectExit(await h.cdkd(['bootstrap']));
  });

  afterAll(async () => {
    s3?.destroy();
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('shows every resource as created against an empty state, and --fail exits 1', async () => {
    const plan = await diff(BASIC, '-c', `stackName=${STACK}`);
    expect(plan.hasChanges).toBe(true);
    expect(Object.values(actions(plan))).toEqual(['CREATE', 'CREATE', 'CREATE']);
    expect(plan.resources.map((r) => r.resourceType).sort()).toEqual([
      'AWS::Logs::LogGroup',
      'AWS::SQS::Queue',
      'AWS::SSM::Parameter',
    ]);

    const text = await h.cdkd(['diff', '-o', out, '-c', `stackName=${STACK}`], { cwd: BASIC });
    expectExit(text);
    expect(text.stdout).toMatch(/\[\+\] AWS::SQS::Queue/);
    const fail = await h.cdkd(['diff', '--fail', '-o', out, '-c', `stackName=${STACK}`], { cwd: BASIC });
    expect(fail.code).toBe(1);
  });

  it('compares with a recorded state: update, replacement, deletion and no change', async () => {
    const desired = await diff(BASIC, '-c', `stackName=${STACK}`);
    const byType = (type: string) => desired.resources.find((r) => r.resourceType === type)!;
    const queue = byType('AWS::SQS::Queue');
    const parameter = byType('AWS::SSM::Parameter');
    const logGroup = byType('AWS::Logs::LogGroup');
    const record = (r: typeof queue, physicalId: string, properties: Record<string, unknown>) => ({
      physicalId,
      resourceType: r.resourceType,
      properties,
      attributes: {},
      dependencies: [],
      provisionedBy: 'cc-api' as const,
      ...(r.desired?.deletionPolicy ? { deletionPolicy: r.desired.deletionPolicy } : {}),
      ...(r.desired?.updateReplacePolicy ? { updateReplacePolicy: r.desired.updateReplacePolicy } : {}),
    });
    const state: StackState = {
      version: 9,
      stackName: STACK,
      region: REGION,
      resources: {
        [queue.logicalId]: record(queue, `http://sqs/${ACCOUNT}/old-queue`, {
          ...queue.desired!.properties,
          QueueName: 'old-queue',
        }),
        [parameter.logicalId]: record(parameter, 'param-1', {
          ...parameter.desired!.properties,
          Value: 'an older value',
        }),
        [logGroup.logicalId]: record(logGroup, 'log-group-1', logGroup.desired!.properties),
        OldTopic: {
          physicalId: `arn:aws:sns:${REGION}:${ACCOUNT}:old`,
          resourceType: 'AWS::SNS::Topic',
          properties: {},
          attributes: {},
          dependencies: [],
        },
      },
      outputs: {},
      exportNames: [],
      lastModified: Date.now(),
    };
    await s3.send(
      new PutObjectCommand({
        Bucket: STATE_BUCKET,
        Key: `cdkd/${STACK}/${REGION}/state.json`,
        Body: JSON.stringify(state),
      }),
    );

    const plan = await diff(BASIC, '-c', `stackName=${STACK}`);
    expect(actions(plan)).toEqual({
      [queue.logicalId]: 'REPLACE',
      [parameter.logicalId]: 'UPDATE',
      [logGroup.logicalId]: 'NO_CHANGE',
      OldTopic: 'DELETE',
    });
    const replaced = plan.resources.find((r) => r.logicalId === queue.logicalId)!;
    expect(replaced.propertyChanges).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: 'Properties.QueueName',
          before: 'old-queue',
          causesReplacement: true,
        }),
      ]),
    );
    const updated = plan.resources.find((r) => r.logicalId === parameter.logicalId)!;
    expect(updated.propertyChanges).toEqual([
      expect.objectContaining({ path: 'Properties.Value', before: 'an older value' }),
    ]);
    // The queue's URL is an output: it is known only after the replacement.
    expect(plan.outputs.find((o) => o.name === 'QueueUrl')).toEqual(
      expect.objectContaining({ action: 'ADD', unknown: true }),
    );
  });

  it('points a Lambda at the published asset, and shows no change once deployed', async () => {
    const before = await diff(LAMBDA, '-c', 'stackName=E2eDiffLambda');
    const fn = before.resources.find((r) => r.resourceType === 'AWS::Lambda::Function')!;
    expect(fn.action).toBe('CREATE');
    const code = fn.desired!.properties.Code as { S3Bucket: string; S3Key: string };
    expect(code.S3Bucket).toBe(`cdkd-assets-${ACCOUNT}-${REGION}`);

    expectExit(
      await h.cdkd(
        // The function's role is new permissions: CI approves them by flag, as with the CDK CLI.
        [
          'deploy',
          '--require-approval',
          'never',
          '--progress',
          'events',
          '-o',
          out,
          '-c',
          'stackName=E2eDiffLambda',
        ],
        { cwd: LAMBDA },
      ),
    );
    await s3.send(new HeadObjectCommand({ Bucket: code.S3Bucket, Key: code.S3Key }));
    const after = await diff(LAMBDA, '-c', 'stackName=E2eDiffLambda');
    expect(after.hasChanges).toBe(false);
  });
});

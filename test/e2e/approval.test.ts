/**
 * Safe defaults, as the CDK CLI has them: a deploy that adds IAM permissions
 * shows them and asks on a terminal (refused without one unless approved by
 * flag); `cdkd destroy` asks on a terminal and refuses without one unless
 * --force (or --yes).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';
import { runOnTerminal } from './support/terminal';

const LAMBDA = path.join(ROOT, 'examples', 'lambda-asset-app');
const BASIC = path.join(ROOT, 'examples', 'basic-app');
const QUESTION = /Deploy these changes\? \[y\/N\]/;

describe('approvals and confirmations', () => {
  let h: CdkdHarness;
  let out: string;
  const stack = (name: string) => ['-o', out, '-c', `stackName=${name}`];

  beforeAll(async () => {
    h = await startHarness();
    out = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-approval-out-'));
    const bootstrap = await h.cdkd(['bootstrap']);
    expectExit(bootstrap);
    // The container-asset repository is not mentioned until an app has an image asset.
    expect(`${bootstrap.stdout}${bootstrap.stderr}`).not.toMatch(/ECR|container/i);
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('without a terminal, refuses a deploy that adds IAM permissions, after showing them', async () => {
    const result = await h.cdkd(['deploy', '--progress', 'events', ...stack('E2eRefused')], { cwd: LAMBDA });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('IAM Statement Changes');
    expect(result.stderr).toContain('sts:AssumeRole');
    expect(result.stderr).toContain('AWSLambdaBasicExecutionRole');
    expect(result.stderr).toContain(
      "E2eRefused: this deploy adds or widens permissions or network access, and --require-approval is 'broadening'. Deploy these changes? Refusing to go ahead without confirmation: this is a CI run (--ci, or the CI environment variable).",
    );
    expect(result.stderr).toContain('Pass --require-approval never (or --yes) to go ahead without a prompt.');
    expect(await h.readState('E2eRefused')).toBeUndefined();
    expect(await h.appInventory()).toEqual([]);
  });

  it('on a terminal, shows the changes and deploys when the answer is yes', async () => {
    const result = await runOnTerminal(
      ['deploy', '--no-ci', '--progress', 'events', ...stack('E2eApproved')],
      {
        cwd: LAMBDA,
        env: h.env,
        answers: [{ when: QUESTION, type: 'y' }],
      },
    );
    expect(result.output).toContain('IAM Statement Changes');
    expect(result.code).toBe(0);
    expect(await h.readState('E2eApproved')).toBeDefined();
  });

  it('with any-change, asks before every change and deploys nothing when the answer is no', async () => {
    const result = await runOnTerminal(
      [
        'deploy',
        '--no-ci',
        '--no-color',
        '--require-approval',
        'any-change',
        '--progress',
        'events',
        ...stack('E2eDeclined'),
      ],
      { cwd: BASIC, env: h.env, answers: [{ when: QUESTION, type: 'n' }] },
    );
    // No permission here: the plan itself is shown (--no-color: without escape codes on the terminal).
    expect(result.output).toContain("--require-approval is 'any-change'");
    expect(result.output).toMatch(/\[\+\] AWS::SQS::Queue/);
    expect(result.code).toBe(1);
    expect(result.output).toContain('E2eDeclined: not deployed; the changes were not approved.');
    expect(await h.readState('E2eDeclined')).toBeUndefined();
  });

  it('approves by flag without a terminal: --yes, or --require-approval never', async () => {
    const yes = await h.cdkd(['deploy', '--yes', '--progress', 'events', ...stack('E2eYes')], {
      cwd: LAMBDA,
    });
    expectExit(yes);
    expect(yes.stderr).toMatch(/Deploy these changes\? yes \(--yes\)/);
    expect(await h.readState('E2eYes')).toBeDefined();
  });

  it('destroy refuses without a terminal unless --force or --yes, as cdk destroy does', async () => {
    const refused = await h.cdkd(['destroy', '--progress', 'events', ...stack('E2eYes')], { cwd: LAMBDA });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Destroy E2eYes (us-east-1)? Their AWS resources will be deleted.');
    expect(refused.stderr).toContain('Pass --force (or --yes) to go ahead without a prompt.');
    const noCi = await h.cdkd(['destroy', '--no-ci', ...stack('E2eYes')], { cwd: LAMBDA });
    expect(noCi.code).toBe(1);
    expect(noCi.stderr).toContain('stdin is not a terminal');
    expect(await h.readState('E2eYes')).toBeDefined();

    const onTerminal = await runOnTerminal(
      ['destroy', '--no-ci', '--progress', 'events', ...stack('E2eYes')],
      {
        cwd: LAMBDA,
        env: h.env,
        answers: [{ when: /will be deleted\. \[y\/N\]/, type: 'y' }],
      },
    );
    expect(onTerminal.code).toBe(0);
    expect(await h.readState('E2eYes')).toBeUndefined();
  });
});

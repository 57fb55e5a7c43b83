/**
 * Apps that read AWS's public AMI parameters (ec2.MachineImage.latest*,
 * ECS-optimized and Bottlerocket images, an Ubuntu alias) deploy against the
 * emulator: the template's SSM-parameter parameters resolve to AMI ids, and
 * `MachineImage.lookup` finds the same Amazon Linux 2023 image through EC2
 * DescribeImages at synthesis. The same app's two unnamed ECS services in one
 * cluster get distinct ARNs.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { expectExit, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const lib = (m: string) => JSON.stringify(require.resolve(m));

const APP = `const cdk = require(${lib('aws-cdk-lib')});
const ec2 = require(${lib('aws-cdk-lib/aws-ec2')});
const ecs = require(${lib('aws-cdk-lib/aws-ecs')});
const app = new cdk.App();
// A lookup needs a concrete account and region: the ones cdkd resolves from the credentials.
const stack = new cdk.Stack(app, 'Images', { env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION } });
const images = {
  Al2023: ec2.MachineImage.latestAmazonLinux2023(),
  Al2023Arm: ec2.MachineImage.latestAmazonLinux2023({ cpuType: ec2.AmazonLinuxCpuType.ARM_64 }),
  Al2: ec2.MachineImage.latestAmazonLinux2(),
  Windows: ec2.MachineImage.latestWindows(ec2.WindowsVersion.WINDOWS_SERVER_2022_ENGLISH_FULL_BASE),
  EcsAl2: ecs.EcsOptimizedImage.amazonLinux2(),
  EcsAl2023: ecs.EcsOptimizedImage.amazonLinux2023(),
  Bottlerocket: new ecs.BottleRocketImage(),
  Ubuntu: ec2.MachineImage.fromSsmParameter('/aws/service/canonical/ubuntu/server/22.04/stable/current/amd64/hvm/ebs-gp2/ami-id'),
  // Found at synthesis by EC2 DescribeImages (the AMI context provider), not by a parameter.
  LookedUp: ec2.MachineImage.lookup({ name: 'al2023-ami-2023.*-kernel-6.1-x86_64', owners: ['amazon'] }),
};
for (const [id, image] of Object.entries(images)) new cdk.CfnOutput(stack, id, { value: image.getImage(stack).imageId });
const cluster = new ecs.CfnCluster(stack, 'Cluster', { clusterName: 'shared' });
for (const id of ['First', 'Second']) {
  const service = new ecs.CfnService(stack, id, { cluster: cluster.ref, taskDefinition: 'web:1', desiredCount: 0 });
  new cdk.CfnOutput(stack, id + 'Arn', { value: service.ref });
}
app.synth();
`;

describe('public AMI parameters and generated identifiers', () => {
  let h: CdkdHarness;
  let dir: string;

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-images-'));
    fs.writeFileSync(path.join(dir, 'app.js'), APP);
    fs.writeFileSync(path.join(dir, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
  });

  afterAll(async () => {
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('deploys an app whose images come from public SSM parameters, with distinct ECS service ARNs', async () => {
    expectExit(await h.cdkd(['deploy', '--all', '-o', path.join(dir, 'out')], { cwd: dir }));
    const state = await h.readState('Images');
    const outputs = state!.outputs as Record<string, string>;
    for (const id of [
      'Al2023',
      'Al2023Arm',
      'Al2',
      'Windows',
      'EcsAl2',
      'EcsAl2023',
      'Bottlerocket',
      'Ubuntu',
      'LookedUp',
    ])
      expect(outputs[id]).toMatch(/^ami-[0-9a-f]{17}$/);
    // The newest Amazon Linux 2023 image is the one its public parameter names.
    expect(outputs.LookedUp).toBe(outputs.Al2023);
    // The lookup's answer is cached in the project's context, as cdk does.
    expect(JSON.stringify(JSON.parse(fs.readFileSync(path.join(dir, 'cdk.context.json'), 'utf8')))).toContain(
      outputs.LookedUp,
    );
    expect(outputs.Al2023).not.toBe(outputs.Al2023Arm);
    expect(outputs.FirstArn).toMatch(/^arn:aws:ecs:us-east-1:123456789012:service\/shared\//);
    expect(outputs.SecondArn).toMatch(/^arn:aws:ecs:us-east-1:123456789012:service\/shared\//);
    expect(outputs.FirstArn).not.toBe(outputs.SecondArn);
  });
});

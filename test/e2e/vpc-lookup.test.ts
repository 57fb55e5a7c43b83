/**
 * `ec2.Vpc.fromLookup` synthesizes against the emulator: toolkit-lib's VPC
 * context provider calls DescribeVpcs, DescribeSubnets, DescribeRouteTables
 * and DescribeVpnGateways, for the default VPC every region has and for a VPC
 * a cdkd deploy made, found by its tag.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DescribeSubnetsCommand, DescribeVpcsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { ACCOUNT, expectExit, REGION, startHarness } from './support/cdkd-cli';
import type { CdkdHarness } from './support/cdkd-cli';

const lib = (m: string) => JSON.stringify(require.resolve(m));

/** An app whose one stack looks a VPC up with the filter in LOOKUP (JSON) and outputs what it found. */
const LOOKUP_APP = `const cdk = require(${lib('aws-cdk-lib')});
const ec2 = require(${lib('aws-cdk-lib/aws-ec2')});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'Lookup', { env: { account: '${ACCOUNT}', region: '${REGION}' } });
const vpc = ec2.Vpc.fromLookup(stack, 'V', JSON.parse(process.env.LOOKUP));
new cdk.CfnOutput(stack, 'VpcId', { value: vpc.vpcId });
new cdk.CfnOutput(stack, 'Zones', { value: vpc.availabilityZones.join(',') });
new cdk.CfnOutput(stack, 'Public', { value: vpc.publicSubnets.map((s) => s.subnetId).join(',') || 'none' });
new cdk.CfnOutput(stack, 'Isolated', { value: vpc.isolatedSubnets.map((s) => s.subnetId).join(',') || 'none' });
new cdk.CfnOutput(stack, 'Vpn', { value: vpc.vpnGatewayId || 'none' });
app.synth();
`;

const NETWORK_APP = `const cdk = require(${lib('aws-cdk-lib')});
const ec2 = require(${lib('aws-cdk-lib/aws-ec2')});
const app = new cdk.App();
const stack = new cdk.Stack(app, 'Network', { env: { account: '${ACCOUNT}', region: '${REGION}' } });
new ec2.Vpc(stack, 'Net', {
  ipAddresses: ec2.IpAddresses.cidr('10.20.0.0/16'),
  maxAzs: 2,
  natGateways: 0,
  subnetConfiguration: [
    { name: 'Web', subnetType: ec2.SubnetType.PUBLIC },
    { name: 'Data', subnetType: ec2.SubnetType.PRIVATE_ISOLATED },
  ],
});
app.synth();
`;

type Outputs = Record<string, { Value: string }>;

describe('ec2.Vpc.fromLookup against the emulator', () => {
  let h: CdkdHarness;
  let dir: string;
  let ec2: EC2Client;

  beforeAll(async () => {
    h = await startHarness();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-vpc-lookup-'));
    for (const name of ['lookup', 'network']) {
      fs.mkdirSync(path.join(dir, name));
      fs.writeFileSync(path.join(dir, name, 'app.js'), name === 'lookup' ? LOOKUP_APP : NETWORK_APP);
      fs.writeFileSync(path.join(dir, name, 'cdk.json'), JSON.stringify({ app: 'node app.js' }));
    }
    ec2 = new EC2Client({
      region: REGION,
      endpoint: h.emulator.url,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
    });
  });

  afterAll(async () => {
    ec2?.destroy();
    await h?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** `cdkd synth --json` of the lookup app with a fresh context, its outputs. */
  async function lookUp(filter: Record<string, unknown>): Promise<Outputs> {
    const cwd = path.join(dir, 'lookup');
    fs.rmSync(path.join(cwd, 'cdk.context.json'), { force: true });
    const result = await h.cdkd(['synth', '--json', '-o', path.join(dir, 'out-lookup')], {
      cwd,
      env: { LOOKUP: JSON.stringify(filter) },
    });
    expectExit(result);
    return (JSON.parse(result.stdout) as { Outputs: Outputs }).Outputs;
  }

  it('finds the default VPC with isDefault: true, its public subnets in every zone', async () => {
    const outputs = await lookUp({ isDefault: true });
    const { Vpcs } = await ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }),
    );
    expect(outputs.VpcId!.Value).toBe(Vpcs![0]!.VpcId);
    expect(outputs.Zones!.Value).toBe('us-east-1a,us-east-1b,us-east-1c,us-east-1d,us-east-1e,us-east-1f');
    const { Subnets } = await ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [Vpcs![0]!.VpcId!] }] }),
    );
    const byZone = [...Subnets!].sort((a, b) => a.AvailabilityZone!.localeCompare(b.AvailabilityZone!));
    expect(outputs.Public!.Value).toBe(byZone.map((s) => s.SubnetId).join(','));
    expect(outputs.Isolated!.Value).toBe('none');
    const context = JSON.parse(
      fs.readFileSync(path.join(dir, 'lookup', 'cdk.context.json'), 'utf8'),
    ) as Record<string, { vpcId?: string }>;
    expect(Object.values(context).map((v) => v.vpcId)).toEqual([Vpcs![0]!.VpcId]);
  });

  it('finds a VPC a deploy made by its Name tag, with public and isolated subnets', async () => {
    expectExit(await h.cdkd(['bootstrap', '--no-assets']));
    expectExit(
      await h.cdkd(['deploy', '--all', '-o', path.join(dir, 'out-network')], {
        cwd: path.join(dir, 'network'),
      }),
    );
    const state = await h.readState('Network');
    const resources = Object.values(state!.resources);
    const idsOf = (type: string) => resources.filter((r) => r.resourceType === type).map((r) => r.physicalId);
    const [vpcId] = idsOf('AWS::EC2::VPC');

    const outputs = await lookUp({ tags: { Name: 'Network/Net' } });
    expect(outputs.VpcId!.Value).toBe(vpcId);
    expect(outputs.Zones!.Value).toBe('us-east-1a,us-east-1b');
    const subnets = idsOf('AWS::EC2::Subnet');
    const found = [...outputs.Public!.Value.split(','), ...outputs.Isolated!.Value.split(',')];
    expect(found.sort()).toEqual([...subnets].sort());
    expect(outputs.Public!.Value.split(',')).toHaveLength(2);
    expect(outputs.Isolated!.Value.split(',')).toHaveLength(2);
  });
});

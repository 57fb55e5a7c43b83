/**
 * EC2's VPC Describe* calls through the real SDK: the default VPC every
 * region has, the network an app made through Cloud Control, filters, ids,
 * pagination and the documented errors.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceRequestStatusCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  DescribeRouteTablesCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  DescribeVpnGatewaysCommand,
  EC2Client,
  paginateDescribeSubnets,
  type Subnet,
} from '@aws-sdk/client-ec2';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ec2: EC2Client;
let cc: CloudControlClient;

beforeAll(() => {
  ec2 = new EC2Client(clientConfig(ctx.emulator, 'eu-west-1'));
  cc = new CloudControlClient(clientConfig(ctx.emulator, 'eu-west-1'));
});
afterAll(() => {
  ec2.destroy();
  cc.destroy();
});

/** Creates a resource through Cloud Control and returns its identifier once the request succeeded. */
async function create(typeName: string, desired: Record<string, unknown>): Promise<string> {
  const out = await cc.send(
    new CreateResourceCommand({ TypeName: typeName, DesiredState: JSON.stringify(desired) }),
  );
  const { ProgressEvent: event } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  expect(event?.OperationStatus).toBe('SUCCESS');
  return event!.Identifier!;
}

describe('the default VPC', () => {
  it('exists in every region with a public default subnet per zone', async () => {
    const { Vpcs } = await ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'isDefault', Values: ['true'] }] }),
    );
    expect(Vpcs).toHaveLength(1);
    const vpc = Vpcs![0]!;
    expect(vpc).toMatchObject({
      CidrBlock: '172.31.0.0/16',
      IsDefault: true,
      State: 'available',
      OwnerId: '123456789012',
    });
    expect(vpc.VpcId).toMatch(/^vpc-[0-9a-f]{17}$/);

    const { Subnets } = await ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc.VpcId!] }] }),
    );
    expect(Subnets!.map((s) => s.AvailabilityZone).sort()).toEqual([
      'eu-west-1a',
      'eu-west-1b',
      'eu-west-1c',
    ]);
    for (const s of Subnets!) {
      expect(s).toMatchObject({
        DefaultForAz: true,
        MapPublicIpOnLaunch: true,
        AvailableIpAddressCount: 4091,
      });
      expect(s.CidrBlock).toMatch(/^172\.31\.\d+\.0\/20$/);
      expect(s.SubnetArn).toBe(`arn:aws:ec2:eu-west-1:123456789012:subnet/${s.SubnetId}`);
    }

    const { RouteTables } = await ec2.send(
      new DescribeRouteTablesCommand({ Filters: [{ Name: 'vpc-id', Values: [vpc.VpcId!] }] }),
    );
    expect(RouteTables).toHaveLength(1);
    expect(RouteTables![0]!.Associations).toEqual([expect.objectContaining({ Main: true })]);
    expect(RouteTables![0]!.Routes!.map((r) => r.GatewayId)).toEqual([
      'local',
      expect.stringMatching(/^igw-/),
    ]);
  });

  it('is the same VPC on every call and another one in another region', async () => {
    const first = await ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'is-default', Values: ['true'] }] }),
    );
    const again = await ec2.send(new DescribeVpcsCommand({ VpcIds: [first.Vpcs![0]!.VpcId!] }));
    expect(again.Vpcs).toEqual(first.Vpcs);
    const east = new EC2Client(clientConfig(ctx.emulator, 'us-east-1'));
    const other = await east.send(new DescribeVpcsCommand({}));
    east.destroy();
    expect(other.Vpcs!.map((v) => v.VpcId)).not.toContain(first.Vpcs![0]!.VpcId);
  });

  it('is not in the inventory of resources', async () => {
    const inventory = await ctx.emulator.control.inventory();
    expect(inventory.filter((r) => r.type.startsWith('AWS::EC2::'))).toEqual([]);
  });
});

describe('a VPC made through Cloud Control', () => {
  let vpcId: string;
  let publicSubnet: string;
  let privateSubnet: string;
  let publicTable: string;
  let vpnGateway: string;

  beforeAll(async () => {
    vpcId = await create('AWS::EC2::VPC', {
      CidrBlock: '10.0.0.0/16',
      Tags: [{ Key: 'Name', Value: 'app' }],
    });
    publicSubnet = await create('AWS::EC2::Subnet', {
      VpcId: vpcId,
      CidrBlock: '10.0.0.0/24',
      AvailabilityZone: 'eu-west-1a',
      Tags: [{ Key: 'aws-cdk:subnet-type', Value: 'Public' }],
    });
    privateSubnet = await create('AWS::EC2::Subnet', {
      VpcId: vpcId,
      CidrBlock: '10.0.1.0/24',
      AvailabilityZone: 'eu-west-1b',
    });
    publicTable = await create('AWS::EC2::RouteTable', {
      VpcId: vpcId,
      Tags: [{ Key: 'tier', Value: 'public' }],
    });
    await create('AWS::EC2::SubnetRouteTableAssociation', {
      RouteTableId: publicTable,
      SubnetId: publicSubnet,
    });
    const igw = await create('AWS::EC2::InternetGateway', {});
    await create('AWS::EC2::Route', {
      RouteTableId: publicTable,
      DestinationCidrBlock: '0.0.0.0/0',
      GatewayId: igw,
    });
    vpnGateway = await create('AWS::EC2::VPNGateway', { Type: 'ipsec.1' });
    await create('AWS::EC2::VPCGatewayAttachment', { VpcId: vpcId, VpnGatewayId: vpnGateway });
  });

  it('is found by tag, with the default VPC left out', async () => {
    const { Vpcs } = await ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'tag:Name', Values: ['ap*'] }] }),
    );
    expect(Vpcs!.map((v) => v.VpcId)).toEqual([vpcId]);
    expect(Vpcs![0]).toMatchObject({ CidrBlock: '10.0.0.0/16', IsDefault: false });
    const notDefault = await ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'isDefault', Values: ['false'] }] }),
    );
    expect(notDefault.Vpcs!.map((v) => v.VpcId)).toEqual([vpcId]);
    const both = await ec2.send(
      new DescribeVpcsCommand({
        Filters: [
          { Name: 'tag-key', Values: ['Name'] },
          { Name: 'cidr', Values: ['192.168.0.0/16'] },
        ],
      }),
    );
    expect(both.Vpcs).toEqual([]);
  });

  it('lists its subnets, route tables and attached VPN gateway', async () => {
    const { Subnets } = await ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    expect(Subnets!.map((s) => s.SubnetId).sort()).toEqual([publicSubnet, privateSubnet].sort());
    expect(Subnets!.find((s) => s.SubnetId === privateSubnet)).toMatchObject({
      AvailabilityZone: 'eu-west-1b',
      AvailabilityZoneId: expect.stringMatching(/^euw1-az\d$/),
      AvailableIpAddressCount: 251,
      DefaultForAz: false,
      MapPublicIpOnLaunch: false,
    });

    const { RouteTables } = await ec2.send(
      new DescribeRouteTablesCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    expect(RouteTables).toHaveLength(2);
    const main = RouteTables!.find((t) => t.Associations!.some((a) => a.Main))!;
    expect(main.Routes).toEqual([
      expect.objectContaining({ DestinationCidrBlock: '10.0.0.0/16', GatewayId: 'local' }),
    ]);
    const bySubnet = await ec2.send(
      new DescribeRouteTablesCommand({
        Filters: [{ Name: 'association.subnet-id', Values: [publicSubnet] }],
      }),
    );
    expect(bySubnet.RouteTables!.map((t) => t.RouteTableId)).toEqual([publicTable]);
    expect(bySubnet.RouteTables![0]!.Routes!.map((r) => r.GatewayId)).toEqual([
      'local',
      expect.stringMatching(/^igw-/),
    ]);
    const byTag = await ec2.send(
      new DescribeRouteTablesCommand({ Filters: [{ Name: 'tag:tier', Values: ['public'] }] }),
    );
    expect(byTag.RouteTables!.map((t) => t.RouteTableId)).toEqual([publicTable]);

    const { VpnGateways } = await ec2.send(
      new DescribeVpnGatewaysCommand({
        Filters: [
          { Name: 'attachment.vpc-id', Values: [vpcId] },
          { Name: 'attachment.state', Values: ['attached'] },
          { Name: 'state', Values: ['available'] },
        ],
      }),
    );
    expect(VpnGateways).toEqual([
      expect.objectContaining({
        VpnGatewayId: vpnGateway,
        Type: 'ipsec.1',
        VpcAttachments: [{ VpcId: vpcId, State: 'attached' }],
      }),
    ]);
  });

  it('pages through subnets with MaxResults and NextToken', async () => {
    for (let i = 2; i < 6; i++)
      await create('AWS::EC2::Subnet', {
        VpcId: vpcId,
        CidrBlock: `10.0.${i}.0/24`,
        AvailabilityZone: 'eu-west-1c',
      });
    const first = await ec2.send(new DescribeSubnetsCommand({ MaxResults: 5 }));
    expect(first.Subnets).toHaveLength(5);
    expect(first.NextToken).toBeDefined();
    const all: Subnet[] = [];
    for await (const p of paginateDescribeSubnets({ client: ec2, pageSize: 5 }, {})) all.push(...p.Subnets!);
    // Three default subnets and six of the app's, each once.
    expect(all).toHaveLength(9);
    expect(new Set(all.map((s) => s.SubnetId)).size).toBe(9);
  });
});

describe('errors', () => {
  it('answers InvalidVpcID.NotFound for a VPC that does not exist', async () => {
    await expect(
      ec2.send(new DescribeVpcsCommand({ VpcIds: ['vpc-0123456789abcdef0'] })),
    ).rejects.toMatchObject({
      name: 'InvalidVpcID.NotFound',
      message: "The vpc ID 'vpc-0123456789abcdef0' does not exist",
      $metadata: { httpStatusCode: 400 },
    });
    await expect(
      ec2.send(new DescribeSubnetsCommand({ SubnetIds: ['subnet-0123456789abcdef0'] })),
    ).rejects.toMatchObject({
      name: 'InvalidSubnetID.NotFound',
    });
    await expect(
      ec2.send(new DescribeRouteTablesCommand({ RouteTableIds: ['rtb-0123456789abcdef0'] })),
    ).rejects.toMatchObject({ name: 'InvalidRouteTableID.NotFound' });
    await expect(
      ec2.send(new DescribeVpnGatewaysCommand({ VpnGatewayIds: ['vgw-0123456789abcdef0'] })),
    ).rejects.toMatchObject({ name: 'InvalidVpnGatewayID.NotFound' });
  });

  it('answers InvalidVpcID.Malformed for an id not shaped like one', async () => {
    await expect(ec2.send(new DescribeVpcsCommand({ VpcIds: ['my-vpc'] }))).rejects.toMatchObject({
      name: 'InvalidVpcID.Malformed',
    });
    await expect(ec2.send(new DescribeRouteTablesCommand({ RouteTableIds: ['main'] }))).rejects.toMatchObject(
      {
        name: 'InvalidRouteTableId.Malformed',
      },
    );
  });

  it('answers DryRunOperation for a dry run that would succeed', async () => {
    await expect(ec2.send(new DescribeVpcsCommand({ DryRun: true }))).rejects.toMatchObject({
      name: 'DryRunOperation',
      $metadata: { httpStatusCode: 412 },
    });
  });

  it('answers InvalidParameterValue for an unknown filter, a bad page size or token', async () => {
    await expect(
      ec2.send(new DescribeVpcsCommand({ Filters: [{ Name: 'colour', Values: ['blue'] }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue', message: "The filter 'colour' is invalid" });
    await expect(ec2.send(new DescribeVpcsCommand({ MaxResults: 2 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(ec2.send(new DescribeRouteTablesCommand({ MaxResults: 101 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(ec2.send(new DescribeSubnetsCommand({ NextToken: 'not-a-token' }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
  });
});

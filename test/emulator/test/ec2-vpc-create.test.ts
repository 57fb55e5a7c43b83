/**
 * EC2's native VPC calls through the real SDK: CreateVpc, CreateSubnet,
 * CreateInternetGateway with Attach/Detach, route tables with routes and
 * associations, and their deletes; what they make
 * is the resource Cloud Control and the inventory see (and the reverse), the
 * Describe* calls read it, and the documented errors.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  AssociateRouteTableCommand,
  AttachInternetGatewayCommand,
  CreateRouteCommand,
  CreateRouteTableCommand,
  DeleteRouteCommand,
  DeleteRouteTableCommand,
  DescribeRouteTablesCommand,
  DisassociateRouteTableCommand,
  CreateInternetGatewayCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteInternetGatewayCommand,
  DeleteSubnetCommand,
  DeleteVpcCommand,
  DescribeInternetGatewaysCommand,
  DescribeSubnetsCommand,
  DescribeVpcsCommand,
  DetachInternetGatewayCommand,
  EC2Client,
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
beforeEach(() => ctx.emulator.control.reset());

const inventory = async () =>
  (await ctx.emulator.control.inventory())
    .filter((r) => r.type.startsWith('AWS::EC2::'))
    .map((r) => `${r.type} ${r.identifier}`)
    .sort();

describe('native VPC creates', () => {
  it('makes a VPC, a subnet and an attached internet gateway that Cloud Control, Describe* and the inventory see', async () => {
    const { Vpc } = await ec2.send(
      new CreateVpcCommand({
        CidrBlock: '10.1.0.0/16',
        TagSpecifications: [{ ResourceType: 'vpc', Tags: [{ Key: 'Name', Value: 'native' }] }],
      }),
    );
    expect(Vpc).toMatchObject({
      VpcId: expect.stringMatching(/^vpc-[0-9a-f]{17}$/),
      CidrBlock: '10.1.0.0/16',
      State: 'available',
      IsDefault: false,
      Tags: [{ Key: 'Name', Value: 'native' }],
    });
    const vpcId = Vpc!.VpcId!;
    const { Subnet } = await ec2.send(
      new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.1.1.0/24', AvailabilityZone: 'eu-west-1b' }),
    );
    expect(Subnet).toMatchObject({
      SubnetId: expect.stringMatching(/^subnet-[0-9a-f]{17}$/),
      VpcId: vpcId,
      CidrBlock: '10.1.1.0/24',
      AvailabilityZone: 'eu-west-1b',
      AvailableIpAddressCount: 251,
    });
    const { InternetGateway } = await ec2.send(new CreateInternetGatewayCommand({}));
    const igw = InternetGateway!.InternetGatewayId!;
    expect(InternetGateway!.Attachments).toEqual([]);
    await ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId }));

    // One truth: Cloud Control reads the native VPC, Describe* and the inventory list all three.
    const read = await cc.send(new GetResourceCommand({ TypeName: 'AWS::EC2::VPC', Identifier: vpcId }));
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({
      VpcId: vpcId,
      CidrBlock: '10.1.0.0/16',
    });
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::EC2::Subnet' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual([Subnet!.SubnetId]);
    const described = await ec2.send(
      new DescribeVpcsCommand({ Filters: [{ Name: 'tag:Name', Values: ['native'] }] }),
    );
    expect(described.Vpcs!.map((v) => v.VpcId)).toEqual([vpcId]);
    const gateways = await ec2.send(
      new DescribeInternetGatewaysCommand({ Filters: [{ Name: 'attachment.vpc-id', Values: [vpcId] }] }),
    );
    expect(gateways.InternetGateways).toEqual([
      expect.objectContaining({
        InternetGatewayId: igw,
        Attachments: [{ VpcId: vpcId, State: 'available' }],
      }),
    ]);
    expect(await inventory()).toEqual(
      [
        `AWS::EC2::InternetGateway ${igw}`,
        `AWS::EC2::Subnet ${Subnet!.SubnetId}`,
        `AWS::EC2::VPC ${vpcId}`,
        `AWS::EC2::VPCGatewayAttachment IGW|${vpcId}`,
      ].sort(),
    );

    // Taken apart in dependency order; each delete is refused while something depends on it.
    await expect(ec2.send(new DeleteVpcCommand({ VpcId: vpcId }))).rejects.toMatchObject({
      name: 'DependencyViolation',
    });
    await expect(
      ec2.send(new DeleteInternetGatewayCommand({ InternetGatewayId: igw })),
    ).rejects.toMatchObject({
      name: 'DependencyViolation',
    });
    await ec2.send(new DetachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId }));
    await ec2.send(new DeleteInternetGatewayCommand({ InternetGatewayId: igw }));
    await ec2.send(new DeleteSubnetCommand({ SubnetId: Subnet!.SubnetId! }));
    await ec2.send(new DeleteVpcCommand({ VpcId: vpcId }));
    expect(await inventory()).toEqual([]);
  });

  it('adds a native subnet to a VPC made through Cloud Control', async () => {
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::EC2::VPC',
        DesiredState: JSON.stringify({ CidrBlock: '10.2.0.0/16' }),
      }),
    );
    const status = await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: created.ProgressEvent!.RequestToken! }),
    );
    const vpcId = status.ProgressEvent!.Identifier!;
    const { Subnet } = await ec2.send(new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.2.0.0/20' }));
    const subnets = await ec2.send(
      new DescribeSubnetsCommand({ Filters: [{ Name: 'vpc-id', Values: [vpcId] }] }),
    );
    expect(subnets.Subnets!.map((s) => s.SubnetId)).toEqual([Subnet!.SubnetId]);
  });

  it('routes a subnet to the internet through a route table, read back by DescribeRouteTables and Cloud Control', async () => {
    const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.5.0.0/16' }));
    const vpcId = Vpc!.VpcId!;
    const { Subnet } = await ec2.send(new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.5.0.0/24' }));
    const { InternetGateway } = await ec2.send(new CreateInternetGatewayCommand({}));
    const igw = InternetGateway!.InternetGatewayId!;
    const { RouteTable } = await ec2.send(
      new CreateRouteTableCommand({
        VpcId: vpcId,
        TagSpecifications: [{ ResourceType: 'route-table', Tags: [{ Key: 'Name', Value: 'public' }] }],
      }),
    );
    const rtb = RouteTable!.RouteTableId!;
    expect(RouteTable).toMatchObject({
      RouteTableId: expect.stringMatching(/^rtb-[0-9a-f]{17}$/),
      VpcId: vpcId,
      Routes: [expect.objectContaining({ DestinationCidrBlock: '10.5.0.0/16', GatewayId: 'local' })],
    });
    // A route to a gateway the VPC does not have is refused.
    await expect(
      ec2.send(
        new CreateRouteCommand({ RouteTableId: rtb, DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId }));
    await ec2.send(
      new CreateRouteCommand({ RouteTableId: rtb, DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }),
    );
    await expect(
      ec2.send(
        new CreateRouteCommand({ RouteTableId: rtb, DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }),
      ),
    ).rejects.toMatchObject({ name: 'RouteAlreadyExists' });
    const { AssociationId } = await ec2.send(
      new AssociateRouteTableCommand({ RouteTableId: rtb, SubnetId: Subnet!.SubnetId }),
    );
    expect(AssociationId).toMatch(/^rtbassoc-[0-9a-f]{17}$/);

    const described = await ec2.send(
      new DescribeRouteTablesCommand({
        Filters: [{ Name: 'association.subnet-id', Values: [Subnet!.SubnetId!] }],
      }),
    );
    expect(described.RouteTables).toEqual([
      expect.objectContaining({
        RouteTableId: rtb,
        Routes: expect.arrayContaining([
          expect.objectContaining({ DestinationCidrBlock: '0.0.0.0/0', GatewayId: igw }),
        ]),
        Associations: [
          expect.objectContaining({ RouteTableAssociationId: AssociationId, SubnetId: Subnet!.SubnetId }),
        ],
      }),
    ]);
    const route = await cc.send(
      new GetResourceCommand({ TypeName: 'AWS::EC2::Route', Identifier: `${rtb}|0.0.0.0/0` }),
    );
    expect(JSON.parse(route.ResourceDescription!.Properties!)).toMatchObject({
      GatewayId: igw,
      RouteTableId: rtb,
    });

    await expect(ec2.send(new DeleteRouteTableCommand({ RouteTableId: rtb }))).rejects.toMatchObject({
      name: 'DependencyViolation',
    });
    await ec2.send(new DisassociateRouteTableCommand({ AssociationId }));
    await expect(ec2.send(new DisassociateRouteTableCommand({ AssociationId }))).rejects.toMatchObject({
      name: 'InvalidAssociationID.NotFound',
    });
    await ec2.send(new DeleteRouteCommand({ RouteTableId: rtb, DestinationCidrBlock: '0.0.0.0/0' }));
    await expect(
      ec2.send(new DeleteRouteCommand({ RouteTableId: rtb, DestinationCidrBlock: '0.0.0.0/0' })),
    ).rejects.toMatchObject({ name: 'InvalidRoute.NotFound' });
    await ec2.send(new DeleteRouteTableCommand({ RouteTableId: rtb }));
    await expect(ec2.send(new DeleteRouteTableCommand({ RouteTableId: rtb }))).rejects.toMatchObject({
      name: 'InvalidRouteTableID.NotFound',
    });
    expect((await inventory()).filter((r) => /Route/.test(r))).toEqual([]);
  });

  it('answers the documented errors', async () => {
    const fail = (promise: Promise<unknown>, name: string) => expect(promise).rejects.toMatchObject({ name });
    await fail(ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/8' })), 'InvalidVpc.Range');
    await fail(ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0/16' })), 'InvalidParameterValue');
    await fail(ec2.send(new CreateVpcCommand({})), 'MissingParameter');
    await fail(
      ec2.send(
        new CreateVpcCommand({
          CidrBlock: '10.0.0.0/16',
          TagSpecifications: [{ ResourceType: 'subnet', Tags: [] }],
        }),
      ),
      'InvalidParameterValue',
    );
    await fail(ec2.send(new CreateVpcCommand({ CidrBlock: '10.0.0.0/16', DryRun: true })), 'DryRunOperation');
    const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.3.0.0/16' }));
    const vpcId = Vpc!.VpcId!;
    await fail(
      ec2.send(new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.4.0.0/24' })),
      'InvalidSubnet.Range',
    );
    await ec2.send(new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.3.0.0/24' }));
    await fail(
      ec2.send(new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.3.0.128/25' })),
      'InvalidSubnet.Conflict',
    );
    await fail(
      ec2.send(
        new CreateSubnetCommand({ VpcId: vpcId, CidrBlock: '10.3.1.0/24', AvailabilityZone: 'eu-west-1z' }),
      ),
      'InvalidParameterValue',
    );
    await fail(
      ec2.send(new CreateSubnetCommand({ VpcId: 'vpc-0123456789abcdef0', CidrBlock: '10.3.2.0/24' })),
      'InvalidVpcID.NotFound',
    );
    await fail(
      ec2.send(new DeleteSubnetCommand({ SubnetId: 'subnet-0123456789abcdef0' })),
      'InvalidSubnetID.NotFound',
    );
    await fail(ec2.send(new DeleteVpcCommand({ VpcId: 'vpc-0123456789abcdef0' })), 'InvalidVpcID.NotFound');
    const { InternetGateway } = await ec2.send(new CreateInternetGatewayCommand({}));
    const igw = InternetGateway!.InternetGatewayId!;
    await fail(
      ec2.send(new DetachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId })),
      'Gateway.NotAttached',
    );
    await ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId }));
    await fail(
      ec2.send(new AttachInternetGatewayCommand({ InternetGatewayId: igw, VpcId: vpcId })),
      'Resource.AlreadyAssociated',
    );
    await fail(
      ec2.send(
        new AttachInternetGatewayCommand({ InternetGatewayId: 'igw-0123456789abcdef0', VpcId: vpcId }),
      ),
      'InvalidInternetGatewayID.NotFound',
    );
    await fail(
      ec2.send(new DescribeInternetGatewaysCommand({ InternetGatewayIds: ['igw-0123456789abcdef0'] })),
      'InvalidInternetGatewayID.NotFound',
    );
    await fail(
      ec2.send(new DescribeInternetGatewaysCommand({ InternetGatewayIds: ['gw-1'] })),
      'InvalidInternetGatewayID.Malformed',
    );
    await fail(ec2.send(new DescribeInternetGatewaysCommand({ MaxResults: 1 })), 'InvalidParameterValue');
  });
});

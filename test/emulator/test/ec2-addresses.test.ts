/**
 * Elastic IPs, NAT gateways and native security-group creates through the real
 * SDK: what they make is Cloud Control's resource (and the reverse), the NAT
 * gateway's states, the address a gateway holds, and EC2's error codes.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  AllocateAddressCommand,
  AssociateAddressCommand,
  AttachInternetGatewayCommand,
  AuthorizeSecurityGroupIngressCommand,
  CreateInternetGatewayCommand,
  CreateNatGatewayCommand,
  CreateSecurityGroupCommand,
  CreateSubnetCommand,
  CreateVpcCommand,
  DeleteNatGatewayCommand,
  DeleteSecurityGroupCommand,
  DeleteSubnetCommand,
  DeleteVpcCommand,
  DescribeAddressesCommand,
  DescribeNatGatewaysCommand,
  DescribeSecurityGroupsCommand,
  DisassociateAddressCommand,
  EC2Client,
  ReleaseAddressCommand,
  type EC2ServiceException,
} from '@aws-sdk/client-ec2';
import { Ec2Store } from '../src/services/ec2/store';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ec2: EC2Client;
let cc: CloudControlClient;

beforeAll(() => {
  ec2 = new EC2Client({ ...clientConfig(ctx.emulator, 'eu-west-1'), maxAttempts: 1 });
  cc = new CloudControlClient(clientConfig(ctx.emulator, 'eu-west-1'));
});
afterAll(() => {
  ec2.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

async function failure(promise: Promise<unknown>): Promise<EC2ServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as EC2ServiceException;
  }
  throw new Error('expected the call to fail');
}

async function ccCreate(typeName: string, desired: Record<string, unknown>) {
  const out = await cc.send(
    new CreateResourceCommand({ TypeName: typeName, DesiredState: JSON.stringify(desired) }),
  );
  const { ProgressEvent: event } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  expect(event?.OperationStatus).toBe('SUCCESS');
  return event!.Identifier!;
}

const inventory = async (type: string) =>
  (await ctx.emulator.control.inventory()).filter((r) => r.type === type).map((r) => r.identifier);

/** A VPC with an attached internet gateway and one subnet. */
async function publicSubnet(): Promise<{ vpcId: string; subnetId: string }> {
  const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.8.0.0/16' }));
  const { InternetGateway } = await ec2.send(new CreateInternetGatewayCommand({}));
  await ec2.send(
    new AttachInternetGatewayCommand({
      VpcId: Vpc!.VpcId,
      InternetGatewayId: InternetGateway!.InternetGatewayId,
    }),
  );
  const { Subnet } = await ec2.send(new CreateSubnetCommand({ VpcId: Vpc!.VpcId, CidrBlock: '10.8.1.0/24' }));
  return { vpcId: Vpc!.VpcId!, subnetId: Subnet!.SubnetId! };
}

describe('Elastic IP addresses', () => {
  it('allocates an address Cloud Control and the inventory see, and releases it', async () => {
    const eip = await ec2.send(
      new AllocateAddressCommand({
        Domain: 'vpc',
        TagSpecifications: [{ ResourceType: 'elastic-ip', Tags: [{ Key: 'Name', Value: 'web' }] }],
      }),
    );
    expect(eip.AllocationId).toMatch(/^eipalloc-[0-9a-f]{17}$/);
    expect(eip.PublicIp).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(eip.Domain).toBe('vpc');
    const identifier = `${eip.PublicIp}|${eip.AllocationId}`;
    const read = await cc.send(new GetResourceCommand({ TypeName: 'AWS::EC2::EIP', Identifier: identifier }));
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({
      AllocationId: eip.AllocationId,
      PublicIp: eip.PublicIp,
      Tags: [{ Key: 'Name', Value: 'web' }],
    });
    expect(await inventory('AWS::EC2::EIP')).toEqual([identifier]);

    // The reverse: an EIP made through Cloud Control is an address.
    const ccMade = await ccCreate('AWS::EC2::EIP', { Domain: 'vpc' });
    const [ip, allocationId] = ccMade.split('|');
    const described = await ec2.send(new DescribeAddressesCommand({ AllocationIds: [allocationId!] }));
    expect(described.Addresses).toEqual([
      expect.objectContaining({ AllocationId: allocationId, PublicIp: ip }),
    ]);
    const byTag = await ec2.send(
      new DescribeAddressesCommand({ Filters: [{ Name: 'tag:Name', Values: ['web'] }] }),
    );
    expect(byTag.Addresses!.map((a) => a.AllocationId)).toEqual([eip.AllocationId]);

    await ec2.send(new ReleaseAddressCommand({ AllocationId: eip.AllocationId }));
    expect(await inventory('AWS::EC2::EIP')).toEqual([ccMade]);
    expect(
      (await failure(ec2.send(new ReleaseAddressCommand({ AllocationId: eip.AllocationId })))).name,
    ).toBe('InvalidAllocationID.NotFound');
  });

  it('associates an address with an instance, refuses to release it until disassociated', async () => {
    const instanceId = (
      JSON.parse(
        (
          await cc.send(
            new GetResourceCommand({
              TypeName: 'AWS::EC2::Instance',
              Identifier: await ccCreate('AWS::EC2::Instance', { ImageId: 'ami-12345678' }),
            }),
          )
        ).ResourceDescription!.Properties!,
      ) as { InstanceId: string }
    ).InstanceId;
    const { AllocationId } = await ec2.send(new AllocateAddressCommand({}));
    const { AssociationId } = await ec2.send(
      new AssociateAddressCommand({ AllocationId, InstanceId: instanceId }),
    );
    expect(AssociationId).toMatch(/^eipassoc-/);
    const [address] = (await ec2.send(new DescribeAddressesCommand({ AllocationIds: [AllocationId!] })))
      .Addresses!;
    expect(address).toMatchObject({ AssociationId, InstanceId: instanceId });
    expect(await inventory('AWS::EC2::EIPAssociation')).toEqual([AssociationId]);
    expect((await failure(ec2.send(new ReleaseAddressCommand({ AllocationId })))).name).toBe(
      'InvalidIPAddress.InUse',
    );
    expect(
      (await failure(ec2.send(new AssociateAddressCommand({ AllocationId, InstanceId: instanceId })))).name,
    ).toBe('Resource.AlreadyAssociated');
    await ec2.send(new DisassociateAddressCommand({ AssociationId }));
    expect((await failure(ec2.send(new DisassociateAddressCommand({ AssociationId })))).name).toBe(
      'InvalidAssociationID.NotFound',
    );
    await ec2.send(new ReleaseAddressCommand({ AllocationId }));
    expect(
      (
        await failure(
          ec2.send(
            new AssociateAddressCommand({
              AllocationId: 'eipalloc-0000000000000000a',
              InstanceId: instanceId,
            }),
          ),
        )
      ).name,
    ).toBe('InvalidAllocationID.NotFound');
    const other = await ec2.send(new AllocateAddressCommand({}));
    expect(
      (
        await failure(
          ec2.send(
            new AssociateAddressCommand({
              AllocationId: other.AllocationId,
              InstanceId: 'i-0000000000000000a',
            }),
          ),
        )
      ).name,
    ).toBe('InvalidInstanceID.NotFound');
  });
});

describe('NAT gateways', () => {
  it('goes pending → available, holds its address, and deleting → deleted frees it', async () => {
    const { vpcId, subnetId } = await publicSubnet();
    const { AllocationId, PublicIp } = await ec2.send(new AllocateAddressCommand({ Domain: 'vpc' }));
    const { NatGateway } = await ec2.send(new CreateNatGatewayCommand({ SubnetId: subnetId, AllocationId }));
    const natId = NatGateway!.NatGatewayId!;
    expect(NatGateway).toMatchObject({
      State: 'pending',
      SubnetId: subnetId,
      VpcId: vpcId,
      ConnectivityType: 'public',
    });
    const describe = async () =>
      (await ec2.send(new DescribeNatGatewaysCommand({ NatGatewayIds: [natId] }))).NatGateways![0]!;
    expect((await describe()).State).toBe('pending');
    const available = await describe();
    expect(available.State).toBe('available');
    expect(available.NatGatewayAddresses).toEqual([
      expect.objectContaining({ AllocationId, PublicIp, IsPrimary: true, Status: 'succeeded' }),
    ]);
    // The same gateway through Cloud Control and the inventory.
    const read = await cc.send(
      new GetResourceCommand({ TypeName: 'AWS::EC2::NatGateway', Identifier: natId }),
    );
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({
      SubnetId: subnetId,
      AllocationId,
    });
    expect(await inventory('AWS::EC2::NatGateway')).toEqual([natId]);

    // The gateway holds the address: releasing it fails, the subnet cannot go.
    const [held] = (await ec2.send(new DescribeAddressesCommand({ AllocationIds: [AllocationId!] })))
      .Addresses!;
    expect(held!.AssociationId).toMatch(/^eipassoc-/);
    expect(held!.NetworkInterfaceId).toBe(available.NatGatewayAddresses![0]!.NetworkInterfaceId);
    expect((await failure(ec2.send(new ReleaseAddressCommand({ AllocationId })))).name).toBe(
      'InvalidIPAddress.InUse',
    );
    expect((await failure(ec2.send(new DeleteSubnetCommand({ SubnetId: subnetId })))).name).toBe(
      'DependencyViolation',
    );

    await ec2.send(new DeleteNatGatewayCommand({ NatGatewayId: natId }));
    expect(await inventory('AWS::EC2::NatGateway')).toEqual([]);
    // Deleting: the gateway still holds the address.
    expect((await failure(ec2.send(new ReleaseAddressCommand({ AllocationId })))).name).toBe(
      'InvalidIPAddress.InUse',
    );
    expect((await describe()).State).toBe('deleting');
    const deleted = await describe();
    expect(deleted.State).toBe('deleted');
    expect(deleted.DeleteTime).toBeInstanceOf(Date);
    const listed = await ec2.send(
      new DescribeNatGatewaysCommand({ Filter: [{ Name: 'state', Values: ['available', 'pending'] }] }),
    );
    expect(listed.NatGateways).toEqual([]);
    await ec2.send(new ReleaseAddressCommand({ AllocationId }));
    await ec2.send(new DeleteSubnetCommand({ SubnetId: subnetId }));
  });

  it('a Cloud Control gateway holds its address too', async () => {
    const { subnetId } = await publicSubnet();
    const { AllocationId } = await ec2.send(new AllocateAddressCommand({}));
    const natId = await ccCreate('AWS::EC2::NatGateway', { SubnetId: subnetId, AllocationId });
    const { NatGateways } = await ec2.send(
      new DescribeNatGatewaysCommand({ Filter: [{ Name: 'subnet-id', Values: [subnetId] }] }),
    );
    expect(NatGateways).toEqual([expect.objectContaining({ NatGatewayId: natId, State: 'available' })]);
    expect((await failure(ec2.send(new ReleaseAddressCommand({ AllocationId })))).name).toBe(
      'InvalidIPAddress.InUse',
    );
  });

  it('fails as EC2 reports it: unknown or taken address, no internet gateway; errors', async () => {
    const { subnetId } = await publicSubnet();
    const unknown = await ec2.send(
      new CreateNatGatewayCommand({ SubnetId: subnetId, AllocationId: 'eipalloc-0000000000000000a' }),
    );
    expect(unknown.NatGateway).toMatchObject({
      State: 'failed',
      FailureCode: 'InvalidAllocationID.NotFound',
    });
    expect(await inventory('AWS::EC2::NatGateway')).toEqual([]);
    const { AllocationId } = await ec2.send(new AllocateAddressCommand({}));
    await ec2.send(new CreateNatGatewayCommand({ SubnetId: subnetId, AllocationId }));
    const taken = await ec2.send(new CreateNatGatewayCommand({ SubnetId: subnetId, AllocationId }));
    expect(taken.NatGateway).toMatchObject({ State: 'failed', FailureCode: 'Resource.AlreadyAssociated' });

    const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.9.0.0/16' }));
    const { Subnet } = await ec2.send(
      new CreateSubnetCommand({ VpcId: Vpc!.VpcId, CidrBlock: '10.9.0.0/24' }),
    );
    const second = await ec2.send(new AllocateAddressCommand({}));
    const noIgw = await ec2.send(
      new CreateNatGatewayCommand({ SubnetId: Subnet!.SubnetId, AllocationId: second.AllocationId }),
    );
    expect(noIgw.NatGateway).toMatchObject({ State: 'failed', FailureCode: 'Gateway.NotAttached' });
    // A private gateway needs no address or internet gateway.
    const priv = await ec2.send(
      new CreateNatGatewayCommand({ SubnetId: Subnet!.SubnetId, ConnectivityType: 'private' }),
    );
    expect(priv.NatGateway!.State).toBe('pending');

    expect(
      (
        await failure(
          ec2.send(new CreateNatGatewayCommand({ SubnetId: 'subnet-0000000000000000a', AllocationId })),
        )
      ).name,
    ).toBe('InvalidSubnetID.NotFound');
    expect((await failure(ec2.send(new CreateNatGatewayCommand({ SubnetId: subnetId })))).name).toBe(
      'MissingParameter',
    );
    expect(
      (await failure(ec2.send(new DescribeNatGatewaysCommand({ NatGatewayIds: ['nat-0000000000000000a'] }))))
        .name,
    ).toBe('NatGatewayNotFound');
    expect(
      (await failure(ec2.send(new DeleteNatGatewayCommand({ NatGatewayId: 'nat-0000000000000000a' })))).name,
    ).toBe('NatGatewayNotFound');
    expect((await failure(ec2.send(new AllocateAddressCommand({ DryRun: true })))).name).toBe(
      'DryRunOperation',
    );
  });
});

describe('native security groups', () => {
  it('creates a group Cloud Control sees; refuses duplicates, the default group and referenced groups', async () => {
    const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.7.0.0/16' }));
    const vpcId = Vpc!.VpcId!;
    const web = await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'web', Description: 'web tier', VpcId: vpcId }),
    );
    expect(web.GroupId).toMatch(/^sg-[0-9a-f]{17}$/);
    const read = await cc.send(
      new GetResourceCommand({ TypeName: 'AWS::EC2::SecurityGroup', Identifier: web.GroupId }),
    );
    expect(JSON.parse(read.ResourceDescription!.Properties!)).toMatchObject({
      GroupId: web.GroupId,
      GroupName: 'web',
      GroupDescription: 'web tier',
      VpcId: vpcId,
    });
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::EC2::SecurityGroup' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual([web.GroupId]);
    const [described] = (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [web.GroupId!] })))
      .SecurityGroups!;
    expect(described).toMatchObject({ GroupName: 'web', VpcId: vpcId });
    expect(described!.IpPermissionsEgress).toEqual([
      expect.objectContaining({ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }),
    ]);

    const code = async (p: Promise<unknown>) => (await failure(p)).name;
    expect(
      await code(
        ec2.send(new CreateSecurityGroupCommand({ GroupName: 'web', Description: 'x', VpcId: vpcId })),
      ),
    ).toBe('InvalidGroup.Duplicate');
    expect(
      await code(
        ec2.send(new CreateSecurityGroupCommand({ GroupName: 'default', Description: 'x', VpcId: vpcId })),
      ),
    ).toBe('InvalidGroup.Reserved');
    expect(
      await code(
        ec2.send(
          new CreateSecurityGroupCommand({
            GroupName: 'x',
            Description: 'x',
            VpcId: 'vpc-0000000000000000a',
          }),
        ),
      ),
    ).toBe('InvalidVpcID.NotFound');
    expect(
      await code(
        ec2.send(
          new CreateSecurityGroupCommand({
            GroupName: 'x',
            Description: undefined as unknown as string,
            VpcId: vpcId,
          }),
        ),
      ),
    ).toBe('MissingParameter');

    // The VPC cannot go while a group of its own is there (its default group does not count).
    expect(await code(ec2.send(new DeleteVpcCommand({ VpcId: vpcId })))).toBe('DependencyViolation');
    const [defaultGroup] = (
      await ec2.send(
        new DescribeSecurityGroupsCommand({
          Filters: [
            { Name: 'vpc-id', Values: [vpcId] },
            { Name: 'group-name', Values: ['default'] },
          ],
        }),
      )
    ).SecurityGroups!;
    expect(await code(ec2.send(new DeleteSecurityGroupCommand({ GroupId: defaultGroup!.GroupId })))).toBe(
      'CannotDelete',
    );

    const app = await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'app', Description: 'app', VpcId: vpcId }),
    );
    await ec2.send(
      new AuthorizeSecurityGroupIngressCommand({
        GroupId: app.GroupId,
        IpPermissions: [
          { IpProtocol: 'tcp', FromPort: 8080, ToPort: 8080, UserIdGroupPairs: [{ GroupId: web.GroupId }] },
        ],
      }),
    );
    expect(await code(ec2.send(new DeleteSecurityGroupCommand({ GroupId: web.GroupId })))).toBe(
      'DependencyViolation',
    );
    await ec2.send(new DeleteSecurityGroupCommand({ GroupId: app.GroupId }));
    await ec2.send(new DeleteSecurityGroupCommand({ GroupId: web.GroupId }));
    expect(await code(ec2.send(new DeleteSecurityGroupCommand({ GroupId: web.GroupId })))).toBe(
      'InvalidGroup.NotFound',
    );
    expect(await inventory('AWS::EC2::SecurityGroup')).toEqual([]);
    await ec2.send(new DeleteVpcCommand({ VpcId: vpcId }));
  });

  it('a group in the default VPC by name; a Cloud Control group is deleted natively', async () => {
    const made = await ec2.send(
      new CreateSecurityGroupCommand({ GroupName: 'legacy', Description: 'by name' }),
    );
    await ec2.send(new DeleteSecurityGroupCommand({ GroupName: 'legacy' }));
    expect(
      (await failure(ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [made.GroupId!] })))).name,
    ).toBe('InvalidGroup.NotFound');
    const { Vpc } = await ec2.send(new CreateVpcCommand({ CidrBlock: '10.6.0.0/16' }));
    const id = await ccCreate('AWS::EC2::SecurityGroup', { GroupDescription: 'cc', VpcId: Vpc!.VpcId });
    expect(id).toMatch(/^sg-/);
    await ec2.send(new DeleteSecurityGroupCommand({ GroupId: id }));
    expect(await inventory('AWS::EC2::SecurityGroup')).toEqual([]);
  });
});

describe('the EC2 store', () => {
  it('keeps NAT gateway states and rule changes across a snapshot, and reads the older rules-only snapshot', () => {
    const changes = {
      added: { ingress: [], egress: [] },
      revoked: { ingress: [], egress: ['-1|||cidr|0.0.0.0/0'] },
    };
    const store = new Ec2Store();
    store.changes.set('1|r|sg-1', changes);
    store.natGateways.set('1|r|nat-1', { state: 'deleting', deleteTime: 5 });
    const copy = new Ec2Store();
    copy.restore(JSON.parse(JSON.stringify(store.snapshot())));
    expect(copy.changes.get('1|r|sg-1')).toEqual(changes);
    expect(copy.natGateways.get('1|r|nat-1')).toEqual({ state: 'deleting', deleteTime: 5 });
    const legacy = new Ec2Store();
    legacy.restore({ '1|r|sg-1': changes });
    expect(legacy.changes.get('1|r|sg-1')).toEqual(changes);
    expect(legacy.natGateways.size).toBe(0);
  });
});

// Security groups through the real SDK: every VPC's default group with EC2's default
// rules, DescribeSecurityGroups, and Authorize/RevokeSecurityGroupIngress/Egress
// (CDK's restrictDefaultSecurityGroup handler calls these) with EC2's error codes.
import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  AuthorizeSecurityGroupEgressCommand,
  AuthorizeSecurityGroupIngressCommand,
  DescribeSecurityGroupsCommand,
  EC2Client,
  RevokeSecurityGroupEgressCommand,
  RevokeSecurityGroupIngressCommand,
  type EC2ServiceException,
} from '@aws-sdk/client-ec2';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
const ACCOUNT = '123456789012';
let ec2: EC2Client;
let cc: CloudControlClient;

beforeAll(() => {
  ec2 = new EC2Client({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
  cc = new CloudControlClient(clientConfig(ctx.emulator));
});
afterAll(() => {
  ec2.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

async function create(typeName: string, desired: Record<string, unknown>): Promise<Record<string, unknown>> {
  const out = await cc.send(
    new CreateResourceCommand({ TypeName: typeName, DesiredState: JSON.stringify(desired) }),
  );
  const { ProgressEvent: event } = await cc.send(
    new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
  );
  expect(event?.OperationStatus).toBe('SUCCESS');
  const read = await cc.send(new GetResourceCommand({ TypeName: typeName, Identifier: event!.Identifier! }));
  return JSON.parse(read.ResourceDescription!.Properties!) as Record<string, unknown>;
}

async function failure(promise: Promise<unknown>): Promise<EC2ServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as EC2ServiceException;
  }
  throw new Error('expected the call to fail');
}

const selfIngress = (groupId: string) => ({
  GroupId: groupId,
  IpPermissions: [{ IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: groupId, UserId: ACCOUNT }] }],
});
const allEgress = (groupId: string) => ({
  GroupId: groupId,
  IpPermissions: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
});
const describe1 = async (groupId: string) =>
  (await ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [groupId] }))).SecurityGroups![0]!;

test("a new VPC's DefaultSecurityGroup is a group with EC2's default rules", async () => {
  const vpc = await create('AWS::EC2::VPC', { CidrBlock: '10.0.0.0/16' });
  const groupId = vpc.DefaultSecurityGroup as string;
  expect(groupId).toMatch(/^sg-[0-9a-f]{17}$/);
  const group = await describe1(groupId);
  expect(group).toMatchObject({
    GroupId: groupId,
    GroupName: 'default',
    VpcId: vpc.VpcId,
    OwnerId: ACCOUNT,
    IpPermissions: [{ IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: groupId, UserId: ACCOUNT }] }],
    IpPermissionsEgress: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
  });
  const byVpc = await ec2.send(
    new DescribeSecurityGroupsCommand({
      Filters: [
        { Name: 'vpc-id', Values: [vpc.VpcId as string] },
        { Name: 'group-name', Values: ['default'] },
      ],
    }),
  );
  expect(byVpc.SecurityGroups!.map((g) => g.GroupId)).toEqual([groupId]);
});

test('revoking the default rules and authorizing them back, as restrictDefaultSecurityGroup does', async () => {
  const vpc = await create('AWS::EC2::VPC', { CidrBlock: '10.1.0.0/16' });
  const groupId = vpc.DefaultSecurityGroup as string;
  await ec2.send(new RevokeSecurityGroupEgressCommand(allEgress(groupId)));
  const revoked = await ec2.send(new RevokeSecurityGroupIngressCommand(selfIngress(groupId)));
  expect(revoked.Return).toBe(true);
  expect(await describe1(groupId)).toMatchObject({ IpPermissions: [], IpPermissionsEgress: [] });
  // A second revoke finds no rule: the handler ignores exactly this code.
  expect((await failure(ec2.send(new RevokeSecurityGroupEgressCommand(allEgress(groupId))))).name).toBe(
    'InvalidPermission.NotFound',
  );
  expect((await failure(ec2.send(new RevokeSecurityGroupIngressCommand(selfIngress(groupId))))).name).toBe(
    'InvalidPermission.NotFound',
  );
  const authorized = await ec2.send(new AuthorizeSecurityGroupIngressCommand(selfIngress(groupId)));
  expect(authorized.SecurityGroupRules).toEqual([
    expect.objectContaining({
      GroupId: groupId,
      IsEgress: false,
      IpProtocol: '-1',
      SecurityGroupRuleId: expect.stringMatching(/^sgr-/),
    }),
  ]);
  await ec2.send(new AuthorizeSecurityGroupEgressCommand(allEgress(groupId)));
  expect(await describe1(groupId)).toMatchObject({
    IpPermissions: [{ IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: groupId, UserId: ACCOUNT }] }],
    IpPermissionsEgress: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }],
  });
  expect((await failure(ec2.send(new AuthorizeSecurityGroupEgressCommand(allEgress(groupId))))).name).toBe(
    'InvalidPermission.Duplicate',
  );
});

test('rules with ports on a Cloud Control group; partial revokes report the unknown rules', async () => {
  const vpc = await create('AWS::EC2::VPC', { CidrBlock: '10.2.0.0/16' });
  const sg = await create('AWS::EC2::SecurityGroup', {
    GroupDescription: 'web',
    VpcId: vpc.VpcId,
    SecurityGroupIngress: [{ IpProtocol: 'tcp', FromPort: 443, ToPort: 443, CidrIp: '0.0.0.0/0' }],
  });
  const groupId = sg.GroupId as string;
  await ec2.send(
    new AuthorizeSecurityGroupIngressCommand({
      GroupId: groupId,
      IpPermissions: [
        {
          IpProtocol: 'tcp',
          FromPort: 22,
          ToPort: 22,
          IpRanges: [{ CidrIp: '10.0.0.0/8', Description: 'ssh' }],
        },
      ],
    }),
  );
  const group = await describe1(groupId);
  expect(group.Description).toBe('web');
  expect(group.IpPermissions).toEqual([
    expect.objectContaining({
      IpProtocol: 'tcp',
      FromPort: 443,
      ToPort: 443,
      IpRanges: [{ CidrIp: '0.0.0.0/0' }],
    }),
    expect.objectContaining({
      IpProtocol: 'tcp',
      FromPort: 22,
      ToPort: 22,
      IpRanges: [{ CidrIp: '10.0.0.0/8', Description: 'ssh' }],
    }),
  ]);
  // A group made without egress rules allows all traffic out.
  expect(group.IpPermissionsEgress).toEqual([
    expect.objectContaining({ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }] }),
  ]);
  const partial = await ec2.send(
    new RevokeSecurityGroupIngressCommand({
      GroupId: groupId,
      IpPermissions: [
        { IpProtocol: 'tcp', FromPort: 443, ToPort: 443, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
        { IpProtocol: 'udp', FromPort: 53, ToPort: 53, IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
      ],
    }),
  );
  expect(partial.UnknownIpPermissions).toEqual([
    expect.objectContaining({ IpProtocol: 'udp', FromPort: 53, ToPort: 53 }),
  ]);
  expect((await describe1(groupId)).IpPermissions!.map((p) => p.FromPort)).toEqual([22]);
});

test("EC2's refusals: unknown and malformed groups, bad protocols and ports, DryRun", async () => {
  const missing = 'sg-0123456789abcdef0';
  expect((await failure(ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: [missing] })))).name).toBe(
    'InvalidGroup.NotFound',
  );
  expect((await failure(ec2.send(new RevokeSecurityGroupIngressCommand(selfIngress(missing))))).name).toBe(
    'InvalidGroup.NotFound',
  );
  expect((await failure(ec2.send(new DescribeSecurityGroupsCommand({ GroupIds: ['nope'] })))).name).toBe(
    'InvalidGroupId.Malformed',
  );
  const vpc = await create('AWS::EC2::VPC', { CidrBlock: '10.3.0.0/16' });
  const groupId = vpc.DefaultSecurityGroup as string;
  const bad = [
    { IpProtocol: 'bogus', IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
    { IpProtocol: 'tcp', IpRanges: [{ CidrIp: '0.0.0.0/0' }] },
    { IpProtocol: 'tcp', FromPort: 1, ToPort: 2, IpRanges: [{ CidrIp: 'not-a-cidr' }] },
  ];
  for (const p of bad)
    expect(
      (
        await failure(
          ec2.send(new AuthorizeSecurityGroupIngressCommand({ GroupId: groupId, IpPermissions: [p] })),
        )
      ).name,
    ).toBe('InvalidParameterValue');
  const pairToMissing = {
    GroupId: groupId,
    IpPermissions: [{ IpProtocol: '-1', UserIdGroupPairs: [{ GroupId: missing }] }],
  };
  expect((await failure(ec2.send(new AuthorizeSecurityGroupIngressCommand(pairToMissing)))).name).toBe(
    'InvalidGroup.NotFound',
  );
  const dry = await failure(
    ec2.send(new RevokeSecurityGroupEgressCommand({ ...allEgress(groupId), DryRun: true })),
  );
  expect(dry.name).toBe('DryRunOperation');
  // The dry run changed nothing.
  expect((await describe1(groupId)).IpPermissionsEgress).toHaveLength(1);
});

import {
  CreateRoleCommand,
  CreateUserCommand,
  GetInstanceProfileCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRolePolicyCommand,
  ListEntitiesForPolicyCommand,
  ListPolicyVersionsCommand,
  ListRolePoliciesCommand,
  ListUserPoliciesCommand,
  PutRolePolicyCommand,
} from '@aws-sdk/client-iam';
import { IamInstanceProfileProvider } from '../src/instance-profile-provider';
import { IamManagedPolicyProvider } from '../src/managed-policy-provider';
import { IamPolicyProvider } from '../src/policy-provider';
import {
  REGION,
  STACK,
  TRUST,
  allow,
  createContext,
  decode,
  rejection,
  uniqueName,
  usePackEnv,
} from './helpers';

const POLICY = 'AWS::IAM::Policy';
const MANAGED = 'AWS::IAM::ManagedPolicy';
const PROFILE = 'AWS::IAM::InstanceProfile';
const env = usePackEnv();
const policies = () => new IamPolicyProvider(env.ctx);
const managed = () => new IamManagedPolicyProvider(env.ctx);
const profiles = () => new IamInstanceProfileProvider(env.ctx);
const CTX = { stackName: STACK, expectedRegion: REGION };

async function newRole(): Promise<string> {
  const RoleName = uniqueName('role');
  await env.iam.send(new CreateRoleCommand({ RoleName, AssumeRolePolicyDocument: JSON.stringify(TRUST) }));
  return RoleName;
}
const rolePolicies = async (RoleName: string) =>
  (await env.iam.send(new ListRolePoliciesCommand({ RoleName }))).PolicyNames;

describe('AWS::IAM::Policy', () => {
  it('puts the policy on its roles and users, moves it on update, renames it, and deletes it', async () => {
    const [r1, r2] = [await newRole(), await newRole()];
    const user = uniqueName('user');
    await env.iam.send(new CreateUserCommand({ UserName: user }));
    const before = { PolicyName: 'DefaultPolicy', PolicyDocument: allow('s3:*'), Roles: [r1], Users: [user] };
    const created = await policies().create('Default', POLICY, before, createContext('Default'));
    expect(created).toMatchObject({ physicalId: 'DefaultPolicy', attributes: { Id: 'DefaultPolicy' } });
    expect(await rolePolicies(r1)).toEqual(['DefaultPolicy']);
    expect((await env.iam.send(new ListUserPoliciesCommand({ UserName: user }))).PolicyNames).toEqual([
      'DefaultPolicy',
    ]);

    // A new document on r2 only (user removed): r1 and the user lose the policy.
    const moved = { PolicyName: 'DefaultPolicy', PolicyDocument: allow('sqs:*'), Roles: [r2] };
    await policies().update('Default', 'DefaultPolicy', POLICY, moved, before, CTX);
    expect(await rolePolicies(r1)).toEqual([]);
    expect((await env.iam.send(new ListUserPoliciesCommand({ UserName: user }))).PolicyNames).toEqual([]);
    expect(
      decode(
        (await env.iam.send(new GetRolePolicyCommand({ RoleName: r2, PolicyName: 'DefaultPolicy' })))
          .PolicyDocument,
      ),
    ).toEqual(allow('sqs:*'));

    const renamed = { ...moved, PolicyName: 'Renamed' };
    const result = await policies().update('Default', 'DefaultPolicy', POLICY, renamed, moved, CTX);
    expect(result).toMatchObject({
      physicalId: 'Renamed',
      wasReplaced: false,
      attributes: { Id: 'Renamed' },
    });
    expect(await rolePolicies(r2)).toEqual(['Renamed']);
    expect(await policies().readCurrentState('Renamed', 'Default', POLICY, renamed)).toMatchObject({
      PolicyName: 'Renamed',
      PolicyDocument: allow('sqs:*'),
      Roles: [r2],
    });

    await policies().delete('Default', 'Renamed', POLICY, renamed, CTX);
    expect(await rolePolicies(r2)).toEqual([]);
    await policies().delete('Default', 'Renamed', POLICY, renamed, CTX);
  });

  it("refuses a name another stack's document holds on the role, writing nothing", async () => {
    const role = await newRole();
    await env.iam.send(
      new PutRolePolicyCommand({
        RoleName: role,
        PolicyName: 'Taken',
        PolicyDocument: JSON.stringify(allow('ec2:*')),
      }),
    );
    const err = await rejection(
      policies().create(
        'Mine',
        POLICY,
        { PolicyName: 'Taken', PolicyDocument: allow('s3:*'), Roles: [role] },
        createContext('Mine'),
      ),
    );
    expect(err.code).toBe('RESOURCE_ALREADY_EXISTS');
    expect(
      decode(
        (await env.iam.send(new GetRolePolicyCommand({ RoleName: role, PolicyName: 'Taken' })))
          .PolicyDocument,
      ),
    ).toEqual(allow('ec2:*'));
  });

  it('a role that does not exist fails the create with NoSuchEntity', async () => {
    const err = await rejection(
      policies().create(
        'Orphan',
        POLICY,
        { PolicyName: 'P', PolicyDocument: allow('s3:*'), Roles: ['no-such-role'] },
        createContext('Orphan'),
      ),
    );
    expect(err.message).toMatch(/NoSuchEntity/);
  });
});

describe('AWS::IAM::ManagedPolicy', () => {
  it('creates a policy with every attribute, attaches it, versions its document, detaches and deletes it', async () => {
    const role = await newRole();
    const context = createContext('Shared');
    const before = { Description: 'shared', Path: '/app/', PolicyDocument: allow('s3:*'), Roles: [role] };
    const { physicalId, attributes } = await managed().create('Shared', MANAGED, before, context);
    const name = context.generatePhysicalName!({ maxLength: 128, extraCharacters: '_+=,.@-' });
    expect(physicalId).toBe(`arn:aws:iam::123456789012:policy/app/${name}`);
    const policy = (await env.iam.send(new GetPolicyCommand({ PolicyArn: physicalId }))).Policy!;
    expect(attributes).toEqual({
      PolicyArn: physicalId,
      PolicyId: policy.PolicyId,
      DefaultVersionId: 'v1',
      AttachmentCount: 1,
      PermissionsBoundaryUsageCount: 0,
      IsAttachable: true,
      CreateDate: policy.CreateDate!.toISOString(),
      UpdateDate: policy.UpdateDate!.toISOString(),
    });
    expect(await managed().getAttribute(physicalId, MANAGED, 'PolicyId')).toBe(policy.PolicyId);

    // Documents change through new versions; IAM keeps at most five, so old ones are pruned.
    let previous: Record<string, unknown> = before;
    for (let i = 1; i <= 6; i++) {
      const next = { ...before, PolicyDocument: allow(`s3:Action${i}`), Roles: [] };
      await managed().update('Shared', physicalId, MANAGED, next, previous, CTX);
      previous = next;
    }
    const versions = (await env.iam.send(new ListPolicyVersionsCommand({ PolicyArn: physicalId }))).Versions!;
    expect(versions.length).toBeLessThanOrEqual(5);
    const current = versions.find((v) => v.IsDefaultVersion)!;
    expect(
      decode(
        (
          await env.iam.send(
            new GetPolicyVersionCommand({ PolicyArn: physicalId, VersionId: current.VersionId }),
          )
        ).PolicyVersion!.Document,
      ),
    ).toEqual(allow('s3:Action6'));
    expect(
      (await env.iam.send(new ListEntitiesForPolicyCommand({ PolicyArn: physicalId }))).PolicyRoles,
    ).toEqual([]);
    expect(await managed().readCurrentState(physicalId)).toMatchObject({
      ManagedPolicyName: name,
      Description: 'shared',
      Path: '/app/',
      PolicyDocument: allow('s3:Action6'),
    });

    await managed().update('Shared', physicalId, MANAGED, before, previous, CTX);
    await managed().delete('Shared', physicalId, MANAGED, before, CTX);
    const gone = await rejection(env.iam.send(new GetPolicyCommand({ PolicyArn: physicalId })));
    expect(gone.name).toBe('NoSuchEntityException');
    await managed().delete('Shared', physicalId, MANAGED, before, CTX);
  });

  it('a document IAM rejects fails the create and leaves no policy behind', async () => {
    const err = await rejection(
      managed().create(
        'Bad',
        MANAGED,
        { PolicyDocument: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: 's3:*' }] } },
        createContext('Bad'),
      ),
    );
    expect(err.message).toMatch(/MalformedPolicyDocument/);
  });
});

describe('AWS::IAM::InstanceProfile', () => {
  it('creates a profile with its role, swaps the role on update, and deletes it', async () => {
    const [r1, r2] = [await newRole(), await newRole()];
    const context = createContext('Profile');
    const { physicalId, attributes } = await profiles().create('Profile', PROFILE, { Roles: [r1] }, context);
    expect(attributes).toEqual({ Arn: `arn:aws:iam::123456789012:instance-profile/${physicalId}` });
    const rolesOf = async () =>
      (
        await env.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: physicalId }))
      ).InstanceProfile!.Roles!.map((r) => r.RoleName);
    expect(await rolesOf()).toEqual([r1]);
    await profiles().update('Profile', physicalId, PROFILE, { Roles: [r2] }, { Roles: [r1] }, CTX);
    expect(await rolesOf()).toEqual([r2]);
    expect(await profiles().getAttribute(physicalId, PROFILE, 'Arn')).toBe(attributes!.Arn);
    await profiles().delete('Profile', physicalId, PROFILE, { Roles: [r2] }, CTX);
    const gone = await rejection(
      env.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: physicalId })),
    );
    expect(gone.name).toBe('NoSuchEntityException');
    await profiles().delete('Profile', physicalId, PROFILE, { Roles: [r2] }, CTX);
  });

  it('a role that does not exist fails the create and leaves no profile behind', async () => {
    const context = createContext('NoRole');
    const err = await rejection(profiles().create('NoRole', PROFILE, { Roles: ['no-such-role'] }, context));
    expect(err.message).toMatch(/NoSuchEntity/);
    const name = context.generatePhysicalName!({ maxLength: 64, extraCharacters: '_+=,.@-' });
    const gone = await rejection(env.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })));
    expect(gone.name).toBe('NoSuchEntityException');
  });
});

import {
  CreateGroupCommand,
  CreateUserCommand,
  GetGroupCommand,
  GetLoginProfileCommand,
  GetUserCommand,
  ListAccessKeysCommand,
  ListAttachedGroupPoliciesCommand,
  ListAttachedUserPoliciesCommand,
  ListGroupPoliciesCommand,
  ListGroupsForUserCommand,
  ListUserPoliciesCommand,
} from '@aws-sdk/client-iam';
import { IamAccessKeyProvider } from '../src/access-key-provider';
import { IamGroupProvider } from '../src/group-provider';
import { IamUserToGroupAdditionProvider } from '../src/user-to-group-provider';
import { IamUserProvider } from '../src/user-provider';
import {
  BASIC,
  READ_ONLY,
  REGION,
  STACK,
  allow,
  createContext,
  rejection,
  uniqueName,
  usePackEnv,
} from './helpers';

const USER = 'AWS::IAM::User';
const GROUP = 'AWS::IAM::Group';
const ADDITION = 'AWS::IAM::UserToGroupAddition';
const KEY = 'AWS::IAM::AccessKey';
const env = usePackEnv();
const users = () => new IamUserProvider(env.ctx);
const groups = () => new IamGroupProvider(env.ctx);
const additions = () => new IamUserToGroupAdditionProvider(env.ctx);
const keys = () => new IamAccessKeyProvider(env.ctx);
const CTX = { stackName: STACK, expectedRegion: REGION };

const groupsOf = async (UserName: string) =>
  (await env.iam.send(new ListGroupsForUserCommand({ UserName }))).Groups!.map((g) => g.GroupName).sort();
const missing = (promise: Promise<unknown>) =>
  promise.then(
    () => false,
    (err: Error) => (err.name === 'NoSuchEntityException' ? true : Promise.reject(err)),
  );

describe('AWS::IAM::Group', () => {
  it('creates, updates in place (removed path, policies reset) and deletes a group', async () => {
    const before = {
      Path: '/teams/',
      Policies: [{ PolicyName: 'read', PolicyDocument: allow('s3:GetObject') }],
      ManagedPolicyArns: [READ_ONLY],
    };
    const context = createContext('Team');
    const { physicalId, attributes } = await groups().create('Team', GROUP, before, context);
    expect(physicalId).toBe(context.generatePhysicalName!({ maxLength: 64, extraCharacters: '_+=,.@-' }));
    expect(attributes).toEqual({ Arn: `arn:aws:iam::123456789012:group/teams/${physicalId}` });
    expect(await groups().getAttribute(physicalId, GROUP, 'Arn')).toBe(attributes!.Arn);

    const after = { Policies: [{ PolicyName: 'write', PolicyDocument: allow('s3:PutObject') }] };
    const updated = await groups().update('Team', physicalId, GROUP, after, before, CTX);
    expect(updated.attributes).toEqual({ Arn: `arn:aws:iam::123456789012:group/${physicalId}` });
    expect((await env.iam.send(new GetGroupCommand({ GroupName: physicalId }))).Group!.Path).toBe('/');
    expect((await env.iam.send(new ListGroupPoliciesCommand({ GroupName: physicalId }))).PolicyNames).toEqual(
      ['write'],
    );
    expect(
      (await env.iam.send(new ListAttachedGroupPoliciesCommand({ GroupName: physicalId }))).AttachedPolicies,
    ).toEqual([]);

    await groups().delete('Team', physicalId, GROUP, after, CTX);
    expect(await missing(env.iam.send(new GetGroupCommand({ GroupName: physicalId })))).toBe(true);
    // Deleting again: IAM's NoSuchEntity in the recorded region counts as deleted.
    await groups().delete('Team', physicalId, GROUP, after, CTX);
  });

  it('refuses a named group that exists and was not made by this create', async () => {
    const name = uniqueName('shared-group');
    await env.iam.send(new CreateGroupCommand({ GroupName: name }));
    const err = await rejection(
      groups().create('Shared', GROUP, { GroupName: name }, createContext('Shared')),
    );
    expect(err.code).toBe('RESOURCE_ALREADY_EXISTS');
    expect(err.message).toMatch(name);
  });
});

describe('AWS::IAM::User', () => {
  it('creates a user with groups, policies, boundary, login profile and tags; updates and resets them', async () => {
    const group = uniqueName('g');
    await env.iam.send(new CreateGroupCommand({ GroupName: group }));
    const before = {
      Path: '/people/',
      Groups: [group],
      Policies: [{ PolicyName: 'p', PolicyDocument: allow('sqs:*') }],
      ManagedPolicyArns: [BASIC],
      PermissionsBoundary: READ_ONLY,
      LoginProfile: { Password: 'Correct-Horse-1', PasswordResetRequired: true },
      Tags: [{ Key: 'team', Value: 'core' }],
    };
    const context = createContext('Person');
    const { physicalId, attributes } = await users().create('Person', USER, before, context);
    expect(physicalId).toMatch(new RegExp(`^${STACK}-Person-[A-Z2-7]{13}$`));
    expect(attributes).toEqual({ Arn: `arn:aws:iam::123456789012:user/people/${physicalId}` });
    const user = (await env.iam.send(new GetUserCommand({ UserName: physicalId }))).User!;
    expect(user.PermissionsBoundary?.PermissionsBoundaryArn).toBe(READ_ONLY);
    expect(Object.fromEntries(user.Tags!.map((t) => [t.Key, t.Value]))).toMatchObject({
      team: 'core',
      ...context.ownership!.tags,
    });
    expect(await groupsOf(physicalId)).toEqual([group]);
    expect(
      (await env.iam.send(new GetLoginProfileCommand({ UserName: physicalId }))).LoginProfile!
        .PasswordResetRequired,
    ).toBe(true);

    // Everything optional removed: IAM's defaults (path /, no boundary, no password, no groups).
    await users().update('Person', physicalId, USER, {}, before, CTX);
    const after = (await env.iam.send(new GetUserCommand({ UserName: physicalId }))).User!;
    expect(after.Path).toBe('/');
    expect(after.PermissionsBoundary).toBeUndefined();
    expect(after.Tags?.find((t) => t.Key === 'team')).toBeUndefined();
    expect(after.Tags).toEqual(expect.arrayContaining([{ Key: 'cdkd:stack-name', Value: STACK }]));
    expect(await groupsOf(physicalId)).toEqual([]);
    expect(await missing(env.iam.send(new GetLoginProfileCommand({ UserName: physicalId })))).toBe(true);
    expect((await env.iam.send(new ListUserPoliciesCommand({ UserName: physicalId }))).PolicyNames).toEqual(
      [],
    );
    expect(
      (await env.iam.send(new ListAttachedUserPoliciesCommand({ UserName: physicalId }))).AttachedPolicies,
    ).toEqual([]);
    expect(await users().readCurrentState(physicalId, 'Person', USER, {})).toMatchObject({ Path: '/' });

    await users().update('Person', physicalId, USER, before, {}, CTX);
    await users().delete('Person', physicalId, USER, before, CTX);
    expect(await missing(env.iam.send(new GetUserCommand({ UserName: physicalId })))).toBe(true);
  });

  it('a group that does not exist fails the create and leaves no user behind', async () => {
    const context = createContext('Lonely');
    await env.emulator.control.clearRequests();
    const err = await rejection(users().create('Lonely', USER, { Groups: ['no-such-group'] }, context));
    expect(err.message).toMatch(/NoSuchEntity/);
    // Retried as IAM propagation, bounded.
    expect((await env.emulator.control.requests()).byOperation['iam:AddUserToGroup']).toBe(5);
    const name = context.generatePhysicalName!({ maxLength: 64, extraCharacters: '_+=,.@-' });
    expect(await missing(env.iam.send(new GetUserCommand({ UserName: name })))).toBe(true);
  });
});

describe('AWS::IAM::UserToGroupAddition', () => {
  it('adds users, moves them on update and takes only its own memberships back on delete', async () => {
    const group = uniqueName('g');
    const [a, b, c] = [uniqueName('a'), uniqueName('b'), uniqueName('c')];
    await env.iam.send(new CreateGroupCommand({ GroupName: group }));
    for (const UserName of [a, b, c]) await env.iam.send(new CreateUserCommand({ UserName }));
    const before = { GroupName: group, Users: [a, b] };
    const context = createContext('Members');
    const { physicalId, attributes } = await additions().create('Members', ADDITION, before, context);
    expect(attributes).toEqual({ Id: physicalId });
    expect(physicalId).toMatch(/Members/);
    expect(await groupsOf(a)).toEqual([group]);
    expect(await groupsOf(b)).toEqual([group]);

    const after = { GroupName: group, Users: [b, c] };
    await additions().update('Members', physicalId, ADDITION, after, before, CTX);
    expect([await groupsOf(a), await groupsOf(b), await groupsOf(c)]).toEqual([[], [group], [group]]);

    await additions().delete('Members', physicalId, ADDITION, after, CTX);
    expect([await groupsOf(b), await groupsOf(c)]).toEqual([[], []]);
    // A second delete (memberships and even the group gone) is already done.
    await additions().delete('Members', physicalId, ADDITION, after, CTX);
  });

  it('a user that does not exist fails the create and takes back the memberships it added', async () => {
    const group = uniqueName('g');
    const a = uniqueName('a');
    await env.iam.send(new CreateGroupCommand({ GroupName: group }));
    await env.iam.send(new CreateUserCommand({ UserName: a }));
    const err = await rejection(
      additions().create('Half', ADDITION, { GroupName: group, Users: [a, 'nobody'] }, createContext('Half')),
    );
    expect(err.message).toMatch(/NoSuchEntity/);
    expect(await groupsOf(a)).toEqual([]);
  });
});

describe('AWS::IAM::AccessKey', () => {
  it('creates a key whose secret is no-echo, deactivates and reactivates it, and deletes it', async () => {
    const UserName = uniqueName('key-user');
    await env.iam.send(new CreateUserCommand({ UserName }));
    const created = await keys().create('Key', KEY, { UserName, Status: 'Inactive' }, createContext('Key'));
    expect(created.physicalId).toMatch(/^AKIA[A-Z0-9]{16}$/);
    expect(created.attributes).toEqual({ Id: created.physicalId, SecretAccessKey: expect.any(String) });
    expect(created.noEchoAttributeNames).toEqual(['SecretAccessKey']);
    const statusOf = async () =>
      (await env.iam.send(new ListAccessKeysCommand({ UserName }))).AccessKeyMetadata!.map((k) => k.Status);
    expect(await statusOf()).toEqual(['Inactive']);

    // Status removed from the template: Active, IAM's default.
    await keys().update('Key', created.physicalId, KEY, { UserName }, { UserName, Status: 'Inactive' }, CTX);
    expect(await statusOf()).toEqual(['Active']);
    expect(await keys().readCurrentState(created.physicalId, 'Key', KEY, { UserName })).toMatchObject({
      UserName,
      Status: 'Active',
    });

    await keys().delete('Key', created.physicalId, KEY, { UserName }, CTX);
    expect(await statusOf()).toEqual([]);
    await keys().delete('Key', created.physicalId, KEY, { UserName }, CTX);
  });

  it('a lost CreateAccessKey reply leaves exactly one key (the retry reconciles the one made first)', async () => {
    const UserName = uniqueName('key-user');
    await env.iam.send(new CreateUserCommand({ UserName }));
    await env.emulator.control.addFault({
      service: 'iam',
      operation: 'CreateAccessKey',
      mode: 'drop',
      count: 1,
    });
    const created = await keys().create('Key', KEY, { UserName }, createContext('Key'));
    const listed = (await env.iam.send(new ListAccessKeysCommand({ UserName }))).AccessKeyMetadata!;
    expect(listed.map((k) => k.AccessKeyId)).toEqual([created.physicalId]);
  });

  it('needs a UserName, and names the remedy', async () => {
    const err = await rejection(keys().create('Key', KEY, {}, createContext('Key')));
    expect(err.message).toBe('Key needs a UserName.');
    expect(err.remedy).toMatch(/Set UserName/);
  });
});

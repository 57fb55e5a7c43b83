/**
 * IAM through the real `@aws-sdk/client-iam`: every operation the emulator
 * answers, IAM's errors and quotas, paging, IAM being global (one account's
 * IAM seen from every region), and the shared view with Cloud Control and the
 * inventory in both directions.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import {
  AddClientIDToOpenIDConnectProviderCommand,
  AddRoleToInstanceProfileCommand,
  AddUserToGroupCommand,
  AttachGroupPolicyCommand,
  AttachRolePolicyCommand,
  AttachUserPolicyCommand,
  CreateAccessKeyCommand,
  CreateGroupCommand,
  CreateInstanceProfileCommand,
  CreateLoginProfileCommand,
  CreateOpenIDConnectProviderCommand,
  CreatePolicyCommand,
  CreatePolicyVersionCommand,
  CreateRoleCommand,
  CreateUserCommand,
  DeleteAccessKeyCommand,
  DeleteGroupCommand,
  DeleteGroupPolicyCommand,
  DeleteInstanceProfileCommand,
  DeleteLoginProfileCommand,
  DeleteOpenIDConnectProviderCommand,
  DeletePolicyCommand,
  DeletePolicyVersionCommand,
  DeleteRoleCommand,
  DeleteRolePermissionsBoundaryCommand,
  DeleteRolePolicyCommand,
  DeleteUserCommand,
  DeleteUserPolicyCommand,
  DetachRolePolicyCommand,
  GetAccessKeyLastUsedCommand,
  GetGroupCommand,
  GetGroupPolicyCommand,
  GetInstanceProfileCommand,
  GetLoginProfileCommand,
  GetOpenIDConnectProviderCommand,
  GetPolicyCommand,
  GetPolicyVersionCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  GetUserCommand,
  GetUserPolicyCommand,
  IAMClient,
  ListAccessKeysCommand,
  ListAttachedGroupPoliciesCommand,
  ListAttachedRolePoliciesCommand,
  ListAttachedUserPoliciesCommand,
  ListEntitiesForPolicyCommand,
  ListGroupPoliciesCommand,
  ListGroupsCommand,
  ListGroupsForUserCommand,
  ListInstanceProfilesCommand,
  ListInstanceProfilesForRoleCommand,
  ListOpenIDConnectProvidersCommand,
  ListPoliciesCommand,
  ListPolicyTagsCommand,
  ListPolicyVersionsCommand,
  ListRolePoliciesCommand,
  ListRolesCommand,
  ListRoleTagsCommand,
  ListUserPoliciesCommand,
  ListUsersCommand,
  ListUserTagsCommand,
  PutGroupPolicyCommand,
  PutRolePermissionsBoundaryCommand,
  PutRolePolicyCommand,
  PutUserPermissionsBoundaryCommand,
  PutUserPolicyCommand,
  RemoveClientIDFromOpenIDConnectProviderCommand,
  RemoveRoleFromInstanceProfileCommand,
  RemoveUserFromGroupCommand,
  SetDefaultPolicyVersionCommand,
  TagPolicyCommand,
  TagRoleCommand,
  TagUserCommand,
  UntagRoleCommand,
  UpdateAccessKeyCommand,
  UpdateAssumeRolePolicyCommand,
  UpdateGroupCommand,
  UpdateLoginProfileCommand,
  UpdateOpenIDConnectProviderThumbprintCommand,
  UpdateRoleCommand,
  UpdateRoleDescriptionCommand,
  UpdateUserCommand,
  ListInstanceProfileTagsCommand,
  ListOpenIDConnectProviderTagsCommand,
  TagOpenIDConnectProviderCommand,
  TagInstanceProfileCommand,
  UntagUserCommand,
  UntagPolicyCommand,
  DetachUserPolicyCommand,
  DetachGroupPolicyCommand,
  DeleteUserPermissionsBoundaryCommand,
} from '@aws-sdk/client-iam';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startEmulator } from '../src/index';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
const ACCOUNT = '123456789012';
let iam: IAMClient;
let iamElsewhere: IAMClient;
let cc: CloudControlClient;

beforeAll(() => {
  iam = new IAMClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
  iamElsewhere = new IAMClient({ ...clientConfig(ctx.emulator, 'ap-southeast-2'), maxAttempts: 1 });
  cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => {
  iam.destroy();
  iamElsewhere.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

const TRUST = JSON.stringify({
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
});
const doc = (action = 's3:GetObject', resource: string | string[] = '*') =>
  JSON.stringify({
    Version: '2012-10-17',
    Statement: [{ Effect: 'Allow', Action: action, Resource: resource }],
  });
const decode = (s: string | undefined) => JSON.parse(decodeURIComponent(s ?? '')) as unknown;
const BASIC = 'arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole';

async function fails(
  promise: Promise<unknown>,
): Promise<Error & { $metadata?: { httpStatusCode?: number } }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the call to fail');
}

const role = (RoleName: string, extra: Record<string, unknown> = {}) =>
  iam.send(new CreateRoleCommand({ RoleName, AssumeRolePolicyDocument: TRUST, ...extra }));

describe('roles', () => {
  test('create, get (any case, any region), update, list, tags, delete', async () => {
    const created = await role('App-Role', {
      Path: '/service/',
      Description: 'the app',
      MaxSessionDuration: 7200,
      Tags: [{ Key: 'team', Value: 'core' }],
    });
    expect(created.Role).toMatchObject({
      RoleName: 'App-Role',
      Path: '/service/',
      Arn: `arn:aws:iam::${ACCOUNT}:role/service/App-Role`,
      Description: 'the app',
      MaxSessionDuration: 7200,
    });
    expect(created.Role!.RoleId).toMatch(/^AROA[A-Z0-9]{17}$/);
    expect(created.Role!.CreateDate).toBeInstanceOf(Date);
    expect(decode(created.Role!.AssumeRolePolicyDocument)).toEqual(JSON.parse(TRUST));

    // IAM is global: a client signing for another region sees the same role; names ignore case.
    const got = await iamElsewhere.send(new GetRoleCommand({ RoleName: 'app-role' }));
    expect(got.Role).toMatchObject({
      RoleName: 'App-Role',
      RoleId: created.Role!.RoleId,
      Tags: [{ Key: 'team', Value: 'core' }],
    });

    await iam.send(
      new UpdateRoleCommand({ RoleName: 'App-Role', MaxSessionDuration: 3600, Description: 'now' }),
    );
    const described = await iam.send(
      new UpdateRoleDescriptionCommand({ RoleName: 'App-Role', Description: 'desc' }),
    );
    expect(described.Role).toMatchObject({ Description: 'desc', MaxSessionDuration: 3600 });
    const trust2 = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` }, Action: 'sts:AssumeRole' },
      ],
    });
    await iam.send(new UpdateAssumeRolePolicyCommand({ RoleName: 'App-Role', PolicyDocument: trust2 }));
    expect(
      decode((await iam.send(new GetRoleCommand({ RoleName: 'App-Role' }))).Role!.AssumeRolePolicyDocument),
    ).toEqual(JSON.parse(trust2));

    await iam.send(
      new TagRoleCommand({
        RoleName: 'App-Role',
        Tags: [
          { Key: 'env', Value: 'dev' },
          { Key: 'team', Value: 'x' },
        ],
      }),
    );
    await iam.send(new UntagRoleCommand({ RoleName: 'App-Role', TagKeys: ['env'] }));
    expect((await iam.send(new ListRoleTagsCommand({ RoleName: 'App-Role' }))).Tags).toEqual([
      { Key: 'team', Value: 'x' },
    ]);

    await iam.send(new DeleteRoleCommand({ RoleName: 'APP-ROLE' }));
    expect(await fails(iam.send(new GetRoleCommand({ RoleName: 'App-Role' })))).toMatchObject({
      name: 'NoSuchEntityException',
      message: 'The role with name App-Role cannot be found.',
      $metadata: { httpStatusCode: 404 },
    });
  });

  test('ListRoles pages with Marker and MaxItems and filters by path', async () => {
    for (const name of ['c', 'a', 'b', 'd']) await role(name, name === 'd' ? { Path: '/other/' } : {});
    const first = await iam.send(new ListRolesCommand({ MaxItems: 2 }));
    expect(first.Roles!.map((r) => r.RoleName)).toEqual(['a', 'b']);
    expect(first.IsTruncated).toBe(true);
    const second = await iam.send(new ListRolesCommand({ MaxItems: 2, Marker: first.Marker }));
    expect(second.Roles!.map((r) => r.RoleName)).toEqual(['c', 'd']);
    expect(second.IsTruncated).toBe(false);
    expect(
      (await iam.send(new ListRolesCommand({ PathPrefix: '/other/' }))).Roles!.map((r) => r.RoleName),
    ).toEqual(['d']);
    expect(await fails(iam.send(new ListRolesCommand({ MaxItems: 0 })))).toMatchObject({
      name: 'ValidationError',
    });
  });

  test('validation: names, lengths, session durations, trust policies', async () => {
    expect(await fails(role('bad name'))).toMatchObject({
      name: 'ValidationError',
      message: expect.stringContaining(
        "at 'roleName' failed to satisfy constraint: Member must satisfy regular expression pattern: [\\w+=,.@-]+",
      ),
    });
    expect(await fails(role('r'.repeat(65)))).toMatchObject({
      message: expect.stringContaining('Member must have length less than or equal to 64'),
    });
    await role('r'.repeat(64));
    expect(await fails(role('x', { MaxSessionDuration: 60 }))).toMatchObject({ name: 'ValidationError' });
    expect(await fails(role('x', { Path: 'no-slash' }))).toMatchObject({ name: 'ValidationError' });
    const withResource = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { Service: 'ec2.amazonaws.com' },
          Action: 'sts:AssumeRole',
          Resource: '*',
        },
      ],
    });
    expect(
      await fails(iam.send(new CreateRoleCommand({ RoleName: 'x', AssumeRolePolicyDocument: withResource }))),
    ).toMatchObject({
      name: 'MalformedPolicyDocumentException',
      message: 'Has prohibited field Resource',
      $metadata: { httpStatusCode: 400 },
    });
    const noPrincipal = JSON.stringify({ Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole' }] });
    expect(
      await fails(iam.send(new CreateRoleCommand({ RoleName: 'x', AssumeRolePolicyDocument: noPrincipal }))),
    ).toMatchObject({
      message: 'Missing required field Principal',
    });
    await role('taken');
    expect(await fails(role('TAKEN'))).toMatchObject({
      name: 'EntityAlreadyExistsException',
      message: 'Role with name TAKEN already exists.',
      $metadata: { httpStatusCode: 409 },
    });
    expect(
      await fails(role('boundary', { PermissionsBoundary: 'arn:aws:iam::aws:policy/Nope' })),
    ).toMatchObject({
      name: 'NoSuchEntityException',
    });
    expect(await fails(role('tags', { Tags: [{ Key: 'aws:x', Value: 'y' }] }))).toMatchObject({
      name: 'InvalidInputException',
    });
  });

  test('permissions boundaries', async () => {
    await role('bounded', { PermissionsBoundary: BASIC });
    expect((await iam.send(new GetRoleCommand({ RoleName: 'bounded' }))).Role!.PermissionsBoundary).toEqual({
      PermissionsBoundaryType: 'Policy',
      PermissionsBoundaryArn: BASIC,
    });
    expect(
      (await iam.send(new GetPolicyCommand({ PolicyArn: BASIC }))).Policy!.PermissionsBoundaryUsageCount,
    ).toBe(1);
    await iam.send(new DeleteRolePermissionsBoundaryCommand({ RoleName: 'bounded' }));
    expect(
      (await iam.send(new GetRoleCommand({ RoleName: 'bounded' }))).Role!.PermissionsBoundary,
    ).toBeUndefined();
    await iam.send(
      new PutRolePermissionsBoundaryCommand({ RoleName: 'bounded', PermissionsBoundary: BASIC }),
    );
    expect(
      (await iam.send(new GetRoleCommand({ RoleName: 'bounded' }))).Role!.PermissionsBoundary
        ?.PermissionsBoundaryArn,
    ).toBe(BASIC);
  });

  test('DeleteRole refuses while the role has inline or attached policies or an instance profile (DeleteConflict)', async () => {
    await role('busy');
    await iam.send(
      new PutRolePolicyCommand({ RoleName: 'busy', PolicyName: 'inline', PolicyDocument: doc() }),
    );
    await iam.send(new AttachRolePolicyCommand({ RoleName: 'busy', PolicyArn: BASIC }));
    await iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'busy-profile' }));
    await iam.send(
      new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'busy-profile', RoleName: 'busy' }),
    );
    const conflict = (message: string) => ({
      name: 'DeleteConflictException',
      message,
      $metadata: { httpStatusCode: 409 },
    });
    expect(await fails(iam.send(new DeleteRoleCommand({ RoleName: 'busy' })))).toMatchObject(
      conflict('Cannot delete entity, must remove roles from instance profile first.'),
    );
    await iam.send(
      new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: 'busy-profile', RoleName: 'busy' }),
    );
    expect(await fails(iam.send(new DeleteRoleCommand({ RoleName: 'busy' })))).toMatchObject(
      conflict('Cannot delete entity, must delete policies first.'),
    );
    await iam.send(new DeleteRolePolicyCommand({ RoleName: 'busy', PolicyName: 'inline' }));
    expect(await fails(iam.send(new DeleteRoleCommand({ RoleName: 'busy' })))).toMatchObject(
      conflict('Cannot delete entity, must detach all policies first.'),
    );
    await iam.send(new DetachRolePolicyCommand({ RoleName: 'busy', PolicyArn: BASIC }));
    await iam.send(new DeleteRoleCommand({ RoleName: 'busy' }));
  });

  test('throttling answered by a fault is retried by the SDK, and surfaces when it persists', async () => {
    const retrying = new IAMClient({ ...clientConfig(ctx.emulator), maxAttempts: 3 });
    await ctx.emulator.control.addFault({
      service: 'iam',
      operation: 'CreateRole',
      error: 'Throttling',
      count: 1,
    });
    expect(
      (
        await retrying.send(
          new CreateRoleCommand({ RoleName: 'eventually', AssumeRolePolicyDocument: TRUST }),
        )
      ).$metadata.attempts,
    ).toBe(2);
    await ctx.emulator.control.addFault({
      service: 'iam',
      operation: 'GetRole',
      error: 'Throttling',
      count: 5,
    });
    expect(await fails(retrying.send(new GetRoleCommand({ RoleName: 'eventually' })))).toMatchObject({
      name: 'Throttling',
    });
    retrying.destroy();
  });
});

describe('inline policies of roles, users and groups', () => {
  test('put, get (URL-encoded), list, delete', async () => {
    await role('r');
    await iam.send(new CreateUserCommand({ UserName: 'u' }));
    await iam.send(new CreateGroupCommand({ GroupName: 'g' }));
    await iam.send(new PutRolePolicyCommand({ RoleName: 'r', PolicyName: 'Read', PolicyDocument: doc() }));
    await iam.send(
      new PutRolePolicyCommand({ RoleName: 'r', PolicyName: 'read', PolicyDocument: doc('s3:PutObject') }),
    );
    await iam.send(new PutRolePolicyCommand({ RoleName: 'r', PolicyName: 'Another', PolicyDocument: doc() }));
    const got = await iam.send(new GetRolePolicyCommand({ RoleName: 'r', PolicyName: 'READ' }));
    expect(got).toMatchObject({ RoleName: 'r', PolicyName: 'Read' });
    expect(decode(got.PolicyDocument)).toEqual(JSON.parse(doc('s3:PutObject')));
    expect((await iam.send(new ListRolePoliciesCommand({ RoleName: 'r' }))).PolicyNames).toEqual([
      'Another',
      'Read',
    ]);
    await iam.send(new PutUserPolicyCommand({ UserName: 'u', PolicyName: 'p', PolicyDocument: doc() }));
    await iam.send(new PutGroupPolicyCommand({ GroupName: 'g', PolicyName: 'p', PolicyDocument: doc() }));
    expect(
      decode((await iam.send(new GetUserPolicyCommand({ UserName: 'u', PolicyName: 'p' }))).PolicyDocument),
    ).toEqual(JSON.parse(doc()));
    expect(
      decode((await iam.send(new GetGroupPolicyCommand({ GroupName: 'g', PolicyName: 'p' }))).PolicyDocument),
    ).toEqual(JSON.parse(doc()));
    expect((await iam.send(new ListUserPoliciesCommand({ UserName: 'u' }))).PolicyNames).toEqual(['p']);
    expect((await iam.send(new ListGroupPoliciesCommand({ GroupName: 'g' }))).PolicyNames).toEqual(['p']);
    await iam.send(new DeleteUserPolicyCommand({ UserName: 'u', PolicyName: 'p' }));
    await iam.send(new DeleteGroupPolicyCommand({ GroupName: 'g', PolicyName: 'p' }));
    expect(
      await fails(iam.send(new DeleteRolePolicyCommand({ RoleName: 'r', PolicyName: 'gone' }))),
    ).toMatchObject({
      name: 'NoSuchEntityException',
      message: 'The role policy with name gone cannot be found.',
    });
    expect(
      await fails(iam.send(new GetRolePolicyCommand({ RoleName: 'nobody', PolicyName: 'p' }))),
    ).toMatchObject({
      message: 'The role with name nobody cannot be found.',
    });
  });

  test.each([
    ['not JSON', '{"Version":', 'Syntax errors in policy.'],
    [
      'a principal',
      JSON.stringify({ Statement: [{ Effect: 'Allow', Principal: '*', Action: 's3:*', Resource: '*' }] }),
      'Policy document should not specify a principal.',
    ],
    [
      'no resource',
      JSON.stringify({ Statement: [{ Effect: 'Allow', Action: 's3:*' }] }),
      'Policy statement must contain resources.',
    ],
    [
      'no action',
      JSON.stringify({ Statement: [{ Effect: 'Allow', Resource: '*' }] }),
      'Policy statement must contain actions.',
    ],
    [
      'no effect',
      JSON.stringify({ Statement: [{ Action: 's3:*', Resource: '*' }] }),
      'Missing required field Effect',
    ],
    [
      'an unknown version',
      JSON.stringify({ Version: '2020-01-01', Statement: [] }),
      'The policy failed legacy parsing',
    ],
    [
      'an action without a vendor',
      doc('GetObject'),
      'Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.',
    ],
    [
      'a resource that is not an ARN',
      doc('s3:GetObject', 'bucket'),
      'Resource bucket must be in ARN format or "*".',
    ],
    [
      'a non-alphanumeric Sid',
      JSON.stringify({ Statement: [{ Sid: 'a-b', Effect: 'Allow', Action: 's3:*', Resource: '*' }] }),
      expect.stringContaining('(SID) must be alpha-numeric'),
    ],
  ])('a document with %s is MalformedPolicyDocument', async (_what, document, message) => {
    await role('r');
    expect(
      await fails(
        iam.send(new PutRolePolicyCommand({ RoleName: 'r', PolicyName: 'p', PolicyDocument: document })),
      ),
    ).toMatchObject({
      name: 'MalformedPolicyDocumentException',
      message,
    });
  });

  test('the inline policies of a role are limited to 10,240 characters in all, white space not counted', async () => {
    await role('big');
    const resources = (n: number) =>
      Array.from({ length: n }, (_, i) => `arn:aws:s3:::bucket-${String(i).padStart(4, '0')}/*`);
    await iam.send(
      new PutRolePolicyCommand({
        RoleName: 'big',
        PolicyName: 'a',
        PolicyDocument: JSON.stringify(JSON.parse(doc('s3:GetObject', resources(200))), null, 8),
      }),
    );
    expect(
      await fails(
        iam.send(
          new PutRolePolicyCommand({
            RoleName: 'big',
            PolicyName: 'b',
            PolicyDocument: doc('s3:GetObject', resources(200)),
          }),
        ),
      ),
    ).toMatchObject({
      name: 'LimitExceededException',
      message: 'Maximum policy size of 10240 bytes exceeded for role big',
      $metadata: { httpStatusCode: 409 },
    });
  });
});

describe('managed policies', () => {
  test('create, get, versions (at most 5), default version, delete', async () => {
    const { Policy } = await iam.send(
      new CreatePolicyCommand({
        PolicyName: 'Readers',
        Path: '/app/',
        PolicyDocument: doc(),
        Description: 'read',
        Tags: [{ Key: 'a', Value: 'b' }],
      }),
    );
    const arn = `arn:aws:iam::${ACCOUNT}:policy/app/Readers`;
    expect(Policy).toMatchObject({
      Arn: arn,
      PolicyName: 'Readers',
      DefaultVersionId: 'v1',
      AttachmentCount: 0,
      IsAttachable: true,
    });
    expect(Policy!.PolicyId).toMatch(/^ANPA[A-Z0-9]{17}$/);
    expect((await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy).toMatchObject({
      Description: 'read',
      Tags: [{ Key: 'a', Value: 'b' }],
    });
    for (let i = 2; i <= 5; i++) {
      const { PolicyVersion } = await iam.send(
        new CreatePolicyVersionCommand({
          PolicyArn: arn,
          PolicyDocument: doc(`s3:Action${i}`),
          SetAsDefault: i === 3,
        }),
      );
      expect(PolicyVersion).toMatchObject({ VersionId: `v${i}`, IsDefaultVersion: i === 3 });
    }
    expect(
      await fails(iam.send(new CreatePolicyVersionCommand({ PolicyArn: arn, PolicyDocument: doc() }))),
    ).toMatchObject({
      name: 'LimitExceededException',
      message:
        'A managed policy can have up to 5 versions. Before you create a new version, you must delete an existing version.',
    });
    const versions = await iam.send(new ListPolicyVersionsCommand({ PolicyArn: arn }));
    expect(versions.Versions!.map((v) => [v.VersionId, v.IsDefaultVersion])).toEqual([
      ['v5', false],
      ['v4', false],
      ['v3', true],
      ['v2', false],
      ['v1', false],
    ]);
    expect(
      decode(
        (await iam.send(new GetPolicyVersionCommand({ PolicyArn: arn, VersionId: 'v3' }))).PolicyVersion!
          .Document,
      ),
    ).toEqual(JSON.parse(doc('s3:Action3')));
    expect(
      await fails(iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: 'v3' }))),
    ).toMatchObject({
      name: 'DeleteConflictException',
      message: 'Cannot delete the default version of a policy.',
    });
    await iam.send(new SetDefaultPolicyVersionCommand({ PolicyArn: arn, VersionId: 'v5' }));
    expect((await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy!.DefaultVersionId).toBe('v5');
    expect(await fails(iam.send(new DeletePolicyCommand({ PolicyArn: arn })))).toMatchObject({
      name: 'DeleteConflictException',
      message: expect.stringContaining('more than one version'),
    });
    for (const v of ['v1', 'v2', 'v3', 'v4'])
      await iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: v }));
    // Version numbers are never reused.
    expect(
      (await iam.send(new CreatePolicyVersionCommand({ PolicyArn: arn, PolicyDocument: doc() })))
        .PolicyVersion!.VersionId,
    ).toBe('v6');
    await iam.send(new DeletePolicyVersionCommand({ PolicyArn: arn, VersionId: 'v6' }));
    await iam.send(new TagPolicyCommand({ PolicyArn: arn, Tags: [{ Key: 'c', Value: 'd' }] }));
    await iam.send(new UntagPolicyCommand({ PolicyArn: arn, TagKeys: ['a'] }));
    expect((await iam.send(new ListPolicyTagsCommand({ PolicyArn: arn }))).Tags).toEqual([
      { Key: 'c', Value: 'd' },
    ]);
    await iam.send(new DeletePolicyCommand({ PolicyArn: arn }));
    expect(await fails(iam.send(new GetPolicyCommand({ PolicyArn: arn })))).toMatchObject({
      name: 'NoSuchEntityException',
    });
    expect(
      await fails(
        iam.send(
          new CreatePolicyCommand({
            PolicyName: 'big',
            PolicyDocument: doc(
              's3:GetObject',
              Array.from({ length: 300 }, (_, i) => `arn:aws:s3:::bucket-${i}/*`),
            ),
          }),
        ),
      ),
    ).toMatchObject({
      name: 'LimitExceededException',
      message: 'Cannot exceed quota for PolicySize: 6144',
    });
  });

  test('attach and detach to roles, users and groups; counts, entities, ListPolicies, conflicts', async () => {
    await role('r');
    await iam.send(new CreateUserCommand({ UserName: 'u' }));
    await iam.send(new CreateGroupCommand({ GroupName: 'g' }));
    const arn = (await iam.send(new CreatePolicyCommand({ PolicyName: 'shared', PolicyDocument: doc() })))
      .Policy!.Arn!;
    await iam.send(new AttachRolePolicyCommand({ RoleName: 'r', PolicyArn: arn }));
    await iam.send(new AttachRolePolicyCommand({ RoleName: 'r', PolicyArn: arn }));
    await iam.send(new AttachRolePolicyCommand({ RoleName: 'r', PolicyArn: BASIC }));
    await iam.send(new AttachUserPolicyCommand({ UserName: 'u', PolicyArn: arn }));
    await iam.send(new AttachGroupPolicyCommand({ GroupName: 'g', PolicyArn: arn }));
    expect((await iam.send(new ListAttachedRolePoliciesCommand({ RoleName: 'r' }))).AttachedPolicies).toEqual(
      [
        { PolicyName: 'shared', PolicyArn: arn },
        { PolicyName: 'AWSLambdaBasicExecutionRole', PolicyArn: BASIC },
      ],
    );
    expect(
      (await iam.send(new ListAttachedRolePoliciesCommand({ RoleName: 'r', PathPrefix: '/service-role/' })))
        .AttachedPolicies,
    ).toHaveLength(1);
    expect(
      (await iam.send(new ListAttachedUserPoliciesCommand({ UserName: 'u' }))).AttachedPolicies,
    ).toHaveLength(1);
    expect(
      (await iam.send(new ListAttachedGroupPoliciesCommand({ GroupName: 'g' }))).AttachedPolicies,
    ).toHaveLength(1);
    expect((await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy!.AttachmentCount).toBe(3);
    const entities = await iam.send(new ListEntitiesForPolicyCommand({ PolicyArn: arn }));
    expect(entities.PolicyRoles!.map((r) => r.RoleName)).toEqual(['r']);
    expect(entities.PolicyUsers!.map((u) => u.UserName)).toEqual(['u']);
    expect(entities.PolicyGroups!.map((g) => g.GroupName)).toEqual(['g']);
    expect(
      (await iam.send(new ListEntitiesForPolicyCommand({ PolicyArn: arn, EntityFilter: 'Role' })))
        .PolicyUsers,
    ).toEqual([]);
    expect(await fails(iam.send(new DeletePolicyCommand({ PolicyArn: arn })))).toMatchObject({
      name: 'DeleteConflictException',
      message: 'Cannot delete a policy attached to entities.',
    });
    const local = await iam.send(new ListPoliciesCommand({ Scope: 'Local' }));
    expect(local.Policies!.map((p) => p.PolicyName)).toEqual(['shared']);
    const aws = await iam.send(new ListPoliciesCommand({ Scope: 'AWS', OnlyAttached: true }));
    expect(aws.Policies!.map((p) => p.Arn)).toEqual([BASIC]);
    expect((await iam.send(new ListPoliciesCommand({ Scope: 'AWS', MaxItems: 5 }))).IsTruncated).toBe(true);
    await iam.send(new DetachUserPolicyCommand({ UserName: 'u', PolicyArn: arn }));
    await iam.send(new DetachGroupPolicyCommand({ GroupName: 'g', PolicyArn: arn }));
    expect(
      await fails(
        iam.send(
          new DetachRolePolicyCommand({ RoleName: 'r', PolicyArn: `arn:aws:iam::${ACCOUNT}:policy/other` }),
        ),
      ),
    ).toMatchObject({
      name: 'NoSuchEntityException',
    });
    expect(
      await fails(
        iam.send(
          new AttachRolePolicyCommand({ RoleName: 'r', PolicyArn: 'arn:aws:iam::aws:policy/DoesNotExist' }),
        ),
      ),
    ).toMatchObject({
      name: 'NoSuchEntityException',
      message: 'Policy arn:aws:iam::aws:policy/DoesNotExist does not exist or is not attachable.',
    });
    expect(
      await fails(iam.send(new AttachRolePolicyCommand({ RoleName: 'r', PolicyArn: 'not-an-arn' }))),
    ).toMatchObject({
      name: 'InvalidInputException',
    });
  });

  test('at most 10 managed policies per role (LimitExceeded)', async () => {
    await role('many');
    const aws = (await iam.send(new ListPoliciesCommand({ Scope: 'AWS', MaxItems: 11 }))).Policies!;
    for (const p of aws.slice(0, 10))
      await iam.send(new AttachRolePolicyCommand({ RoleName: 'many', PolicyArn: p.Arn }));
    expect(
      await fails(iam.send(new AttachRolePolicyCommand({ RoleName: 'many', PolicyArn: aws[10]!.Arn }))),
    ).toMatchObject({
      name: 'LimitExceededException',
      message: 'Cannot exceed quota for PoliciesPerRole: 10',
    });
  });

  test('AWS managed policies are there in every account; more can be seeded through the control API', async () => {
    const basic = await iam.send(new GetPolicyCommand({ PolicyArn: BASIC }));
    expect(basic.Policy).toMatchObject({ PolicyName: 'AWSLambdaBasicExecutionRole', Path: '/service-role/' });
    const version = await iam.send(
      new GetPolicyVersionCommand({ PolicyArn: BASIC, VersionId: basic.Policy!.DefaultVersionId }),
    );
    expect(JSON.stringify(decode(version.PolicyVersion!.Document))).toContain('logs:PutLogEvents');
    expect(await fails(iam.send(new DeletePolicyCommand({ PolicyArn: BASIC })))).toMatchObject({
      name: 'InvalidInputException',
    });
    const seeded = await ctx.emulator.control.seedAwsManagedPolicy({ name: 'AmazonRedshiftFullAccess' });
    expect(seeded).toEqual({ arn: 'arn:aws:iam::aws:policy/AmazonRedshiftFullAccess' });
    await role('r');
    await iam.send(
      new AttachRolePolicyCommand({
        RoleName: 'r',
        PolicyArn: 'arn:aws:iam::aws:policy/AmazonRedshiftFullAccess',
      }),
    );
  });
});

describe('instance profiles', () => {
  test('create, add a role (one at most), list, remove, delete', async () => {
    await role('r1');
    await role('r2');
    const { InstanceProfile } = await iam.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: 'web',
        Path: '/p/',
        Tags: [{ Key: 'a', Value: 'b' }],
      }),
    );
    expect(InstanceProfile).toMatchObject({
      Arn: `arn:aws:iam::${ACCOUNT}:instance-profile/p/web`,
      Roles: [],
    });
    expect(InstanceProfile!.InstanceProfileId).toMatch(/^AIPA[A-Z0-9]{17}$/);
    await iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'web', RoleName: 'r1' }));
    expect(
      await fails(
        iam.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName: 'web', RoleName: 'r2' })),
      ),
    ).toMatchObject({
      name: 'LimitExceededException',
      message: 'Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1',
    });
    expect(
      (
        await iam.send(new GetInstanceProfileCommand({ InstanceProfileName: 'web' }))
      ).InstanceProfile!.Roles!.map((r) => r.RoleName),
    ).toEqual(['r1']);
    expect(
      (await iam.send(new ListInstanceProfilesForRoleCommand({ RoleName: 'r1' }))).InstanceProfiles!.map(
        (p) => p.InstanceProfileName,
      ),
    ).toEqual(['web']);
    expect((await iam.send(new ListInstanceProfilesCommand({}))).InstanceProfiles).toHaveLength(1);
    await iam.send(
      new TagInstanceProfileCommand({ InstanceProfileName: 'web', Tags: [{ Key: 'c', Value: 'd' }] }),
    );
    expect(
      (await iam.send(new ListInstanceProfileTagsCommand({ InstanceProfileName: 'web' }))).Tags,
    ).toHaveLength(2);
    expect(
      await fails(iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: 'web' }))),
    ).toMatchObject({
      name: 'DeleteConflictException',
      message: 'Cannot delete entity, must remove roles from instance profile first.',
    });
    await iam.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: 'web', RoleName: 'r1' }));
    await iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: 'web' }));
    expect(
      await fails(iam.send(new GetInstanceProfileCommand({ InstanceProfileName: 'web' }))),
    ).toMatchObject({
      name: 'NoSuchEntityException',
      message: 'Instance Profile web cannot be found.',
    });
    await iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'again' }));
    expect(
      await fails(iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'AGAIN' }))),
    ).toMatchObject({
      name: 'EntityAlreadyExistsException',
    });
  });
});

describe('users, groups, login profiles, access keys', () => {
  test('users: create, get, tags, boundary, rename (memberships and keys follow), list, delete conflicts', async () => {
    const { User } = await iam.send(
      new CreateUserCommand({ UserName: 'alice', Path: '/people/', Tags: [{ Key: 'a', Value: 'b' }] }),
    );
    expect(User).toMatchObject({
      Arn: `arn:aws:iam::${ACCOUNT}:user/people/alice`,
      Tags: [{ Key: 'a', Value: 'b' }],
    });
    expect(User!.UserId).toMatch(/^AIDA[A-Z0-9]{17}$/);
    await iam.send(new TagUserCommand({ UserName: 'alice', Tags: [{ Key: 'c', Value: 'd' }] }));
    await iam.send(new UntagUserCommand({ UserName: 'alice', TagKeys: ['a'] }));
    expect((await iam.send(new ListUserTagsCommand({ UserName: 'alice' }))).Tags).toEqual([
      { Key: 'c', Value: 'd' },
    ]);
    await iam.send(new PutUserPermissionsBoundaryCommand({ UserName: 'alice', PermissionsBoundary: BASIC }));
    expect(
      (await iam.send(new GetUserCommand({ UserName: 'alice' }))).User!.PermissionsBoundary
        ?.PermissionsBoundaryArn,
    ).toBe(BASIC);
    await iam.send(new DeleteUserPermissionsBoundaryCommand({ UserName: 'alice' }));

    const { Group } = await iam.send(new CreateGroupCommand({ GroupName: 'devs' }));
    expect(Group!.GroupId).toMatch(/^AGPA[A-Z0-9]{17}$/);
    await iam.send(new AddUserToGroupCommand({ GroupName: 'devs', UserName: 'alice' }));
    const key = (await iam.send(new CreateAccessKeyCommand({ UserName: 'alice' }))).AccessKey!;
    await iam.send(
      new CreateLoginProfileCommand({
        UserName: 'alice',
        Password: 'Sup3r-secret',
        PasswordResetRequired: true,
      }),
    );

    await iam.send(new UpdateUserCommand({ UserName: 'alice', NewUserName: 'alicia', NewPath: '/' }));
    const renamed = await iam.send(new GetUserCommand({ UserName: 'alicia' }));
    expect(renamed.User).toMatchObject({ UserId: User!.UserId, Arn: `arn:aws:iam::${ACCOUNT}:user/alicia` });
    expect(
      (await iam.send(new ListGroupsForUserCommand({ UserName: 'alicia' }))).Groups!.map((g) => g.GroupName),
    ).toEqual(['devs']);
    expect(
      (await iam.send(new ListAccessKeysCommand({ UserName: 'alicia' }))).AccessKeyMetadata!.map(
        (k) => k.AccessKeyId,
      ),
    ).toEqual([key.AccessKeyId]);
    expect((await iam.send(new ListUsersCommand({}))).Users!.map((u) => u.UserName)).toEqual(['alicia']);

    const conflict = (message: string) => ({ name: 'DeleteConflictException', message });
    expect(await fails(iam.send(new DeleteUserCommand({ UserName: 'alicia' })))).toMatchObject(
      conflict('Cannot delete entity, must delete login profile first.'),
    );
    await iam.send(new DeleteLoginProfileCommand({ UserName: 'alicia' }));
    expect(await fails(iam.send(new DeleteUserCommand({ UserName: 'alicia' })))).toMatchObject(
      conflict('Cannot delete entity, must delete access keys first.'),
    );
    await iam.send(new DeleteAccessKeyCommand({ UserName: 'alicia', AccessKeyId: key.AccessKeyId }));
    expect(await fails(iam.send(new DeleteUserCommand({ UserName: 'alicia' })))).toMatchObject(
      conflict('Cannot delete entity, must remove users from group first.'),
    );
    await iam.send(new RemoveUserFromGroupCommand({ GroupName: 'devs', UserName: 'alicia' }));
    await iam.send(new DeleteUserCommand({ UserName: 'alicia' }));
    expect(await fails(iam.send(new GetUserCommand({ UserName: 'alicia' })))).toMatchObject({
      name: 'NoSuchEntityException',
      message: 'The user with name alicia cannot be found.',
    });
  });

  test('groups: members, paging, rename, delete conflicts; a user in at most 10 groups', async () => {
    await iam.send(new CreateUserCommand({ UserName: 'bob' }));
    await iam.send(new CreateUserCommand({ UserName: 'carol' }));
    await iam.send(new CreateGroupCommand({ GroupName: 'ops', Path: '/teams/' }));
    await iam.send(new AddUserToGroupCommand({ GroupName: 'ops', UserName: 'bob' }));
    await iam.send(new AddUserToGroupCommand({ GroupName: 'ops', UserName: 'bob' }));
    await iam.send(new AddUserToGroupCommand({ GroupName: 'ops', UserName: 'carol' }));
    const page = await iam.send(new GetGroupCommand({ GroupName: 'ops', MaxItems: 1 }));
    expect(page.Users!.map((u) => u.UserName)).toEqual(['bob']);
    expect(page.IsTruncated).toBe(true);
    expect(
      (await iam.send(new GetGroupCommand({ GroupName: 'ops', Marker: page.Marker }))).Users!.map(
        (u) => u.UserName,
      ),
    ).toEqual(['carol']);
    await iam.send(new UpdateGroupCommand({ GroupName: 'ops', NewGroupName: 'operations' }));
    expect((await iam.send(new GetGroupCommand({ GroupName: 'operations' }))).Group).toMatchObject({
      Arn: `arn:aws:iam::${ACCOUNT}:group/teams/operations`,
    });
    expect(
      (await iam.send(new ListGroupsCommand({ PathPrefix: '/teams/' }))).Groups!.map((g) => g.GroupName),
    ).toEqual(['operations']);
    await iam.send(
      new PutGroupPolicyCommand({ GroupName: 'operations', PolicyName: 'p', PolicyDocument: doc() }),
    );
    expect(await fails(iam.send(new DeleteGroupCommand({ GroupName: 'operations' })))).toMatchObject({
      message: 'Cannot delete entity, must remove users from group first.',
    });
    for (const u of ['bob', 'carol'])
      await iam.send(new RemoveUserFromGroupCommand({ GroupName: 'operations', UserName: u }));
    expect(
      await fails(iam.send(new RemoveUserFromGroupCommand({ GroupName: 'operations', UserName: 'bob' }))),
    ).toMatchObject({
      name: 'NoSuchEntityException',
    });
    expect(await fails(iam.send(new DeleteGroupCommand({ GroupName: 'operations' })))).toMatchObject({
      message: 'Cannot delete entity, must delete policies first.',
    });
    await iam.send(new DeleteGroupPolicyCommand({ GroupName: 'operations', PolicyName: 'p' }));
    await iam.send(new DeleteGroupCommand({ GroupName: 'operations' }));
    for (let i = 0; i < 10; i++) {
      await iam.send(new CreateGroupCommand({ GroupName: `g${i}` }));
      await iam.send(new AddUserToGroupCommand({ GroupName: `g${i}`, UserName: 'bob' }));
    }
    await iam.send(new CreateGroupCommand({ GroupName: 'g10' }));
    expect(
      await fails(iam.send(new AddUserToGroupCommand({ GroupName: 'g10', UserName: 'bob' }))),
    ).toMatchObject({
      name: 'LimitExceededException',
      message: 'Cannot exceed quota for GroupsPerUser: 10',
    });
  });

  test('login profiles: the password policy, update, get, delete', async () => {
    await iam.send(new CreateUserCommand({ UserName: 'dave' }));
    expect(
      await fails(iam.send(new CreateLoginProfileCommand({ UserName: 'dave', Password: 'short' }))),
    ).toMatchObject({
      name: 'PasswordPolicyViolationException',
    });
    await iam.send(new CreateLoginProfileCommand({ UserName: 'dave', Password: 'Long-enough-1' }));
    expect(
      await fails(iam.send(new CreateLoginProfileCommand({ UserName: 'dave', Password: 'Long-enough-1' }))),
    ).toMatchObject({
      name: 'EntityAlreadyExistsException',
    });
    await iam.send(new UpdateLoginProfileCommand({ UserName: 'dave', PasswordResetRequired: true }));
    expect((await iam.send(new GetLoginProfileCommand({ UserName: 'dave' }))).LoginProfile).toMatchObject({
      UserName: 'dave',
      PasswordResetRequired: true,
    });
    await iam.send(new DeleteLoginProfileCommand({ UserName: 'dave' }));
    expect(await fails(iam.send(new GetLoginProfileCommand({ UserName: 'dave' })))).toMatchObject({
      name: 'NoSuchEntityException',
    });
  });

  test('access keys: the secret once, two per user, status, delete, last used', async () => {
    await iam.send(new CreateUserCommand({ UserName: 'erin' }));
    await iam.send(new CreateUserCommand({ UserName: 'frank' }));
    const first = (await iam.send(new CreateAccessKeyCommand({ UserName: 'erin' }))).AccessKey!;
    expect(first).toMatchObject({ UserName: 'erin', Status: 'Active' });
    expect(first.AccessKeyId).toMatch(/^AKIA[A-Z0-9]{16}$/);
    expect(first.SecretAccessKey).toHaveLength(40);
    await iam.send(new CreateAccessKeyCommand({ UserName: 'erin' }));
    expect(await fails(iam.send(new CreateAccessKeyCommand({ UserName: 'erin' })))).toMatchObject({
      name: 'LimitExceededException',
      message: 'Cannot exceed quota for AccessKeysPerUser: 2',
    });
    const listed = await iam.send(new ListAccessKeysCommand({ UserName: 'erin' }));
    expect(listed.AccessKeyMetadata).toHaveLength(2);
    expect(JSON.stringify(listed)).not.toContain(first.SecretAccessKey);
    await iam.send(
      new UpdateAccessKeyCommand({ UserName: 'erin', AccessKeyId: first.AccessKeyId, Status: 'Inactive' }),
    );
    expect(
      (await iam.send(new ListAccessKeysCommand({ UserName: 'erin' }))).AccessKeyMetadata![0]!.Status,
    ).toBe('Inactive');
    expect(
      (await iam.send(new GetAccessKeyLastUsedCommand({ AccessKeyId: first.AccessKeyId }))).UserName,
    ).toBe('erin');
    expect(
      await fails(
        iam.send(new DeleteAccessKeyCommand({ UserName: 'frank', AccessKeyId: first.AccessKeyId })),
      ),
    ).toMatchObject({
      name: 'NoSuchEntityException',
      message: `The Access Key with id ${first.AccessKeyId} cannot be found.`,
    });
    await iam.send(new DeleteAccessKeyCommand({ UserName: 'erin', AccessKeyId: first.AccessKeyId }));
    expect((await iam.send(new ListAccessKeysCommand({ UserName: 'erin' }))).AccessKeyMetadata).toHaveLength(
      1,
    );
  });
});

describe('OpenID Connect providers', () => {
  test('create, get, list, thumbprints, client ids (idempotent), tags, delete (idempotent)', async () => {
    const thumb = 'a'.repeat(40);
    const { OpenIDConnectProviderArn: arn } = await iam.send(
      new CreateOpenIDConnectProviderCommand({
        Url: 'https://token.example.com/issuer',
        ClientIDList: ['sts.amazonaws.com'],
        ThumbprintList: [thumb],
      }),
    );
    expect(arn).toBe(`arn:aws:iam::${ACCOUNT}:oidc-provider/token.example.com/issuer`);
    expect(
      await fails(
        iam.send(new CreateOpenIDConnectProviderCommand({ Url: 'https://token.example.com/issuer' })),
      ),
    ).toMatchObject({
      name: 'EntityAlreadyExistsException',
    });
    expect(
      await fails(iam.send(new CreateOpenIDConnectProviderCommand({ Url: 'http://plain.example.com' }))),
    ).toMatchObject({
      name: 'InvalidInputException',
    });
    await iam.send(
      new AddClientIDToOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn, ClientID: 'app' }),
    );
    await iam.send(
      new AddClientIDToOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn, ClientID: 'app' }),
    );
    await iam.send(
      new RemoveClientIDFromOpenIDConnectProviderCommand({
        OpenIDConnectProviderArn: arn,
        ClientID: 'sts.amazonaws.com',
      }),
    );
    await iam.send(
      new RemoveClientIDFromOpenIDConnectProviderCommand({
        OpenIDConnectProviderArn: arn,
        ClientID: 'never',
      }),
    );
    await iam.send(
      new UpdateOpenIDConnectProviderThumbprintCommand({
        OpenIDConnectProviderArn: arn,
        ThumbprintList: ['b'.repeat(40)],
      }),
    );
    await iam.send(
      new TagOpenIDConnectProviderCommand({
        OpenIDConnectProviderArn: arn,
        Tags: [{ Key: 'a', Value: 'b' }],
      }),
    );
    expect(
      await iam.send(new GetOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn })),
    ).toMatchObject({
      Url: 'token.example.com/issuer',
      ClientIDList: ['app'],
      ThumbprintList: ['b'.repeat(40)],
    });
    expect(
      (await iam.send(new ListOpenIDConnectProviderTagsCommand({ OpenIDConnectProviderArn: arn }))).Tags,
    ).toEqual([{ Key: 'a', Value: 'b' }]);
    expect((await iam.send(new ListOpenIDConnectProvidersCommand({}))).OpenIDConnectProviderList).toEqual([
      { Arn: arn },
    ]);
    await iam.send(new DeleteOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }));
    await iam.send(new DeleteOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }));
    expect(
      await fails(iam.send(new GetOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }))),
    ).toMatchObject({
      name: 'NoSuchEntityException',
    });
  });
});

describe('STS AssumeRole of an IAM role', () => {
  test('the session carries the role id and respects its MaxSessionDuration; other role ARNs still assume', async () => {
    const sts = new STSClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    const created = (await role('assumable', { MaxSessionDuration: 3600 })).Role!;
    const session = await sts.send(new AssumeRoleCommand({ RoleArn: created.Arn, RoleSessionName: 'me' }));
    expect(session.AssumedRoleUser!.AssumedRoleId).toBe(`${created.RoleId}:me`);
    expect(
      await fails(
        sts.send(
          new AssumeRoleCommand({ RoleArn: created.Arn, RoleSessionName: 'me', DurationSeconds: 7200 }),
        ),
      ),
    ).toMatchObject({
      name: 'ValidationError',
      message: 'The requested DurationSeconds exceeds the MaxSessionDuration set for this role.',
    });
    const other = await sts.send(
      new AssumeRoleCommand({
        RoleArn: `arn:aws:iam::${ACCOUNT}:role/cdk-deploy-role`,
        RoleSessionName: 'me',
      }),
    );
    expect(other.AssumedRoleUser!.AssumedRoleId).toMatch(/^AROA[A-Z0-9]{17}:me$/);
    sts.destroy();
  });
});

describe('the shared view with Cloud Control and the inventory', () => {
  async function ccRequest(send: Promise<{ ProgressEvent?: { RequestToken?: string } }>) {
    const out = await send;
    const { ProgressEvent } = await cc.send(
      new GetResourceRequestStatusCommand({ RequestToken: out.ProgressEvent!.RequestToken! }),
    );
    return ProgressEvent!;
  }
  const ccCreate = (TypeName: string, desired: Record<string, unknown>) =>
    ccRequest(cc.send(new CreateResourceCommand({ TypeName, DesiredState: JSON.stringify(desired) })));
  const ccRead = async (TypeName: string, Identifier: string) =>
    JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName, Identifier }))).ResourceDescription!.Properties!,
    ) as Record<string, unknown>;
  const inventory = async (type: string) =>
    (await ctx.emulator.control.inventory())
      .filter((i) => i.type === type)
      .map((i) => i.identifier)
      .sort();

  test('made natively: visible through Cloud Control (policies and attachments included) and in the inventory', async () => {
    await role('native', { Tags: [{ Key: 'a', Value: 'b' }] });
    await iam.send(
      new PutRolePolicyCommand({ RoleName: 'native', PolicyName: 'inline', PolicyDocument: doc() }),
    );
    await iam.send(new AttachRolePolicyCommand({ RoleName: 'native', PolicyArn: BASIC }));
    expect(await ccRead('AWS::IAM::Role', 'native')).toMatchObject({
      RoleName: 'native',
      Arn: `arn:aws:iam::${ACCOUNT}:role/native`,
      AssumeRolePolicyDocument: JSON.parse(TRUST),
      Policies: [{ PolicyName: 'inline', PolicyDocument: JSON.parse(doc()) }],
      ManagedPolicyArns: [BASIC],
      Tags: [{ Key: 'a', Value: 'b' }],
    });
    expect(await ccRead('AWS::IAM::RolePolicy', 'inline|native')).toMatchObject({
      RoleName: 'native',
      PolicyName: 'inline',
    });
    await iam.send(new CreateUserCommand({ UserName: 'person' }));
    await iam.send(new CreateGroupCommand({ GroupName: 'crew' }));
    await iam.send(new AddUserToGroupCommand({ GroupName: 'crew', UserName: 'person' }));
    const key = (await iam.send(new CreateAccessKeyCommand({ UserName: 'person' }))).AccessKey!;
    const policyArn = (await iam.send(new CreatePolicyCommand({ PolicyName: 'mp', PolicyDocument: doc() })))
      .Policy!.Arn!;
    await iam.send(new AttachUserPolicyCommand({ UserName: 'person', PolicyArn: policyArn }));
    await iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: 'prof' }));
    expect(await ccRead('AWS::IAM::User', 'person')).toMatchObject({
      Groups: ['crew'],
      ManagedPolicyArns: [policyArn],
    });
    expect(await ccRead('AWS::IAM::ManagedPolicy', policyArn)).toMatchObject({
      ManagedPolicyName: 'mp',
      Users: ['person'],
      AttachmentCount: 1,
    });
    const keyModel = await ccRead('AWS::IAM::AccessKey', key.AccessKeyId!);
    expect(keyModel).toEqual({ Id: key.AccessKeyId, UserName: 'person', Status: 'Active' });
    const listed = await cc.send(new ListResourcesCommand({ TypeName: 'AWS::IAM::Role' }));
    expect(listed.ResourceDescriptions!.map((d) => d.Identifier)).toEqual(['native']);

    expect(await inventory('AWS::IAM::Role')).toEqual(['native']);
    expect(await inventory('AWS::IAM::User')).toEqual(['person']);
    expect(await inventory('AWS::IAM::Group')).toEqual(['crew']);
    expect(await inventory('AWS::IAM::ManagedPolicy')).toEqual([policyArn]);
    expect(await inventory('AWS::IAM::InstanceProfile')).toEqual(['prof']);
    expect(await inventory('AWS::IAM::AccessKey')).toEqual([key.AccessKeyId]);
    // An inline policy is part of its principal: not an inventory item of its own.
    expect(await inventory('AWS::IAM::RolePolicy')).toEqual([]);
    expect(await inventory('AWS::IAM::Policy')).toEqual([]);
  });

  test('made through Cloud Control: visible natively, updated and deleted through either', async () => {
    const roleEvent = await ccCreate('AWS::IAM::Role', {
      RoleName: 'by-cc',
      AssumeRolePolicyDocument: JSON.parse(TRUST),
      Policies: [{ PolicyName: 'own', PolicyDocument: JSON.parse(doc()) }],
      ManagedPolicyArns: [BASIC],
    });
    expect(roleEvent).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: 'by-cc' });
    expect((await iam.send(new GetRoleCommand({ RoleName: 'by-cc' }))).Role!.RoleId).toMatch(/^AROA/);
    expect((await iam.send(new ListRolePoliciesCommand({ RoleName: 'by-cc' }))).PolicyNames).toEqual(['own']);
    expect(
      (await iam.send(new ListAttachedRolePoliciesCommand({ RoleName: 'by-cc' }))).AttachedPolicies,
    ).toEqual([{ PolicyName: 'AWSLambdaBasicExecutionRole', PolicyArn: BASIC }]);

    const policyEvent = await ccCreate('AWS::IAM::Policy', {
      PolicyName: 'shared',
      PolicyDocument: JSON.parse(doc()),
      Roles: ['by-cc'],
    });
    expect(policyEvent.OperationStatus).toBe('SUCCESS');
    expect(
      decode(
        (await iam.send(new GetRolePolicyCommand({ RoleName: 'by-cc', PolicyName: 'shared' })))
          .PolicyDocument,
      ),
    ).toEqual(JSON.parse(doc()));
    expect(await inventory('AWS::IAM::Policy')).toEqual([policyEvent.Identifier]);

    const managed = await ccCreate('AWS::IAM::ManagedPolicy', {
      ManagedPolicyName: 'cc-managed',
      PolicyDocument: JSON.parse(doc()),
      Roles: ['by-cc'],
    });
    const arn = `arn:aws:iam::${ACCOUNT}:policy/cc-managed`;
    expect(managed).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: arn });
    const update = await ccRequest(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::IAM::ManagedPolicy',
          Identifier: arn,
          PatchDocument: JSON.stringify([
            { op: 'replace', path: '/PolicyDocument', value: JSON.parse(doc('s3:PutObject')) },
          ]),
        }),
      ),
    );
    expect(update.OperationStatus).toBe('SUCCESS');
    expect((await iam.send(new GetPolicyCommand({ PolicyArn: arn }))).Policy!.DefaultVersionId).toBe('v2');

    await iam.send(new CreateUserCommand({ UserName: 'member' }));
    await iam.send(new CreateGroupCommand({ GroupName: 'team' }));
    const addition = await ccCreate('AWS::IAM::UserToGroupAddition', {
      GroupName: 'team',
      Users: ['member'],
    });
    expect(addition.OperationStatus).toBe('SUCCESS');
    expect(
      (await iam.send(new GetGroupCommand({ GroupName: 'team' }))).Users!.map((u) => u.UserName),
    ).toEqual(['member']);
    expect(await inventory('AWS::IAM::UserToGroupAddition')).toEqual([addition.Identifier]);

    const key = await ccCreate('AWS::IAM::AccessKey', { UserName: 'member' });
    expect(key.OperationStatus).toBe('SUCCESS');
    expect(JSON.parse(key.ResourceModel!)).toMatchObject({
      Id: key.Identifier,
      SecretAccessKey: expect.any(String),
    });
    expect(
      (await iam.send(new ListAccessKeysCommand({ UserName: 'member' }))).AccessKeyMetadata!.map(
        (k) => k.AccessKeyId,
      ),
    ).toEqual([key.Identifier]);
    expect(await ccRead('AWS::IAM::AccessKey', key.Identifier!)).not.toHaveProperty('SecretAccessKey');

    const rolePolicy = await ccCreate('AWS::IAM::RolePolicy', {
      RoleName: 'by-cc',
      PolicyName: 'extra',
      PolicyDocument: JSON.parse(doc()),
    });
    expect(rolePolicy).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: 'extra|by-cc' });

    // Deleting through Cloud Control removes what it put on the principals.
    expect(
      (
        await ccRequest(
          cc.send(
            new DeleteResourceCommand({ TypeName: 'AWS::IAM::Policy', Identifier: policyEvent.Identifier! }),
          ),
        )
      ).OperationStatus,
    ).toBe('SUCCESS');
    expect((await iam.send(new ListRolePoliciesCommand({ RoleName: 'by-cc' }))).PolicyNames).toEqual([
      'extra',
      'own',
    ]);
    expect(
      (
        await ccRequest(
          cc.send(new DeleteResourceCommand({ TypeName: 'AWS::IAM::ManagedPolicy', Identifier: arn })),
        )
      ).OperationStatus,
    ).toBe('SUCCESS');
    expect(
      (
        await ccRequest(
          cc.send(new DeleteResourceCommand({ TypeName: 'AWS::IAM::Role', Identifier: 'by-cc' })),
        )
      ).OperationStatus,
    ).toBe('SUCCESS');
    expect(await fails(iam.send(new GetRoleCommand({ RoleName: 'by-cc' })))).toMatchObject({
      name: 'NoSuchEntityException',
    });
    expect(await fails(iam.send(new GetPolicyCommand({ PolicyArn: arn })))).toMatchObject({
      name: 'NoSuchEntityException',
    });

    const instanceProfile = await ccCreate('AWS::IAM::InstanceProfile', { Roles: ['nobody'] });
    expect(instanceProfile).toMatchObject({
      OperationStatus: 'FAILED',
      ErrorCode: 'GeneralServiceException',
    });
    expect((await iam.send(new ListInstanceProfilesCommand({}))).InstanceProfiles).toEqual([]);
  });

  test('a Cloud Control create of an existing IAM name fails AlreadyExists', async () => {
    await role('exists');
    const event = await ccCreate('AWS::IAM::Role', {
      RoleName: 'EXISTS',
      AssumeRolePolicyDocument: JSON.parse(TRUST),
    });
    expect(event).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'AlreadyExists' });
    const badDoc = await ccCreate('AWS::IAM::Role', {
      RoleName: 'bad',
      AssumeRolePolicyDocument: { Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole' }] },
    });
    expect(badDoc).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'InvalidRequest' });
  });
});

describe('persistence', () => {
  test('--state-dir keeps roles, policies and seeded AWS managed policies across a restart', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'emulator-iam-'));
    const first = await startEmulator({ port: 0, stateDir: dir });
    const client = new IAMClient({ ...clientConfig(first), maxAttempts: 1 });
    let id: string | undefined;
    try {
      await client.send(new CreateRoleCommand({ RoleName: 'kept', AssumeRolePolicyDocument: TRUST }));
      await client.send(
        new PutRolePolicyCommand({ RoleName: 'kept', PolicyName: 'p', PolicyDocument: doc() }),
      );
      await first.control.seedAwsManagedPolicy({ name: 'Extra' });
      await client.send(
        new AttachRolePolicyCommand({ RoleName: 'kept', PolicyArn: 'arn:aws:iam::aws:policy/Extra' }),
      );
      id = (await client.send(new GetRoleCommand({ RoleName: 'kept' }))).Role!.RoleId;
    } finally {
      client.destroy();
      await first.stop();
    }

    const second = await startEmulator({ port: 0, stateDir: dir });
    const again = new IAMClient({ ...clientConfig(second), maxAttempts: 1 });
    try {
      expect((await again.send(new GetRoleCommand({ RoleName: 'kept' }))).Role!.RoleId).toBe(id);
      expect((await again.send(new ListRolePoliciesCommand({ RoleName: 'kept' }))).PolicyNames).toEqual([
        'p',
      ]);
      expect(
        (await again.send(new ListAttachedRolePoliciesCommand({ RoleName: 'kept' }))).AttachedPolicies,
      ).toEqual([{ PolicyName: 'Extra', PolicyArn: 'arn:aws:iam::aws:policy/Extra' }]);
      expect((await again.send(new GetPolicyCommand({ PolicyArn: BASIC }))).Policy!.PolicyName).toBe(
        'AWSLambdaBasicExecutionRole',
      );
    } finally {
      again.destroy();
      await second.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

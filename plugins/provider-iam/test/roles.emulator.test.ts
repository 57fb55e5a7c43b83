import {
  AddRoleToInstanceProfileCommand,
  AttachRolePolicyCommand,
  CreateInstanceProfileCommand,
  CreateRoleCommand,
  GetInstanceProfileCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  ListAttachedRolePoliciesCommand,
  ListRolePoliciesCommand,
  ListRolesCommand,
  PutRolePolicyCommand,
} from '@aws-sdk/client-iam';
import { claim } from '../src/inline-claims';
import { IamRoleProvider } from '../src/role-provider';
import {
  BASIC,
  READ_ONLY,
  REGION,
  STACK,
  TRUST,
  allow,
  bareContext,
  createContext,
  decode,
  rejection,
  uniqueName,
  usePackEnv,
} from './helpers';

const ROLE = 'AWS::IAM::Role';
const env = usePackEnv();
const provider = () => new IamRoleProvider(env.ctx);
const getRole = async (RoleName: string) => (await env.iam.send(new GetRoleCommand({ RoleName }))).Role!;
const roleExists = async (RoleName: string) =>
  getRole(RoleName).then(
    () => true,
    (err: Error) => (err.name === 'NoSuchEntityException' ? false : Promise.reject(err)),
  );

describe('AWS::IAM::Role', () => {
  it('creates a role with a generated name, its trust policy, inline and managed policies, boundary and tags', async () => {
    const context = createContext('FunctionServiceRole');
    const result = await provider().create(
      'FunctionServiceRole',
      ROLE,
      {
        AssumeRolePolicyDocument: TRUST,
        Description: 'runs the function',
        MaxSessionDuration: 7200,
        Path: '/app/',
        PermissionsBoundary: READ_ONLY,
        Policies: [{ PolicyName: 'read', PolicyDocument: allow('s3:GetObject') }],
        ManagedPolicyArns: [BASIC],
        Tags: [{ Key: 'team', Value: 'core' }],
      },
      context,
    );
    const name = result.physicalId;
    expect(name).toBe(context.generatePhysicalName!({ maxLength: 64, extraCharacters: '_+=,.@-' }));
    expect(name).toMatch(new RegExp(`^${STACK}-FunctionServiceRole-[A-Z2-7]{13}$`));
    const role = await getRole(name);
    expect(result.attributes).toEqual({
      Arn: `arn:aws:iam::123456789012:role/app/${name}`,
      RoleId: role.RoleId,
    });
    expect(role).toMatchObject({ Description: 'runs the function', MaxSessionDuration: 7200, Path: '/app/' });
    expect(role.PermissionsBoundary?.PermissionsBoundaryArn).toBe(READ_ONLY);
    expect(decode(role.AssumeRolePolicyDocument)).toEqual(TRUST);
    expect(role.Tags).toEqual(expect.arrayContaining([{ Key: 'team', Value: 'core' }]));
    expect(Object.fromEntries(role.Tags!.map((t) => [t.Key, t.Value]))).toMatchObject(
      context.ownership!.tags,
    );
    expect(
      decode(
        (await env.iam.send(new GetRolePolicyCommand({ RoleName: name, PolicyName: 'read' }))).PolicyDocument,
      ),
    ).toEqual(allow('s3:GetObject'));
    expect(
      (await env.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: name }))).AttachedPolicies!.map(
        (p) => p.PolicyArn,
      ),
    ).toEqual([BASIC]);
  });

  it('keeps a generated name within 64 characters for a long stack name and logical id', async () => {
    const result = await provider().create(
      'AVeryLongLogicalIdForAServiceRoleThatCdkNestsDeeplyInsideConstructs',
      ROLE,
      { AssumeRolePolicyDocument: TRUST },
      createContext(
        'AVeryLongLogicalIdForAServiceRoleThatCdkNestsDeeplyInsideConstructs',
        'AnEquallyLongStackNameForTheWholeApplication',
      ),
    );
    expect(result.physicalId.length).toBeLessThanOrEqual(64);
    expect(result.physicalId).toMatch(/^[\w+=,.@-]+$/);
  });

  describe('idempotency across processes (the plugin API contract)', () => {
    it('a repeated create with the same token (another process settling the intent) adopts the role', async () => {
      const context = createContext('Repeated');
      const props = {
        AssumeRolePolicyDocument: TRUST,
        Policies: [{ PolicyName: 'p', PolicyDocument: allow('sqs:*') }],
      };
      const first = await provider().create('Repeated', ROLE, props, context);
      const again = await new IamRoleProvider(env.ctx).create('Repeated', ROLE, props, context);
      expect(again.physicalId).toBe(first.physicalId);
      expect(again.attributes).toEqual(first.attributes);
      const named = (await env.iam.send(new ListRolesCommand({}))).Roles!.filter(
        (r) => r.RoleName === first.physicalId,
      );
      expect(named).toHaveLength(1);
    });

    it('adopts its own role when the reply of CreateRole was lost, and finishes configuring it', async () => {
      await env.emulator.control.addFault({
        service: 'iam',
        operation: 'CreateRole',
        mode: 'drop',
        count: 1,
      });
      const result = await provider().create(
        'LostReply',
        ROLE,
        { AssumeRolePolicyDocument: TRUST, ManagedPolicyArns: [BASIC] },
        createContext('LostReply'),
      );
      expect(await roleExists(result.physicalId)).toBe(true);
      expect(
        (await env.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: result.physicalId })))
          .AttachedPolicies,
      ).toHaveLength(1);
    });

    it('refuses a role of the same name made by another stack, and one made without ownership tags', async () => {
      const name = uniqueName('shared-role');
      await provider().create(
        'Other',
        ROLE,
        { RoleName: name, AssumeRolePolicyDocument: TRUST },
        createContext('Other', 'OtherStack'),
      );
      const err = await rejection(
        provider().create(
          'Mine',
          ROLE,
          { RoleName: name, AssumeRolePolicyDocument: TRUST },
          createContext('Mine'),
        ),
      );
      expect(err.code).toBe('RESOURCE_ALREADY_EXISTS');
      expect(err.message).toBe(
        `A role named ${name} already exists (not made by this stack); cdkd does not take it over.`,
      );
      expect(err.remedy).toMatch(/another RoleName, delete the existing role, or import it/);
      const plain = uniqueName('plain-role');
      await env.iam.send(
        new CreateRoleCommand({ RoleName: plain, AssumeRolePolicyDocument: JSON.stringify(TRUST) }),
      );
      expect(
        (
          await rejection(
            provider().create(
              'Mine',
              ROLE,
              { RoleName: plain, AssumeRolePolicyDocument: TRUST },
              createContext('Mine'),
            ),
          )
        ).code,
      ).toBe('RESOURCE_ALREADY_EXISTS');
      // Without the ownership contract (an older cdkd), an existing role is refused as well.
      expect(
        (
          await rejection(
            provider().create(
              'Mine',
              ROLE,
              { RoleName: plain, AssumeRolePolicyDocument: TRUST },
              bareContext(),
            ),
          )
        ).message,
      ).toMatch(/already exists/);
    });

    it('refuses the original of a replacement that kept its name (same stack and logical id, another intent)', async () => {
      const name = uniqueName('replaced');
      await provider().create(
        'Service',
        ROLE,
        { RoleName: name, AssumeRolePolicyDocument: TRUST },
        createContext('Service'),
      );
      const err = await rejection(
        provider().create(
          'Service',
          ROLE,
          { RoleName: name, AssumeRolePolicyDocument: TRUST },
          createContext('Service'),
        ),
      );
      expect(err.message).toMatch(/made by an earlier create of this resource/);
    });
  });

  it("deletes the role again when a follow-up call fails, and reports IAM's error", async () => {
    const context = createContext('HalfMade');
    const err = await rejection(
      provider().create(
        'HalfMade',
        ROLE,
        {
          AssumeRolePolicyDocument: TRUST,
          Policies: [
            { PolicyName: 'ok', PolicyDocument: allow('s3:*') },
            { PolicyName: 'bad', PolicyDocument: { Statement: [{ Effect: 'Allow', Action: 's3:*' }] } },
          ],
        },
        context,
      ),
    );
    expect(err.message).toMatch(/MalformedPolicyDocumentException .*Policy statement must contain resources/);
    expect(
      await roleExists(context.generatePhysicalName!({ maxLength: 64, extraCharacters: '_+=,.@-' })),
    ).toBe(false);
  });

  it('a trust policy IAM rejects fails the create with MalformedPolicyDocument', async () => {
    const err = await rejection(
      provider().create(
        'BadTrust',
        ROLE,
        {
          AssumeRolePolicyDocument: {
            Statement: [{ Effect: 'Allow', Action: 'sts:AssumeRole', Resource: '*' }],
          },
        },
        createContext('BadTrust'),
      ),
    );
    expect(err.message).toMatch(
      /^IAM MalformedPolicyDocumentException while creating role .*: Has prohibited field Resource$/,
    );
  });

  it('updates in place and resets what the template removed', async () => {
    const before = {
      AssumeRolePolicyDocument: TRUST,
      Description: 'first',
      MaxSessionDuration: 7200,
      PermissionsBoundary: READ_ONLY,
      Policies: [
        { PolicyName: 'keep', PolicyDocument: allow('s3:GetObject') },
        { PolicyName: 'drop', PolicyDocument: allow('sqs:*') },
      ],
      ManagedPolicyArns: [BASIC],
      Tags: [
        { Key: 'keep', Value: '1' },
        { Key: 'drop', Value: '2' },
      ],
    };
    const context = createContext('Updated');
    const { physicalId } = await provider().create('Updated', ROLE, before, context);
    const trust2 = {
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { Service: 'ec2.amazonaws.com' }, Action: 'sts:AssumeRole' }],
    };
    const after = {
      AssumeRolePolicyDocument: trust2,
      Policies: [
        { PolicyName: 'keep', PolicyDocument: allow(['s3:GetObject', 's3:PutObject']) },
        { PolicyName: 'added', PolicyDocument: allow('sns:Publish') },
      ],
      ManagedPolicyArns: [READ_ONLY],
      Tags: [{ Key: 'keep', Value: 'changed' }],
    };
    const result = await provider().update('Updated', physicalId, ROLE, after, before, {
      stackName: STACK,
      expectedRegion: REGION,
    });
    expect(result).toMatchObject({
      physicalId,
      wasReplaced: false,
      attributes: { Arn: expect.stringContaining(physicalId) },
    });
    const role = await getRole(physicalId);
    expect(decode(role.AssumeRolePolicyDocument)).toEqual(trust2);
    // Removed from the template: back to IAM's defaults.
    expect(role.Description).toBeUndefined();
    expect(role.MaxSessionDuration).toBe(3600);
    expect(role.PermissionsBoundary).toBeUndefined();
    const tags = Object.fromEntries(role.Tags!.map((t) => [t.Key, t.Value]));
    expect(tags).toMatchObject({ keep: 'changed', ...context.ownership!.tags });
    expect(tags.drop).toBeUndefined();
    expect((await env.iam.send(new ListRolePoliciesCommand({ RoleName: physicalId }))).PolicyNames).toEqual([
      'added',
      'keep',
    ]);
    expect(
      decode(
        (await env.iam.send(new GetRolePolicyCommand({ RoleName: physicalId, PolicyName: 'keep' })))
          .PolicyDocument,
      ),
    ).toEqual(allow(['s3:GetObject', 's3:PutObject']));
    expect(
      (
        await env.iam.send(new ListAttachedRolePoliciesCommand({ RoleName: physicalId }))
      ).AttachedPolicies!.map((p) => p.PolicyArn),
    ).toEqual([READ_ONLY]);
    // A no-op update calls nothing that changes the role.
    await env.emulator.control.clearRequests();
    await provider().update('Updated', physicalId, ROLE, after, after, { stackName: STACK });
    const calls = Object.keys((await env.emulator.control.requests()).byOperation).filter((op) =>
      op.startsWith('iam:'),
    );
    expect(calls).toEqual(['iam:GetRole']);
  });

  it('leaves an inline policy another resource took over (a name moved) and one an AWS::IAM::Policy put', async () => {
    const before = {
      AssumeRolePolicyDocument: TRUST,
      Policies: [{ PolicyName: 'moved', PolicyDocument: allow('s3:*') }],
    };
    const { physicalId } = await provider().create('Owner', ROLE, before, createContext('Owner'));
    await env.iam.send(
      new PutRolePolicyCommand({
        RoleName: physicalId,
        PolicyName: 'from-policy',
        PolicyDocument: JSON.stringify(allow('sqs:*')),
      }),
    );
    // Another resource of the stack writes "moved" in this process (see the AWS::IAM::Policy provider).
    claim('role', physicalId, 'moved', `${STACK}/NewHolder`);
    await provider().update('Owner', physicalId, ROLE, { AssumeRolePolicyDocument: TRUST }, before, {
      stackName: STACK,
    });
    expect((await env.iam.send(new ListRolePoliciesCommand({ RoleName: physicalId }))).PolicyNames).toEqual([
      'from-policy',
      'moved',
    ]);
  });

  it('deletes a role with inline and attached policies and an instance profile; a missing role is already deleted', async () => {
    const { physicalId } = await provider().create(
      'Doomed',
      ROLE,
      {
        AssumeRolePolicyDocument: TRUST,
        Policies: [{ PolicyName: 'p', PolicyDocument: allow('s3:*') }],
        ManagedPolicyArns: [BASIC],
      },
      createContext('Doomed'),
    );
    const profile = uniqueName('profile');
    await env.iam.send(new CreateInstanceProfileCommand({ InstanceProfileName: profile }));
    await env.iam.send(
      new AddRoleToInstanceProfileCommand({ InstanceProfileName: profile, RoleName: physicalId }),
    );
    await env.iam.send(new AttachRolePolicyCommand({ RoleName: physicalId, PolicyArn: READ_ONLY }));
    await provider().delete('Doomed', physicalId, ROLE, {}, { stackName: STACK, expectedRegion: REGION });
    expect(await roleExists(physicalId)).toBe(false);
    expect(
      (await env.iam.send(new GetInstanceProfileCommand({ InstanceProfileName: profile }))).InstanceProfile!
        .Roles,
    ).toEqual([]);
    await provider().delete('Doomed', physicalId, ROLE, {}, { stackName: STACK, expectedRegion: REGION });
    // NoSuchEntity counts as deleted only when the client looks where the resource was recorded.
    const err = await rejection(
      provider().delete('Doomed', physicalId, ROLE, {}, { stackName: STACK, expectedRegion: 'us-west-2' }),
    );
    expect(err.message).toMatch(/us-west-2/);
  });

  it('reads attributes, current state (without the ownership tags) and imports by name', async () => {
    const props = {
      AssumeRolePolicyDocument: TRUST,
      Policies: [{ PolicyName: 'p', PolicyDocument: allow('s3:*') }],
      Tags: [{ Key: 'a', Value: 'b' }],
    };
    const { physicalId, attributes } = await provider().create('Read', ROLE, props, createContext('Read'));
    expect(await provider().getAttribute(physicalId, ROLE, 'Arn')).toBe(attributes!.Arn);
    expect(await provider().getAttribute(physicalId, ROLE, 'RoleId')).toBe(attributes!.RoleId);
    expect(await provider().getAttribute(physicalId, ROLE, 'Nope')).toBeUndefined();
    expect(await provider().getAttribute('no-such-role', ROLE, 'Arn')).toBeUndefined();
    expect(await provider().readCurrentState(physicalId, 'Read', ROLE, props)).toEqual({
      RoleName: physicalId,
      Path: '/',
      AssumeRolePolicyDocument: TRUST,
      Description: '',
      MaxSessionDuration: 3600,
      PermissionsBoundary: '',
      Policies: [{ PolicyName: 'p', PolicyDocument: allow('s3:*') }],
      ManagedPolicyArns: [],
      Tags: [{ Key: 'a', Value: 'b' }],
    });
    expect(await provider().readCurrentState('no-such-role', 'Read', ROLE)).toBeUndefined();
    expect(
      await provider().import({
        logicalId: 'Read',
        resourceType: ROLE,
        stackName: STACK,
        region: REGION,
        properties: {},
        knownPhysicalId: physicalId,
      }),
    ).toEqual({ physicalId, attributes });
    expect(
      await provider().import({
        logicalId: 'Read',
        resourceType: ROLE,
        stackName: STACK,
        region: REGION,
        properties: { RoleName: 'absent' },
      }),
    ).toBeNull();
  });
});

import { CloudControlClient, GetResourceCommand } from '@aws-sdk/client-cloudcontrol';
import { iamProviderPack } from '../src/hook';
import { IamAccessKeyProvider } from '../src/access-key-provider';
import { IamGroupProvider } from '../src/group-provider';
import { IamInstanceProfileProvider } from '../src/instance-profile-provider';
import { IamManagedPolicyProvider } from '../src/managed-policy-provider';
import { IamRoleProvider } from '../src/role-provider';
import { IamUserProvider } from '../src/user-provider';
import { REGION, TRUST, allow, createContext, usePackEnv } from './helpers';

const env = usePackEnv();

// physicalIdIsPrimaryIdentifier: Cloud Control must address what the pack made by the pack's id.
describe('physical ids that are Cloud Control identifiers', () => {
  it('are declared for the six types whose id is a name, an ARN or a key id', () => {
    expect(
      iamProviderPack()
        .providers.filter((p) => p.physicalIdIsPrimaryIdentifier)
        .map((p) => p.resourceType)
        .sort(),
    ).toEqual([
      'AWS::IAM::AccessKey',
      'AWS::IAM::Group',
      'AWS::IAM::InstanceProfile',
      'AWS::IAM::ManagedPolicy',
      'AWS::IAM::Role',
      'AWS::IAM::User',
    ]);
  });

  it("Cloud Control reads each resource of those types by the pack's physical id", async () => {
    const cc = new CloudControlClient({
      region: REGION,
      endpoint: env.emulator.url,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    const made: Array<[string, string]> = [];
    const make = async (
      provider: { create: IamRoleProvider['create'] },
      type: string,
      props: Record<string, unknown>,
    ) => {
      const logicalId = `Cc${made.length}`;
      const { physicalId } = await provider.create(logicalId, type, props, createContext(logicalId));
      made.push([type, physicalId]);
      return physicalId;
    };
    const role = await make(new IamRoleProvider(env.ctx), 'AWS::IAM::Role', {
      AssumeRolePolicyDocument: TRUST,
    });
    await make(new IamManagedPolicyProvider(env.ctx), 'AWS::IAM::ManagedPolicy', {
      PolicyDocument: allow('s3:*'),
    });
    await make(new IamInstanceProfileProvider(env.ctx), 'AWS::IAM::InstanceProfile', { Roles: [role] });
    await make(new IamGroupProvider(env.ctx), 'AWS::IAM::Group', {});
    const user = await make(new IamUserProvider(env.ctx), 'AWS::IAM::User', {});
    await make(new IamAccessKeyProvider(env.ctx), 'AWS::IAM::AccessKey', { UserName: user });
    for (const [TypeName, Identifier] of made) {
      const out = await cc.send(new GetResourceCommand({ TypeName, Identifier }));
      expect([TypeName, out.ResourceDescription?.Identifier]).toEqual([TypeName, Identifier]);
    }
    cc.destroy();
  });
});

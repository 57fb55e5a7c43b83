/**
 * The types the pack provides and the template properties each one wires to
 * IAM. No AWS SDK here: the hook reads this module, and the SDK loads only
 * when a provider is first built.
 */
export const ROLE_TYPE = 'AWS::IAM::Role';
export const POLICY_TYPE = 'AWS::IAM::Policy';
export const MANAGED_POLICY_TYPE = 'AWS::IAM::ManagedPolicy';
export const INSTANCE_PROFILE_TYPE = 'AWS::IAM::InstanceProfile';
export const USER_TYPE = 'AWS::IAM::User';
export const GROUP_TYPE = 'AWS::IAM::Group';
export const USER_TO_GROUP_TYPE = 'AWS::IAM::UserToGroupAddition';
export const ACCESS_KEY_TYPE = 'AWS::IAM::AccessKey';

/** Every writable property of each type's schema is wired: none is left by design. */
export const HANDLED_PROPERTIES: Readonly<Record<string, readonly string[]>> = {
  [ROLE_TYPE]: [
    'AssumeRolePolicyDocument',
    'Description',
    'ManagedPolicyArns',
    'MaxSessionDuration',
    'Path',
    'PermissionsBoundary',
    'Policies',
    'RoleName',
    'Tags',
  ],
  [POLICY_TYPE]: ['Groups', 'PolicyDocument', 'PolicyName', 'Roles', 'Users'],
  [MANAGED_POLICY_TYPE]: [
    'Description',
    'Groups',
    'ManagedPolicyName',
    'Path',
    'PolicyDocument',
    'Roles',
    'Users',
  ],
  [INSTANCE_PROFILE_TYPE]: ['InstanceProfileName', 'Path', 'Roles'],
  [USER_TYPE]: [
    'Groups',
    'LoginProfile',
    'ManagedPolicyArns',
    'Path',
    'PermissionsBoundary',
    'Policies',
    'Tags',
    'UserName',
  ],
  [GROUP_TYPE]: ['GroupName', 'ManagedPolicyArns', 'Path', 'Policies'],
  [USER_TO_GROUP_TYPE]: ['GroupName', 'Users'],
  [ACCESS_KEY_TYPE]: ['Serial', 'Status', 'UserName'],
};

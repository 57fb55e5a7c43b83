/**
 * The pack's `cdkd:providers` hook: registers the eight IAM types. It loads
 * no AWS SDK: each provider module (and with it `@aws-sdk/client-iam`) is
 * required the first time cdkd builds that provider, so `cdkd --version`,
 * `cdkd providers` and a deploy without IAM resources never pay for it.
 */
import type { ProviderContext, ProviderPack, ProvidersHook, ResourceProvider } from '@cdkd/plugin-api';
import type * as AccessKeyModule from './access-key-provider';
import type * as GroupModule from './group-provider';
import type * as InstanceProfileModule from './instance-profile-provider';
import type * as ManagedPolicyModule from './managed-policy-provider';
import type * as PolicyModule from './policy-provider';
import type * as RoleModule from './role-provider';
import type * as UserToGroupModule from './user-to-group-provider';
import type * as UserModule from './user-provider';
import {
  ACCESS_KEY_TYPE,
  GROUP_TYPE,
  HANDLED_PROPERTIES,
  INSTANCE_PROFILE_TYPE,
  MANAGED_POLICY_TYPE,
  POLICY_TYPE,
  ROLE_TYPE,
  USER_TO_GROUP_TYPE,
  USER_TYPE,
} from './types';

export const PACK_NAME = '@cdkd/provider-iam';

/** Each type's provider, built from its module on first use. */
const FACTORIES: Record<string, (ctx: ProviderContext) => ResourceProvider> = {
  [ROLE_TYPE]: (ctx) => new (require('./role-provider') as typeof RoleModule).IamRoleProvider(ctx),
  [POLICY_TYPE]: (ctx) => new (require('./policy-provider') as typeof PolicyModule).IamPolicyProvider(ctx),
  [MANAGED_POLICY_TYPE]: (ctx) =>
    new (require('./managed-policy-provider') as typeof ManagedPolicyModule).IamManagedPolicyProvider(ctx),
  [INSTANCE_PROFILE_TYPE]: (ctx) =>
    new (require('./instance-profile-provider') as typeof InstanceProfileModule).IamInstanceProfileProvider(
      ctx,
    ),
  [USER_TYPE]: (ctx) => new (require('./user-provider') as typeof UserModule).IamUserProvider(ctx),
  [GROUP_TYPE]: (ctx) => new (require('./group-provider') as typeof GroupModule).IamGroupProvider(ctx),
  [USER_TO_GROUP_TYPE]: (ctx) =>
    new (require('./user-to-group-provider') as typeof UserToGroupModule).IamUserToGroupAdditionProvider(ctx),
  [ACCESS_KEY_TYPE]: (ctx) =>
    new (require('./access-key-provider') as typeof AccessKeyModule).IamAccessKeyProvider(ctx),
};

/**
 * Types whose physical id here is Cloud Control's primary identifier (a name, the policy ARN, the
 * access key id), so cdkd may move their resources between Cloud Control and this pack. Not an
 * AWS::IAM::Policy (its Cloud Control `Id` is generated; the pack's id is the policy name) nor a
 * UserToGroupAddition (both generate an id of their own).
 */
const PRIMARY_IDENTIFIER_IDS = new Set([
  ROLE_TYPE,
  MANAGED_POLICY_TYPE,
  INSTANCE_PROFILE_TYPE,
  USER_TYPE,
  GROUP_TYPE,
  ACCESS_KEY_TYPE,
]);

/**
 * Attributes that hold a secret in every resource of the type (plugin API 1.3): cdkd masks them
 * however the resource was made, and `cdkd scrub` finds them in a record written before masking.
 * The access key's provider marks the same name in each result, for cdkd versions before 1.3.
 */
const SECRET_ATTRIBUTES: Record<string, readonly string[]> = {
  [ACCESS_KEY_TYPE]: ['SecretAccessKey'],
};

/** The pack this hook returns (exported for tests). */
export function iamProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: Object.entries(FACTORIES).map(([resourceType, createProvider]) => ({
      resourceType,
      handledProperties: [...HANDLED_PROPERTIES[resourceType]!],
      physicalIdIsPrimaryIdentifier: PRIMARY_IDENTIFIER_IDS.has(resourceType),
      ...(SECRET_ATTRIBUTES[resourceType] ? { secretAttributes: SECRET_ATTRIBUTES[resourceType] } : {}),
      createProvider,
    })),
  };
}

const hook: ProvidersHook = async function () {
  return iamProviderPack();
};

export default hook;

/**
 * IAM roles: CreateRole, GetRole, UpdateRole, UpdateRoleDescription,
 * UpdateAssumeRolePolicy, DeleteRole, ListRoles, tags and permissions
 * boundaries (IAM API Reference). A role's trust policy is checked as a trust
 * policy (principals, no resources, 2,048 characters by default).
 */
import { AwsError } from '../../core/errors';
import type { Operations } from '../../core/service';
import { attachablePolicy, boundaryOutput, getRole, iamArn, now, uniqueId } from './entities';
import { encodeDocument, policySize, validatePolicyDocument } from './policy-document';
import { nameKey, type AccountIam, type IamStore, type Role } from './store';
import {
  byName,
  checkDescription,
  checkName,
  checkPath,
  checkTags,
  date,
  mergeTags,
  paginate,
  removeTags,
  required,
  underPath,
  validationError,
  type Input,
} from './validate';

/** Default quota of a role trust policy's length. */
const TRUST_POLICY_QUOTA = 2048;

export function checkTrustPolicy(document: string): string {
  validatePolicyDocument(document, 'trust');
  if (policySize(document) > TRUST_POLICY_QUOTA)
    throw new AwsError('LimitExceeded', `Cannot exceed quota for ACLSizePerRole: ${TRUST_POLICY_QUOTA}`);
  return document;
}

function checkMaxSessionDuration(value: unknown): number {
  if (value === undefined) return 3600;
  const seconds = Number(value);
  if (!Number.isInteger(seconds) || seconds < 3600 || seconds > 43200)
    throw validationError(
      'maxSessionDuration',
      value,
      seconds < 3600
        ? 'Member must have value greater than or equal to 3600'
        : 'Member must have value less than or equal to 43200',
    );
  return seconds;
}

/** A role as GetRole reports it (ListRoles leaves out tags, the boundary and RoleLastUsed). */
export function roleOutput(role: Role, full = true): Record<string, unknown> {
  return {
    Path: role.path,
    RoleName: role.name,
    RoleId: role.id,
    Arn: role.arn,
    CreateDate: date(role.created),
    AssumeRolePolicyDocument: encodeDocument(role.assumeRolePolicyDocument),
    Description: role.description,
    MaxSessionDuration: role.maxSessionDuration,
    ...(full
      ? {
          PermissionsBoundary: boundaryOutput(role.permissionsBoundary),
          Tags: role.tags.length ? role.tags : undefined,
          RoleLastUsed: {},
        }
      : {}),
  };
}

export interface CreateRoleInput {
  RoleName: string;
  AssumeRolePolicyDocument: string;
  Path?: string;
  Description?: string;
  MaxSessionDuration?: number;
  PermissionsBoundary?: string;
  Tags?: unknown;
}

/** Creates a role (CreateRole, and Cloud Control's create). */
export function createRole(store: IamStore, account: string, input: CreateRoleInput): Role {
  const iam = store.account(account);
  const name = checkName(input.RoleName, 'roleName', 64);
  const path = checkPath(input.Path);
  const document = checkTrustPolicy(input.AssumeRolePolicyDocument);
  const description = checkDescription(input.Description);
  const maxSessionDuration = checkMaxSessionDuration(input.MaxSessionDuration);
  const tags = checkTags(input.Tags);
  if (input.PermissionsBoundary !== undefined) attachablePolicy(store, account, input.PermissionsBoundary);
  if (iam.roles[nameKey(name)])
    throw new AwsError('EntityAlreadyExists', `Role with name ${name} already exists.`);
  const role: Role = {
    name,
    id: uniqueId('role'),
    path,
    arn: iamArn(account, 'role', path, name),
    created: now(),
    assumeRolePolicyDocument: document,
    description,
    maxSessionDuration,
    permissionsBoundary: input.PermissionsBoundary,
    tags,
    inlinePolicies: {},
    attached: [],
  };
  iam.roles[nameKey(name)] = role;
  return role;
}

/** DeleteRole's conflicts, in the order IAM checks them. */
export function deleteRole(iam: AccountIam, name: string): void {
  const role = getRole(iam, name);
  if (Object.values(iam.instanceProfiles).some((p) => p.roles.includes(nameKey(role.name))))
    throw new AwsError(
      'DeleteConflict',
      'Cannot delete entity, must remove roles from instance profile first.',
    );
  if (Object.keys(role.inlinePolicies).length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must delete policies first.');
  if (role.attached.length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must detach all policies first.');
  delete iam.roles[nameKey(role.name)];
}

export function roleOperations(store: IamStore): Operations {
  const role = (account: string, input: Input) =>
    getRole(store.account(account), required(input, 'RoleName'));
  return {
    CreateRole: (ctx, input: CreateRoleInput) => {
      required(input as unknown as Input, 'RoleName');
      required(input as unknown as Input, 'AssumeRolePolicyDocument');
      return { Role: roleOutput(createRole(store, ctx.account, input)) };
    },
    GetRole: (ctx, input: Input) => ({ Role: roleOutput(role(ctx.account, input)) }),
    UpdateRole: (ctx, input: Input) => {
      const target = role(ctx.account, input);
      const description = checkDescription(input.Description);
      const maxSessionDuration =
        input.MaxSessionDuration === undefined
          ? undefined
          : checkMaxSessionDuration(input.MaxSessionDuration);
      if (description !== undefined) target.description = description === '' ? undefined : description;
      if (maxSessionDuration !== undefined) target.maxSessionDuration = maxSessionDuration;
      return {};
    },
    UpdateRoleDescription: (ctx, input: Input) => {
      const target = role(ctx.account, input);
      const description = checkDescription(required(input, 'Description'));
      target.description = description === '' ? undefined : description;
      return { Role: roleOutput(target) };
    },
    UpdateAssumeRolePolicy: (ctx, input: Input) => {
      const target = role(ctx.account, input);
      target.assumeRolePolicyDocument = checkTrustPolicy(required(input, 'PolicyDocument'));
      return {};
    },
    DeleteRole: (ctx, input: Input) => {
      deleteRole(store.account(ctx.account), required(input, 'RoleName'));
      return {};
    },
    ListRoles: (ctx, input: Input) => {
      const roles = byName(underPath(Object.values(store.account(ctx.account).roles), input.PathPrefix));
      const page = paginate(roles, input);
      return {
        Roles: page.items.map((r) => roleOutput(r, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    TagRole: (ctx, input: Input) => {
      const target = role(ctx.account, input);
      target.tags = mergeTags(target.tags, checkTags(input.Tags, target.tags));
      return {};
    },
    UntagRole: (ctx, input: Input) => {
      const target = role(ctx.account, input);
      target.tags = removeTags(target.tags, input.TagKeys);
      return {};
    },
    ListRoleTags: (ctx, input: Input) => {
      const page = paginate(role(ctx.account, input).tags, input);
      return { Tags: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
    PutRolePermissionsBoundary: (ctx, input: Input) => {
      const target = role(ctx.account, input);
      const arn = required(input, 'PermissionsBoundary');
      attachablePolicy(store, ctx.account, arn);
      target.permissionsBoundary = arn;
      return {};
    },
    DeleteRolePermissionsBoundary: (ctx, input: Input) => {
      role(ctx.account, input).permissionsBoundary = undefined;
      return {};
    },
  };
}

/**
 * `AWS::IAM::Role`, `AWS::IAM::User` and `AWS::IAM::Group` over IAM's own
 * store. Their models carry every inline policy (`Policies`) and attached
 * managed policy (`ManagedPolicyArns`) the principal has, however it got it,
 * as IAM's read handlers report them.
 */
import { upperAlnum } from '../../../core/ids';
import {
  alreadyExists,
  notFound,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../../core/resources';
import type { ResourceSchema } from '../../../core/resource-schema';
import type { InventoryItem } from '../../../core/service';
import { attachablePolicy } from '../entities';
import { checkTrustPolicy, createRole, deleteRole } from '../roles';
import { nameKey, type Group, type IamStore, type Role, type User } from '../store';
import {
  addUserToGroup,
  createGroup,
  createUser,
  deleteGroup,
  deleteUser,
  groupsOf,
  removeUserFromGroup,
  setLoginProfile,
} from '../users-groups';
import { checkDescription, checkPath, checkTags } from '../validate';
import {
  GROUP_KIND,
  ROLE_KIND,
  USER_KIND,
  applyManagedPolicies,
  applyPolicies,
  documentObject,
  documentText,
  handler,
  item,
  policiesModel,
  tagsModel,
} from './common';

type Model = Record<string, unknown>;

function roleModel(role: Role): Model {
  return {
    RoleName: role.name,
    Arn: role.arn,
    RoleId: role.id,
    Path: role.path,
    AssumeRolePolicyDocument: documentObject(role.assumeRolePolicyDocument),
    Description: role.description,
    MaxSessionDuration: role.maxSessionDuration,
    PermissionsBoundary: role.permissionsBoundary,
    Policies: policiesModel(role),
    ManagedPolicyArns: role.attached.length ? [...role.attached] : undefined,
    Tags: tagsModel(role.tags),
  };
}

const stored = (identifier: string, model: Model): StoredResource => ({
  identifier,
  model: Object.fromEntries(Object.entries(model).filter(([, v]) => v !== undefined)),
});

export class RoleProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::Role';
  constructor(private readonly store: IamStore) {}

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const name = typeof desired.RoleName === 'string' ? desired.RoleName : `Role-${upperAlnum(12)}`;
    if (iam.roles[nameKey(name)]) throw alreadyExists(schema.typeName, name);
    return handler(() => {
      const role = createRole(this.store, scope.account, {
        RoleName: name,
        AssumeRolePolicyDocument: documentText(desired.AssumeRolePolicyDocument),
        Path: desired.Path as string | undefined,
        Description: desired.Description as string | undefined,
        MaxSessionDuration: desired.MaxSessionDuration as number | undefined,
        PermissionsBoundary: desired.PermissionsBoundary as string | undefined,
        Tags: desired.Tags,
      });
      try {
        applyPolicies(ROLE_KIND, role, desired.Policies);
        applyManagedPolicies(this.store, ROLE_KIND, scope.account, role, desired.ManagedPolicyArns);
      } catch (err) {
        delete iam.roles[nameKey(name)];
        throw err;
      }
      return stored(role.name, roleModel(role));
    });
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const role = this.store.account(scope.account).roles[nameKey(identifier)];
    return role ? stored(role.name, roleModel(role)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const role = this.store.account(scope.account).roles[nameKey(identifier)];
    if (!role) throw notFound(schema.typeName, identifier);
    return handler(() => {
      role.assumeRolePolicyDocument = checkTrustPolicy(documentText(desired.AssumeRolePolicyDocument));
      role.description = checkDescription(desired.Description);
      role.maxSessionDuration = (desired.MaxSessionDuration as number | undefined) ?? 3600;
      if (desired.PermissionsBoundary !== undefined)
        attachablePolicy(this.store, scope.account, String(desired.PermissionsBoundary));
      role.permissionsBoundary = desired.PermissionsBoundary as string | undefined;
      role.tags = checkTags(desired.Tags);
      applyPolicies(ROLE_KIND, role, desired.Policies);
      applyManagedPolicies(this.store, ROLE_KIND, scope.account, role, desired.ManagedPolicyArns);
      return stored(role.name, roleModel(role));
    });
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const role = iam.roles[nameKey(identifier)];
    if (!role) throw notFound(schema.typeName, identifier);
    // The handler removes the role's policies before the role, as CloudFormation does.
    handler(() => {
      role.inlinePolicies = {};
      role.attached = [];
      deleteRole(iam, role.name);
    });
  }

  list(scope: ResourceScope): StoredResource[] {
    return Object.values(this.store.account(scope.account).roles).map((r) => stored(r.name, roleModel(r)));
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.roles).map((r) =>
          item(account, this.typeName, r.name, stored(r.name, roleModel(r)).model),
        ),
      );
  }
}

function userModel(store: IamStore, account: string, user: User): Model {
  const iam = store.account(account);
  const groups = groupsOf(iam, user).map((g) => g.name);
  return {
    UserName: user.name,
    Arn: user.arn,
    Path: user.path,
    Groups: groups.length ? groups : undefined,
    LoginProfile: user.loginProfile
      ? { PasswordResetRequired: user.loginProfile.passwordResetRequired }
      : undefined,
    ManagedPolicyArns: user.attached.length ? [...user.attached] : undefined,
    PermissionsBoundary: user.permissionsBoundary,
    Policies: policiesModel(user),
    Tags: tagsModel(user.tags),
  };
}

export class UserProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::User';
  constructor(private readonly store: IamStore) {}

  private apply(account: string, user: User, desired: Model): void {
    const iam = this.store.account(account);
    const wanted = ((desired.Groups as string[] | undefined) ?? []).map(nameKey);
    for (const group of groupsOf(iam, user))
      if (!wanted.includes(nameKey(group.name))) removeUserFromGroup(iam, group.name, user.name);
    for (const group of (desired.Groups as string[] | undefined) ?? []) addUserToGroup(iam, group, user.name);
    const login = desired.LoginProfile as { Password?: string; PasswordResetRequired?: boolean } | undefined;
    if (login) setLoginProfile(user, login, !user.loginProfile);
    else user.loginProfile = undefined;
    applyPolicies(USER_KIND, user, desired.Policies);
    applyManagedPolicies(this.store, USER_KIND, account, user, desired.ManagedPolicyArns);
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const name = typeof desired.UserName === 'string' ? desired.UserName : `User-${upperAlnum(12)}`;
    if (iam.users[nameKey(name)]) throw alreadyExists(schema.typeName, name);
    return handler(() => {
      const user = createUser(this.store, scope.account, {
        UserName: name,
        Path: desired.Path as string | undefined,
        PermissionsBoundary: desired.PermissionsBoundary as string | undefined,
        Tags: desired.Tags,
      });
      try {
        this.apply(scope.account, user, desired);
      } catch (err) {
        for (const g of Object.values(iam.groups)) g.members = g.members.filter((m) => m !== nameKey(name));
        delete iam.users[nameKey(name)];
        throw err;
      }
      return stored(user.name, userModel(this.store, scope.account, user));
    });
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const user = this.store.account(scope.account).users[nameKey(identifier)];
    return user ? stored(user.name, userModel(this.store, scope.account, user)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const user = this.store.account(scope.account).users[nameKey(identifier)];
    if (!user) throw notFound(schema.typeName, identifier);
    return handler(() => {
      user.path = checkPath(desired.Path);
      user.arn = `arn:aws:iam::${scope.account}:user${user.path}${user.name}`;
      if (desired.PermissionsBoundary !== undefined)
        attachablePolicy(this.store, scope.account, String(desired.PermissionsBoundary));
      user.permissionsBoundary = desired.PermissionsBoundary as string | undefined;
      user.tags = checkTags(desired.Tags);
      this.apply(scope.account, user, desired);
      return stored(user.name, userModel(this.store, scope.account, user));
    });
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const user = iam.users[nameKey(identifier)];
    if (!user) throw notFound(schema.typeName, identifier);
    handler(() => {
      for (const g of groupsOf(iam, user)) removeUserFromGroup(iam, g.name, user.name);
      user.loginProfile = undefined;
      user.inlinePolicies = {};
      user.attached = [];
      deleteUser(iam, user.name);
    });
  }

  list(scope: ResourceScope): StoredResource[] {
    return Object.values(this.store.account(scope.account).users).map((u) =>
      stored(u.name, userModel(this.store, scope.account, u)),
    );
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.users).map((u) =>
          item(account, this.typeName, u.name, stored(u.name, userModel(this.store, account, u)).model),
        ),
      );
  }
}

function groupModel(group: Group): Model {
  return {
    GroupName: group.name,
    Arn: group.arn,
    Path: group.path,
    ManagedPolicyArns: group.attached.length ? [...group.attached] : undefined,
    Policies: policiesModel(group),
  };
}

export class GroupProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::Group';
  constructor(private readonly store: IamStore) {}

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const name = typeof desired.GroupName === 'string' ? desired.GroupName : `Group-${upperAlnum(12)}`;
    if (iam.groups[nameKey(name)]) throw alreadyExists(schema.typeName, name);
    return handler(() => {
      const group = createGroup(this.store, scope.account, {
        GroupName: name,
        Path: desired.Path as string | undefined,
      });
      try {
        applyPolicies(GROUP_KIND, group, desired.Policies);
        applyManagedPolicies(this.store, GROUP_KIND, scope.account, group, desired.ManagedPolicyArns);
      } catch (err) {
        delete iam.groups[nameKey(name)];
        throw err;
      }
      return stored(group.name, groupModel(group));
    });
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const group = this.store.account(scope.account).groups[nameKey(identifier)];
    return group ? stored(group.name, groupModel(group)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const group = this.store.account(scope.account).groups[nameKey(identifier)];
    if (!group) throw notFound(schema.typeName, identifier);
    return handler(() => {
      group.path = checkPath(desired.Path);
      group.arn = `arn:aws:iam::${scope.account}:group${group.path}${group.name}`;
      applyPolicies(GROUP_KIND, group, desired.Policies);
      applyManagedPolicies(this.store, GROUP_KIND, scope.account, group, desired.ManagedPolicyArns);
      return stored(group.name, groupModel(group));
    });
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const group = iam.groups[nameKey(identifier)];
    if (!group) throw notFound(schema.typeName, identifier);
    handler(() => {
      group.inlinePolicies = {};
      group.attached = [];
      deleteGroup(iam, group.name);
    });
  }

  list(scope: ResourceScope): StoredResource[] {
    return Object.values(this.store.account(scope.account).groups).map((g) => stored(g.name, groupModel(g)));
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.groups).map((g) =>
          item(account, this.typeName, g.name, stored(g.name, groupModel(g)).model),
        ),
      );
  }
}

export { stored };

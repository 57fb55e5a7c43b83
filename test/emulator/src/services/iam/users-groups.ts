/**
 * IAM users, their login profiles, and groups with their members
 * (IAM API Reference). A user renamed by UpdateUser keeps its memberships,
 * keys and policies, as in IAM; so does a renamed group.
 */
import { AwsError } from '../../core/errors';
import type { Operations } from '../../core/service';
import {
  attachablePolicy,
  boundaryOutput,
  getGroup,
  getUser,
  iamArn,
  noSuchEntity,
  now,
  uniqueId,
} from './entities';
import { nameKey, type AccountIam, type Group, type IamStore, type User } from './store';
import {
  byName,
  checkName,
  checkPath,
  checkTags,
  date,
  mergeTags,
  paginate,
  removeTags,
  required,
  underPath,
  type Input,
} from './validate';

/** Default quota of groups a user can be in. */
const GROUPS_PER_USER = 10;

export function userOutput(user: User, full = true): Record<string, unknown> {
  return {
    Path: user.path,
    UserName: user.name,
    UserId: user.id,
    Arn: user.arn,
    CreateDate: date(user.created),
    ...(full
      ? {
          PermissionsBoundary: boundaryOutput(user.permissionsBoundary),
          Tags: user.tags.length ? user.tags : undefined,
        }
      : {}),
  };
}

export function groupOutput(group: Group): Record<string, unknown> {
  return {
    Path: group.path,
    GroupName: group.name,
    GroupId: group.id,
    Arn: group.arn,
    CreateDate: date(group.created),
  };
}

export function createUser(
  store: IamStore,
  account: string,
  input: { UserName: string; Path?: string; PermissionsBoundary?: string; Tags?: unknown },
): User {
  const iam = store.account(account);
  const name = checkName(input.UserName, 'userName', 64);
  const path = checkPath(input.Path);
  const tags = checkTags(input.Tags);
  if (input.PermissionsBoundary !== undefined) attachablePolicy(store, account, input.PermissionsBoundary);
  if (iam.users[nameKey(name)])
    throw new AwsError('EntityAlreadyExists', `User with name ${name} already exists.`);
  const user: User = {
    name,
    id: uniqueId('user'),
    path,
    arn: iamArn(account, 'user', path, name),
    created: now(),
    permissionsBoundary: input.PermissionsBoundary,
    tags,
    inlinePolicies: {},
    attached: [],
  };
  iam.users[nameKey(name)] = user;
  return user;
}

/** DeleteUser's conflicts, in the order the API reference lists what must go first. */
export function deleteUser(iam: AccountIam, name: string): void {
  const user = getUser(iam, name);
  const key = nameKey(user.name);
  if (user.loginProfile)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must delete login profile first.');
  if (Object.values(iam.accessKeys).some((k) => k.user === key))
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must delete access keys first.');
  if (Object.keys(user.inlinePolicies).length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must delete policies first.');
  if (user.attached.length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must detach all policies first.');
  if (Object.values(iam.groups).some((g) => g.members.includes(key)))
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must remove users from group first.');
  delete iam.users[key];
}

export function createGroup(
  store: IamStore,
  account: string,
  input: { GroupName: string; Path?: string },
): Group {
  const iam = store.account(account);
  const name = checkName(input.GroupName, 'groupName', 128);
  const path = checkPath(input.Path);
  if (iam.groups[nameKey(name)])
    throw new AwsError('EntityAlreadyExists', `Group with name ${name} already exists.`);
  const group: Group = {
    name,
    id: uniqueId('group'),
    path,
    arn: iamArn(account, 'group', path, name),
    created: now(),
    inlinePolicies: {},
    attached: [],
    members: [],
  };
  iam.groups[nameKey(name)] = group;
  return group;
}

export function deleteGroup(iam: AccountIam, name: string): void {
  const group = getGroup(iam, name);
  if (group.members.length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must remove users from group first.');
  if (Object.keys(group.inlinePolicies).length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must delete policies first.');
  if (group.attached.length)
    throw new AwsError('DeleteConflict', 'Cannot delete entity, must detach all policies first.');
  delete iam.groups[nameKey(group.name)];
}

export function addUserToGroup(iam: AccountIam, groupName: string, userName: string): void {
  const group = getGroup(iam, groupName);
  const user = getUser(iam, userName);
  const key = nameKey(user.name);
  if (group.members.includes(key)) return;
  if (Object.values(iam.groups).filter((g) => g.members.includes(key)).length >= GROUPS_PER_USER)
    throw new AwsError('LimitExceeded', `Cannot exceed quota for GroupsPerUser: ${GROUPS_PER_USER}`);
  group.members.push(key);
}

export function removeUserFromGroup(iam: AccountIam, groupName: string, userName: string): void {
  const group = getGroup(iam, groupName);
  const user = getUser(iam, userName);
  const key = nameKey(user.name);
  if (!group.members.includes(key))
    throw noSuchEntity(`The user with name ${user.name} is not in group ${group.name}.`);
  group.members = group.members.filter((m) => m !== key);
}

/** Groups the user is in. */
export function groupsOf(iam: AccountIam, user: User): Group[] {
  return Object.values(iam.groups).filter((g) => g.members.includes(nameKey(user.name)));
}

/** Default password policy: 8 characters, three of the four character types (IAM User Guide). */
function checkPassword(password: string): void {
  const kinds = [/[A-Z]/, /[a-z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(password)).length;
  if (password.length < 8 || kinds < 3)
    throw new AwsError(
      'PasswordPolicyViolation',
      'Password does not conform to the account password policy.',
    );
}

function loginProfileOutput(user: User): Record<string, unknown> {
  return {
    UserName: user.name,
    CreateDate: date(user.loginProfile!.created),
    PasswordResetRequired: user.loginProfile!.passwordResetRequired,
  };
}

export function setLoginProfile(
  user: User,
  input: { Password?: unknown; PasswordResetRequired?: unknown },
  create: boolean,
): void {
  if (create && user.loginProfile)
    throw new AwsError('EntityAlreadyExists', `Login Profile for user ${user.name} already exists.`);
  if (!create && !user.loginProfile)
    throw noSuchEntity(`Login Profile for User ${user.name} cannot be found.`);
  if (input.Password !== undefined) checkPassword(String(input.Password));
  else if (create) required(input as Input, 'Password');
  user.loginProfile = {
    created: user.loginProfile?.created ?? now(),
    passwordResetRequired:
      input.PasswordResetRequired === undefined
        ? (user.loginProfile?.passwordResetRequired ?? false)
        : input.PasswordResetRequired === true,
  };
}

/** Renames and moves a user or group in place (UpdateUser, UpdateGroup). */
function renamePrincipal<T extends User | Group>(
  table: Record<string, T>,
  entity: T,
  kind: 'user' | 'group',
  account: string,
  newName: unknown,
  newPath: unknown,
): { oldKey: string; newKey: string } {
  const oldKey = nameKey(entity.name);
  const name =
    newName === undefined
      ? entity.name
      : checkName(
          String(newName),
          `new${kind === 'user' ? 'User' : 'Group'}Name`,
          kind === 'user' ? 64 : 128,
        );
  const path = newPath === undefined ? entity.path : checkPath(newPath, 'newPath');
  const newKey = nameKey(name);
  if (newKey !== oldKey && table[newKey])
    throw new AwsError(
      'EntityAlreadyExists',
      `${kind === 'user' ? 'User' : 'Group'} with name ${name} already exists.`,
    );
  delete table[oldKey];
  entity.name = name;
  entity.path = path;
  entity.arn = iamArn(account, kind, path, name);
  table[newKey] = entity;
  return { oldKey, newKey };
}

export function userGroupOperations(store: IamStore): Operations {
  const iamOf = (account: string) => store.account(account);
  return {
    CreateUser: (ctx, input: Input) => ({
      User: userOutput(
        createUser(store, ctx.account, {
          UserName: required(input, 'UserName'),
          Path: input.Path as string | undefined,
          PermissionsBoundary: input.PermissionsBoundary as string | undefined,
          Tags: input.Tags,
        }),
      ),
    }),
    GetUser: (ctx, input: Input) => {
      if (input.UserName === undefined)
        return { User: { Path: '/', UserId: ctx.callerUserId, Arn: ctx.callerArn, CreateDate: new Date(0) } };
      return { User: userOutput(getUser(iamOf(ctx.account), String(input.UserName))) };
    },
    UpdateUser: (ctx, input: Input) => {
      const iam = iamOf(ctx.account);
      const user = getUser(iam, required(input, 'UserName'));
      const { oldKey, newKey } = renamePrincipal(
        iam.users,
        user,
        'user',
        ctx.account,
        input.NewUserName,
        input.NewPath,
      );
      if (oldKey !== newKey) {
        for (const g of Object.values(iam.groups))
          g.members = g.members.map((m) => (m === oldKey ? newKey : m));
        for (const k of Object.values(iam.accessKeys)) if (k.user === oldKey) k.user = newKey;
      }
      return {};
    },
    DeleteUser: (ctx, input: Input) => {
      deleteUser(iamOf(ctx.account), required(input, 'UserName'));
      return {};
    },
    ListUsers: (ctx, input: Input) => {
      const page = paginate(
        byName(underPath(Object.values(iamOf(ctx.account).users), input.PathPrefix)),
        input,
      );
      return {
        Users: page.items.map((u) => userOutput(u, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    TagUser: (ctx, input: Input) => {
      const user = getUser(iamOf(ctx.account), required(input, 'UserName'));
      user.tags = mergeTags(user.tags, checkTags(input.Tags, user.tags));
      return {};
    },
    UntagUser: (ctx, input: Input) => {
      const user = getUser(iamOf(ctx.account), required(input, 'UserName'));
      user.tags = removeTags(user.tags, input.TagKeys);
      return {};
    },
    ListUserTags: (ctx, input: Input) => {
      const page = paginate(getUser(iamOf(ctx.account), required(input, 'UserName')).tags, input);
      return { Tags: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
    PutUserPermissionsBoundary: (ctx, input: Input) => {
      const user = getUser(iamOf(ctx.account), required(input, 'UserName'));
      const arn = required(input, 'PermissionsBoundary');
      attachablePolicy(store, ctx.account, arn);
      user.permissionsBoundary = arn;
      return {};
    },
    DeleteUserPermissionsBoundary: (ctx, input: Input) => {
      getUser(iamOf(ctx.account), required(input, 'UserName')).permissionsBoundary = undefined;
      return {};
    },
    CreateLoginProfile: (ctx, input: Input) => {
      const user = getUser(iamOf(ctx.account), required(input, 'UserName'));
      setLoginProfile(user, input, true);
      return { LoginProfile: loginProfileOutput(user) };
    },
    GetLoginProfile: (ctx, input: Input) => {
      const user = getUser(iamOf(ctx.account), required(input, 'UserName'));
      if (!user.loginProfile) throw noSuchEntity(`Login Profile for User ${user.name} cannot be found.`);
      return { LoginProfile: loginProfileOutput(user) };
    },
    UpdateLoginProfile: (ctx, input: Input) => {
      setLoginProfile(getUser(iamOf(ctx.account), required(input, 'UserName')), input, false);
      return {};
    },
    DeleteLoginProfile: (ctx, input: Input) => {
      const user = getUser(iamOf(ctx.account), required(input, 'UserName'));
      if (!user.loginProfile) throw noSuchEntity(`Login Profile for User ${user.name} cannot be found.`);
      user.loginProfile = undefined;
      return {};
    },

    CreateGroup: (ctx, input: Input) => ({
      Group: groupOutput(
        createGroup(store, ctx.account, {
          GroupName: required(input, 'GroupName'),
          Path: input.Path as string | undefined,
        }),
      ),
    }),
    GetGroup: (ctx, input: Input) => {
      const iam = iamOf(ctx.account);
      const group = getGroup(iam, required(input, 'GroupName'));
      const page = paginate(group.members.map((m) => iam.users[m]!).filter(Boolean), input);
      return {
        Group: groupOutput(group),
        Users: page.items.map((u) => userOutput(u, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    UpdateGroup: (ctx, input: Input) => {
      const iam = iamOf(ctx.account);
      const group = getGroup(iam, required(input, 'GroupName'));
      renamePrincipal(iam.groups, group, 'group', ctx.account, input.NewGroupName, input.NewPath);
      return {};
    },
    DeleteGroup: (ctx, input: Input) => {
      deleteGroup(iamOf(ctx.account), required(input, 'GroupName'));
      return {};
    },
    ListGroups: (ctx, input: Input) => {
      const page = paginate(
        byName(underPath(Object.values(iamOf(ctx.account).groups), input.PathPrefix)),
        input,
      );
      return { Groups: page.items.map(groupOutput), IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
    AddUserToGroup: (ctx, input: Input) => {
      addUserToGroup(iamOf(ctx.account), required(input, 'GroupName'), required(input, 'UserName'));
      return {};
    },
    RemoveUserFromGroup: (ctx, input: Input) => {
      removeUserFromGroup(iamOf(ctx.account), required(input, 'GroupName'), required(input, 'UserName'));
      return {};
    },
    ListGroupsForUser: (ctx, input: Input) => {
      const iam = iamOf(ctx.account);
      const user = getUser(iam, required(input, 'UserName'));
      const page = paginate(byName(groupsOf(iam, user)), input);
      return { Groups: page.items.map(groupOutput), IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
  };
}

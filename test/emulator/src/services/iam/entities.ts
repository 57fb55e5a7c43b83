/**
 * Looking IAM entities up, and what several operations share: unique ids
 * in AWS's formats, ARNs, the errors for a missing entity, and the counts IAM
 * reports for managed policies.
 */
import { AwsError } from '../../core/errors';
import { upperAlnum } from '../../core/ids';
import {
  nameKey,
  type AccountIam,
  type Group,
  type IamStore,
  type InstanceProfile,
  type ManagedPolicy,
  type Role,
  type User,
} from './store';

/** The prefixes of IAM unique ids (IAM User Guide, "IAM identifiers", unique identifiers). */
export const ID_PREFIX = {
  role: 'AROA',
  user: 'AIDA',
  group: 'AGPA',
  policy: 'ANPA',
  instanceProfile: 'AIPA',
  accessKey: 'AKIA',
} as const;

/** A unique id: the prefix and 17 characters (21 in all; access keys: 20). */
export function uniqueId(kind: keyof typeof ID_PREFIX): string {
  return `${ID_PREFIX[kind]}${upperAlnum(kind === 'accessKey' ? 16 : 17)}`;
}

export function iamArn(account: string, kind: string, path: string, name: string): string {
  return `arn:aws:iam::${account}:${kind}${path}${name}`;
}

export function now(): string {
  return new Date().toISOString();
}

export function noSuchEntity(message: string): AwsError {
  return new AwsError('NoSuchEntity', message);
}

export function getRole(iam: AccountIam, name: string): Role {
  const role = iam.roles[nameKey(name)];
  if (!role) throw noSuchEntity(`The role with name ${name} cannot be found.`);
  return role;
}

export function getUser(iam: AccountIam, name: string): User {
  const user = iam.users[nameKey(name)];
  if (!user) throw noSuchEntity(`The user with name ${name} cannot be found.`);
  return user;
}

export function getGroup(iam: AccountIam, name: string): Group {
  const group = iam.groups[nameKey(name)];
  if (!group) throw noSuchEntity(`The group with name ${name} cannot be found.`);
  return group;
}

export function getInstanceProfile(iam: AccountIam, name: string): InstanceProfile {
  const profile = iam.instanceProfiles[nameKey(name)];
  if (!profile) throw noSuchEntity(`Instance Profile ${name} cannot be found.`);
  return profile;
}

/** A managed policy the account may use: its own, or an AWS managed one. */
export function getManagedPolicy(store: IamStore, account: string, arn: string): ManagedPolicy {
  const policy = store.managedPolicy(account, arn);
  if (!policy) throw noSuchEntity(`Policy ${arn} was not found.`);
  return policy;
}

/** The policy an Attach* or a permissions boundary names. */
export function attachablePolicy(store: IamStore, account: string, arn: string): ManagedPolicy {
  if (!/^arn:aws[a-z-]*:iam::(\d{12}|aws):policy\//.test(arn))
    throw new AwsError('InvalidInput', `ARN ${arn} is not valid.`);
  const policy = store.managedPolicy(account, arn);
  if (!policy) throw noSuchEntity(`Policy ${arn} does not exist or is not attachable.`);
  return policy;
}

/** Roles, users and groups of the account that have the policy attached. */
export function entitiesFor(iam: AccountIam, arn: string): { roles: Role[]; users: User[]; groups: Group[] } {
  return {
    roles: Object.values(iam.roles).filter((r) => r.attached.includes(arn)),
    users: Object.values(iam.users).filter((u) => u.attached.includes(arn)),
    groups: Object.values(iam.groups).filter((g) => g.attached.includes(arn)),
  };
}

export function attachmentCount(iam: AccountIam, arn: string): number {
  const { roles, users, groups } = entitiesFor(iam, arn);
  return roles.length + users.length + groups.length;
}

export function boundaryUsageCount(iam: AccountIam, arn: string): number {
  return (
    Object.values(iam.roles).filter((r) => r.permissionsBoundary === arn).length +
    Object.values(iam.users).filter((u) => u.permissionsBoundary === arn).length
  );
}

/** `PermissionsBoundary` as GetRole and GetUser report it. */
export function boundaryOutput(arn: string | undefined): Record<string, string> | undefined {
  return arn ? { PermissionsBoundaryType: 'Policy', PermissionsBoundaryArn: arn } : undefined;
}

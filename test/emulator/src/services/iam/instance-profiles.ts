/** IAM instance profiles: at most one role each (IAM API Reference, AddRoleToInstanceProfile). */
import { AwsError } from '../../core/errors';
import type { Operations } from '../../core/service';
import { getInstanceProfile, getRole, iamArn, noSuchEntity, now, uniqueId } from './entities';
import { roleOutput } from './roles';
import { nameKey, type AccountIam, type IamStore, type InstanceProfile } from './store';
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

export function instanceProfileOutput(
  iam: AccountIam,
  profile: InstanceProfile,
  withTags = true,
): Record<string, unknown> {
  return {
    Path: profile.path,
    InstanceProfileName: profile.name,
    InstanceProfileId: profile.id,
    Arn: profile.arn,
    CreateDate: date(profile.created),
    Roles: profile.roles
      .map((r) => iam.roles[r])
      .filter(Boolean)
      .map((r) => roleOutput(r!, false)),
    Tags: withTags && profile.tags.length ? profile.tags : undefined,
  };
}

export function createInstanceProfile(
  store: IamStore,
  account: string,
  input: { InstanceProfileName: string; Path?: string; Tags?: unknown },
): InstanceProfile {
  const iam = store.account(account);
  const name = checkName(input.InstanceProfileName, 'instanceProfileName', 128);
  const path = checkPath(input.Path);
  const tags = checkTags(input.Tags);
  if (iam.instanceProfiles[nameKey(name)])
    throw new AwsError('EntityAlreadyExists', `Instance Profile ${name} already exists.`);
  const profile: InstanceProfile = {
    name,
    id: uniqueId('instanceProfile'),
    path,
    arn: iamArn(account, 'instance-profile', path, name),
    created: now(),
    tags,
    roles: [],
  };
  iam.instanceProfiles[nameKey(name)] = profile;
  return profile;
}

export function addRoleToInstanceProfile(iam: AccountIam, profileName: string, roleName: string): void {
  const profile = getInstanceProfile(iam, profileName);
  const role = getRole(iam, roleName);
  if (profile.roles.length >= 1)
    throw new AwsError('LimitExceeded', 'Cannot exceed quota for InstanceSessionsPerInstanceProfile: 1');
  profile.roles.push(nameKey(role.name));
}

export function removeRoleFromInstanceProfile(iam: AccountIam, profileName: string, roleName: string): void {
  const profile = getInstanceProfile(iam, profileName);
  const key = nameKey(roleName);
  if (!profile.roles.includes(key)) throw noSuchEntity(`The role with name ${roleName} cannot be found.`);
  profile.roles = profile.roles.filter((r) => r !== key);
}

export function deleteInstanceProfile(iam: AccountIam, name: string): void {
  const profile = getInstanceProfile(iam, name);
  if (profile.roles.length)
    throw new AwsError(
      'DeleteConflict',
      'Cannot delete entity, must remove roles from instance profile first.',
    );
  delete iam.instanceProfiles[nameKey(profile.name)];
}

export function instanceProfileOperations(store: IamStore): Operations {
  const iamOf = (account: string) => store.account(account);
  const profileOf = (account: string, input: Input) =>
    getInstanceProfile(iamOf(account), required(input, 'InstanceProfileName'));
  return {
    CreateInstanceProfile: (ctx, input: Input) => {
      const profile = createInstanceProfile(store, ctx.account, {
        InstanceProfileName: required(input, 'InstanceProfileName'),
        Path: input.Path as string | undefined,
        Tags: input.Tags,
      });
      return { InstanceProfile: instanceProfileOutput(iamOf(ctx.account), profile) };
    },
    GetInstanceProfile: (ctx, input: Input) => ({
      InstanceProfile: instanceProfileOutput(iamOf(ctx.account), profileOf(ctx.account, input)),
    }),
    DeleteInstanceProfile: (ctx, input: Input) => {
      deleteInstanceProfile(iamOf(ctx.account), required(input, 'InstanceProfileName'));
      return {};
    },
    AddRoleToInstanceProfile: (ctx, input: Input) => {
      addRoleToInstanceProfile(
        iamOf(ctx.account),
        required(input, 'InstanceProfileName'),
        required(input, 'RoleName'),
      );
      return {};
    },
    RemoveRoleFromInstanceProfile: (ctx, input: Input) => {
      removeRoleFromInstanceProfile(
        iamOf(ctx.account),
        required(input, 'InstanceProfileName'),
        required(input, 'RoleName'),
      );
      return {};
    },
    ListInstanceProfiles: (ctx, input: Input) => {
      const iam = iamOf(ctx.account);
      const page = paginate(byName(underPath(Object.values(iam.instanceProfiles), input.PathPrefix)), input);
      return {
        InstanceProfiles: page.items.map((p) => instanceProfileOutput(iam, p, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    ListInstanceProfilesForRole: (ctx, input: Input) => {
      const iam = iamOf(ctx.account);
      const role = getRole(iam, required(input, 'RoleName'));
      const profiles = byName(
        Object.values(iam.instanceProfiles).filter((p) => p.roles.includes(nameKey(role.name))),
      );
      const page = paginate(profiles, input);
      return {
        InstanceProfiles: page.items.map((p) => instanceProfileOutput(iam, p, false)),
        IsTruncated: page.IsTruncated,
        Marker: page.Marker,
      };
    },
    TagInstanceProfile: (ctx, input: Input) => {
      const profile = profileOf(ctx.account, input);
      profile.tags = mergeTags(profile.tags, checkTags(input.Tags, profile.tags));
      return {};
    },
    UntagInstanceProfile: (ctx, input: Input) => {
      const profile = profileOf(ctx.account, input);
      profile.tags = removeTags(profile.tags, input.TagKeys);
      return {};
    },
    ListInstanceProfileTags: (ctx, input: Input) => {
      const page = paginate(profileOf(ctx.account, input).tags, input);
      return { Tags: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    },
  };
}

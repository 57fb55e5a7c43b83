/**
 * `AWS::IAM::InstanceProfile`, `AWS::IAM::AccessKey` (identifier: the access
 * key id; the secret is in the create's model only, as IAM returns it once),
 * `AWS::IAM::OIDCProvider`, and `AWS::IAM::UserToGroupAddition`, which IAM
 * has no object for: Cloud Control keeps it as a record of the memberships it
 * added, and the memberships live on the group.
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
import { createAccessKey } from '../access-keys';
import { getGroup } from '../entities';
import {
  addRoleToInstanceProfile,
  createInstanceProfile,
  deleteInstanceProfile,
  removeRoleFromInstanceProfile,
} from '../instance-profiles';
import { createOidcProvider } from '../oidc-providers';
import {
  nameKey,
  type AccessKey,
  type AccountIam,
  type IamStore,
  type InstanceProfile,
  type OidcProvider,
  type UserToGroupConstruct,
} from '../store';
import { addUserToGroup, removeUserFromGroup } from '../users-groups';
import { checkTags } from '../validate';
import { handler, item, tagsModel } from './common';
import { stored } from './principals';

type Model = Record<string, unknown>;

function profileModel(iam: AccountIam, profile: InstanceProfile): Model {
  return {
    InstanceProfileName: profile.name,
    Arn: profile.arn,
    Path: profile.path,
    Roles: profile.roles.map((r) => iam.roles[r]?.name ?? r),
  };
}

export class InstanceProfileProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::InstanceProfile';
  constructor(private readonly store: IamStore) {}

  private applyRoles(iam: AccountIam, profile: InstanceProfile, desired: Model): void {
    const wanted = ((desired.Roles as string[] | undefined) ?? []).map(nameKey);
    for (const role of [...profile.roles])
      if (!wanted.includes(role)) removeRoleFromInstanceProfile(iam, profile.name, role);
    for (const role of (desired.Roles as string[] | undefined) ?? [])
      if (!profile.roles.includes(nameKey(role))) addRoleToInstanceProfile(iam, profile.name, role);
  }

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const name =
      typeof desired.InstanceProfileName === 'string'
        ? desired.InstanceProfileName
        : `InstanceProfile-${upperAlnum(12)}`;
    if (iam.instanceProfiles[nameKey(name)]) throw alreadyExists(schema.typeName, name);
    return handler(() => {
      const profile = createInstanceProfile(this.store, scope.account, {
        InstanceProfileName: name,
        Path: desired.Path as string | undefined,
      });
      try {
        this.applyRoles(iam, profile, desired);
      } catch (err) {
        delete iam.instanceProfiles[nameKey(name)];
        throw err;
      }
      return stored(profile.name, profileModel(iam, profile));
    });
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const iam = this.store.account(scope.account);
    const profile = iam.instanceProfiles[nameKey(identifier)];
    return profile ? stored(profile.name, profileModel(iam, profile)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const profile = iam.instanceProfiles[nameKey(identifier)];
    if (!profile) throw notFound(schema.typeName, identifier);
    handler(() => this.applyRoles(iam, profile, desired));
    return stored(profile.name, profileModel(iam, profile));
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const profile = iam.instanceProfiles[nameKey(identifier)];
    if (!profile) throw notFound(schema.typeName, identifier);
    handler(() => {
      profile.roles = [];
      deleteInstanceProfile(iam, profile.name);
    });
  }

  list(scope: ResourceScope): StoredResource[] {
    const iam = this.store.account(scope.account);
    return Object.values(iam.instanceProfiles).map((p) => stored(p.name, profileModel(iam, p)));
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.instanceProfiles).map((p) =>
          item(account, this.typeName, p.name, profileModel(iam, p)),
        ),
      );
  }
}

function keyModel(iam: AccountIam, key: AccessKey): Model {
  return { Id: key.id, UserName: iam.users[key.user]?.name ?? key.user, Status: key.status };
}

export class AccessKeyProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::AccessKey';
  constructor(private readonly store: IamStore) {}

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const status = desired.Status === 'Inactive' ? 'Inactive' : 'Active';
    const { key, secret } = handler(() => createAccessKey(iam, String(desired.UserName), status));
    return stored(key.id, { ...keyModel(iam, key), SecretAccessKey: secret, Serial: desired.Serial });
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const iam = this.store.account(scope.account);
    const key = iam.accessKeys[identifier];
    return key ? stored(key.id, keyModel(iam, key)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const key = iam.accessKeys[identifier];
    if (!key) throw notFound(schema.typeName, identifier);
    key.status = desired.Status === 'Inactive' ? 'Inactive' : 'Active';
    return stored(key.id, keyModel(iam, key));
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    if (!iam.accessKeys[identifier]) throw notFound(schema.typeName, identifier);
    delete iam.accessKeys[identifier];
  }

  list(scope: ResourceScope): StoredResource[] {
    const iam = this.store.account(scope.account);
    return Object.values(iam.accessKeys).map((k) => stored(k.id, keyModel(iam, k)));
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.accessKeys).map((k) => item(account, this.typeName, k.id, keyModel(iam, k))),
      );
  }
}

function oidcModel(provider: OidcProvider): Model {
  return {
    Arn: provider.arn,
    Url: `https://${provider.url}`,
    ClientIdList: provider.clientIds.length ? [...provider.clientIds] : undefined,
    ThumbprintList: provider.thumbprints.length ? [...provider.thumbprints] : undefined,
    Tags: tagsModel(provider.tags),
  };
}

export class OidcProviderProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::OIDCProvider';
  constructor(private readonly store: IamStore) {}

  create(scope: ResourceScope, schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const url = String(desired.Url ?? '');
    const arn = `arn:aws:iam::${scope.account}:oidc-provider/${url.replace(/^https:\/\//, '').replace(/\/$/, '')}`;
    if (iam.oidcProviders[arn]) throw alreadyExists(schema.typeName, arn);
    const provider = handler(() =>
      createOidcProvider(this.store, scope.account, {
        Url: url,
        ClientIDList: desired.ClientIdList,
        ThumbprintList: desired.ThumbprintList,
        Tags: desired.Tags,
      }),
    );
    return stored(provider.arn, oidcModel(provider));
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const provider = this.store.account(scope.account).oidcProviders[identifier];
    return provider ? stored(provider.arn, oidcModel(provider)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const provider = this.store.account(scope.account).oidcProviders[identifier];
    if (!provider) throw notFound(schema.typeName, identifier);
    handler(() => {
      provider.clientIds = [...new Set((desired.ClientIdList as string[] | undefined) ?? [])];
      provider.thumbprints = [...((desired.ThumbprintList as string[] | undefined) ?? [])];
      provider.tags = checkTags(desired.Tags);
    });
    return stored(provider.arn, oidcModel(provider));
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    if (!iam.oidcProviders[identifier]) throw notFound(schema.typeName, identifier);
    delete iam.oidcProviders[identifier];
  }

  list(scope: ResourceScope): StoredResource[] {
    return Object.values(this.store.account(scope.account).oidcProviders).map((p) =>
      stored(p.arn, oidcModel(p)),
    );
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.oidcProviders).map((p) => item(account, this.typeName, p.arn, oidcModel(p))),
      );
  }
}

function additionModel(c: UserToGroupConstruct): Model {
  return { Id: c.id, GroupName: c.groupName, Users: [...c.users] };
}

export class UserToGroupAdditionProvider implements ResourceProvider {
  readonly typeName = 'AWS::IAM::UserToGroupAddition';
  constructor(private readonly store: IamStore) {}

  private addAll(iam: AccountIam, c: UserToGroupConstruct): void {
    for (const user of c.users) addUserToGroup(iam, c.groupName, user);
  }

  private removeAll(iam: AccountIam, c: UserToGroupConstruct): void {
    for (const user of c.users) {
      try {
        removeUserFromGroup(iam, c.groupName, user);
      } catch {
        // Already gone: the group, the user or the membership.
      }
    }
  }

  private record(id: string, desired: Model): UserToGroupConstruct {
    return {
      id,
      groupName: String(desired.GroupName),
      users: [...((desired.Users as string[] | undefined) ?? [])],
    };
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const construct = this.record(`UserToGroupAddition-${upperAlnum(12)}`, desired);
    handler(() => {
      getGroup(iam, construct.groupName);
      this.addAll(iam, construct);
    });
    iam.userToGroupConstructs[construct.id] = construct;
    return stored(construct.id, additionModel(construct));
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const construct = this.store.account(scope.account).userToGroupConstructs[identifier];
    return construct ? stored(construct.id, additionModel(construct)) : undefined;
  }

  update(scope: ResourceScope, schema: ResourceSchema, identifier: string, desired: Model): StoredResource {
    const iam = this.store.account(scope.account);
    const current = iam.userToGroupConstructs[identifier];
    if (!current) throw notFound(schema.typeName, identifier);
    const next = this.record(identifier, desired);
    handler(() => {
      this.removeAll(iam, current);
      this.addAll(iam, next);
    });
    iam.userToGroupConstructs[identifier] = next;
    return stored(next.id, additionModel(next));
  }

  delete(scope: ResourceScope, schema: ResourceSchema, identifier: string): void {
    const iam = this.store.account(scope.account);
    const construct = iam.userToGroupConstructs[identifier];
    if (!construct) throw notFound(schema.typeName, identifier);
    this.removeAll(iam, construct);
    delete iam.userToGroupConstructs[identifier];
  }

  list(scope: ResourceScope): StoredResource[] {
    return Object.values(this.store.account(scope.account).userToGroupConstructs).map((c) =>
      stored(c.id, additionModel(c)),
    );
  }

  inventory(): InventoryItem[] {
    return this.store
      .entries()
      .flatMap(([account, iam]) =>
        Object.values(iam.userToGroupConstructs).map((c) =>
          item(account, this.typeName, c.id, additionModel(c)),
        ),
      );
  }
}

/**
 * AWS::IAM::User through IAM. The physical id is the user name.
 *
 * Create as for roles: a generated name (64 characters) from the create's
 * token, the ownership tags, adoption only of this very create's user. Then
 * the console password (`LoginProfile`), group memberships (`Groups`), inline
 * and managed policies; a failure there deletes the user again. Update in
 * place, removals reset (path `/`, no boundary, no login profile, out of the
 * group). Delete: the login profile, memberships and policies go first;
 * access keys, signing certificates, SSH keys and MFA devices are left for
 * their owners, so IAM's DeleteConflict names them.
 */
import {
  AddUserToGroupCommand,
  CreateLoginProfileCommand,
  CreateUserCommand,
  DeleteLoginProfileCommand,
  DeleteUserCommand,
  DeleteUserPermissionsBoundaryCommand,
  GetUserCommand,
  ListGroupsForUserCommand,
  PutUserPermissionsBoundaryCommand,
  RemoveUserFromGroupCommand,
  TagUserCommand,
  UntagUserCommand,
  UpdateLoginProfileCommand,
  UpdateUserCommand,
  type User,
} from '@aws-sdk/client-iam';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { retireOnFailure } from './cleanup';
import { isEntityAlreadyExists, isNoSuchEntity } from './errors';
import {
  IamSupport,
  optionalString,
  stringList,
  tagChanges,
  tagsWithOwnership,
  templateTags,
  userTags,
  type ResourceRef,
} from './iam-support';
import { claimant } from './inline-claims';
import { MAX_ENTITY_NAME, entityName } from './names';
import {
  USER_OPS,
  applyInlinePolicies,
  applyManagedPolicies,
  readInlinePolicies,
  removeAllPolicies,
} from './principal-policies';

interface LoginProfile {
  Password?: string;
  PasswordResetRequired?: boolean;
}

function loginProfile(value: unknown): LoginProfile | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as { Password?: unknown; PasswordResetRequired?: unknown };
  return {
    Password: typeof v.Password === 'string' ? v.Password : undefined,
    PasswordResetRequired: v.PasswordResetRequired === true || v.PasswordResetRequired === 'true',
  };
}

export class IamUserProvider implements ResourceProvider {
  private readonly sup: IamSupport;

  constructor(ctx: ProviderContext) {
    this.sup = new IamSupport(ctx);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const { sup } = this;
    const signal = context.signal;
    const userName = entityName(properties.UserName, logicalId, context, MAX_ENTITY_NAME);
    const ref: ResourceRef = { logicalId, resourceType };
    let user: User;
    let adopted = false;
    try {
      user = (
        await sup.sendReferencing(signal, (c, o) =>
          c.send(
            new CreateUserCommand({
              UserName: userName,
              Path: optionalString(properties.Path),
              PermissionsBoundary: optionalString(properties.PermissionsBoundary),
              Tags: tagsWithOwnership(properties.Tags, context.ownership),
            }),
            o,
          ),
        )
      ).User!;
    } catch (err) {
      if (!isEntityAlreadyExists(err)) throw sup.wrap(err, `creating user ${userName}`, ref);
      user = await this.getUser(userName, signal, ref);
      sup.checkOwnership(
        context.ownership,
        user.Tags,
        `A user named ${userName}`,
        ref,
        `Give ${logicalId} another UserName, delete the existing user, or import it into this stack.`,
        err,
      );
      adopted = true;
    }
    return retireOnFailure(
      sup,
      { ...ref, physicalId: userName },
      `user ${userName}`,
      `aws iam delete-user --user-name ${userName} (after removing its login profile, groups and policies)`,
      async () => {
        if (adopted) await this.converge(userName, properties, signal);
        await this.applyLoginProfile(
          userName,
          loginProfile(properties.LoginProfile),
          undefined,
          adopted,
          signal,
        );
        for (const group of stringList(properties.Groups))
          await sup.sendReferencing(signal, (c, o) =>
            c.send(new AddUserToGroupCommand({ UserName: userName, GroupName: group }), o),
          );
        await applyInlinePolicies(
          sup,
          USER_OPS,
          userName,
          properties.Policies,
          undefined,
          claimant(context.stackName, logicalId),
          signal,
        );
        await applyManagedPolicies(
          sup,
          USER_OPS,
          userName,
          stringList(properties.ManagedPolicyArns),
          [],
          signal,
        );
        return { physicalId: user.UserName ?? userName, attributes: { Arn: user.Arn } };
      },
      () => this.deleteUser(userName, signal),
    ).catch((err: unknown) => {
      throw sup.wrap(err, `configuring user ${userName}`, { ...ref, physicalId: userName });
    });
  }

  private async converge(
    UserName: string,
    properties: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    const boundary = optionalString(properties.PermissionsBoundary);
    if (boundary)
      await this.sup.sendReferencing(signal, (c, o) =>
        c.send(new PutUserPermissionsBoundaryCommand({ UserName, PermissionsBoundary: boundary }), o),
      );
    const tags = templateTags(properties.Tags);
    if (tags.length)
      await this.sup.send(signal, (c, o) => c.send(new TagUserCommand({ UserName, Tags: tags }), o));
  }

  /** The console password: created, changed or removed. The password is never logged. */
  private async applyLoginProfile(
    UserName: string,
    next: LoginProfile | undefined,
    previous: LoginProfile | undefined,
    mayExist: boolean,
    signal?: AbortSignal,
  ): Promise<void> {
    const { sup } = this;
    if (!next) {
      if (previous)
        await sup
          .send(signal, (c, o) => c.send(new DeleteLoginProfileCommand({ UserName }), o))
          .catch((err: unknown) => {
            if (!isNoSuchEntity(err)) throw err;
          });
      return;
    }
    if (
      previous &&
      previous.Password === next.Password &&
      previous.PasswordResetRequired === next.PasswordResetRequired
    )
      return;
    const input = { UserName, Password: next.Password, PasswordResetRequired: next.PasswordResetRequired };
    if (previous) {
      await sup.send(signal, (c, o) => c.send(new UpdateLoginProfileCommand(input), o));
      return;
    }
    try {
      await sup.send(signal, (c, o) =>
        c.send(new CreateLoginProfileCommand({ ...input, Password: next.Password ?? '' }), o),
      );
    } catch (err) {
      if (!(mayExist && isEntityAlreadyExists(err))) throw err;
      await sup.send(signal, (c, o) => c.send(new UpdateLoginProfileCommand(input), o));
    }
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const { sup } = this;
    const signal = context?.signal;
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    await sup.assertRegion(context?.expectedRegion, ref, 'pre-update');
    const UserName = physicalId;
    try {
      const path = optionalString(properties.Path) ?? '/';
      if (path !== (optionalString(previous.Path) ?? '/'))
        await sup.send(signal, (c, o) => c.send(new UpdateUserCommand({ UserName, NewPath: path }), o));
      const boundary = optionalString(properties.PermissionsBoundary);
      if (boundary !== optionalString(previous.PermissionsBoundary)) {
        if (boundary)
          await sup.sendReferencing(signal, (c, o) =>
            c.send(new PutUserPermissionsBoundaryCommand({ UserName, PermissionsBoundary: boundary }), o),
          );
        else
          await sup.send(signal, (c, o) => c.send(new DeleteUserPermissionsBoundaryCommand({ UserName }), o));
      }
      const { toSet, toRemove } = tagChanges(properties.Tags, previous.Tags);
      if (toRemove.length)
        await sup.send(signal, (c, o) => c.send(new UntagUserCommand({ UserName, TagKeys: toRemove }), o));
      if (toSet.length)
        await sup.send(signal, (c, o) => c.send(new TagUserCommand({ UserName, Tags: toSet }), o));
      await this.applyLoginProfile(
        UserName,
        loginProfile(properties.LoginProfile),
        loginProfile(previous.LoginProfile),
        true,
        signal,
      );
      const groups = stringList(properties.Groups);
      const before = stringList(previous.Groups);
      for (const group of groups)
        if (!before.includes(group))
          await sup.sendReferencing(signal, (c, o) =>
            c.send(new AddUserToGroupCommand({ UserName, GroupName: group }), o),
          );
      for (const group of before)
        if (!groups.includes(group))
          await sup
            .send(signal, (c, o) => c.send(new RemoveUserFromGroupCommand({ UserName, GroupName: group }), o))
            .catch((err: unknown) => {
              if (!isNoSuchEntity(err)) throw err;
            });
      await applyInlinePolicies(
        sup,
        USER_OPS,
        UserName,
        properties.Policies,
        previous.Policies,
        claimant(context?.stackName, logicalId),
        signal,
      );
      await applyManagedPolicies(
        sup,
        USER_OPS,
        UserName,
        stringList(properties.ManagedPolicyArns),
        stringList(previous.ManagedPolicyArns),
        signal,
      );
      const user = await this.getUser(UserName, signal, ref);
      return { physicalId, wasReplaced: false, attributes: { Arn: user.Arn } };
    } catch (err) {
      throw sup.wrap(err, `updating user ${UserName}`, ref);
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    await this.sup.deleteOrGone('user', ref, context?.expectedRegion, () =>
      this.deleteUser(physicalId, context?.signal),
    );
  }

  private async deleteUser(UserName: string, signal?: AbortSignal): Promise<void> {
    const { sup } = this;
    // NoSuchEntity here means no login profile; a missing user surfaces from the calls below.
    await sup
      .send(signal, (c, o) => c.send(new DeleteLoginProfileCommand({ UserName }), o))
      .catch((err: unknown) => {
        if (!isNoSuchEntity(err)) throw err;
      });
    const groups = await sup.send(signal, (c, o) => c.send(new ListGroupsForUserCommand({ UserName }), o));
    for (const group of groups.Groups ?? [])
      await sup
        .send(signal, (c, o) =>
          c.send(new RemoveUserFromGroupCommand({ UserName, GroupName: group.GroupName! }), o),
        )
        .catch((err: unknown) => {
          if (!isNoSuchEntity(err)) throw err;
        });
    await removeAllPolicies(sup, USER_OPS, UserName, signal);
    await sup.send(signal, (c, o) => c.send(new DeleteUserCommand({ UserName }), o));
  }

  private async getUser(UserName: string, signal: AbortSignal | undefined, ref: ResourceRef): Promise<User> {
    try {
      return (await this.sup.send(signal, (c, o) => c.send(new GetUserCommand({ UserName }), o))).User!;
    } catch (err) {
      throw this.sup.wrap(err, `reading user ${UserName}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName !== 'Arn') return undefined;
    try {
      return (
        await this.sup.send(undefined, (c, o) => c.send(new GetUserCommand({ UserName: physicalId }), o))
      ).User?.Arn;
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  }

  async readCurrentState(
    physicalId: string,
    _logicalId: string,
    _resourceType: string,
    properties?: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const { sup } = this;
    let user: User;
    try {
      user = (await sup.send(undefined, (c, o) => c.send(new GetUserCommand({ UserName: physicalId }), o)))
        .User!;
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
    const groups = await sup.send(undefined, (c, o) =>
      c.send(new ListGroupsForUserCommand({ UserName: physicalId }), o),
    );
    return {
      UserName: user.UserName,
      Path: user.Path,
      PermissionsBoundary: user.PermissionsBoundary?.PermissionsBoundaryArn ?? '',
      Groups: (groups.Groups ?? []).map((g) => g.GroupName!),
      Policies: await readInlinePolicies(sup, USER_OPS, physicalId, properties?.Policies),
      ManagedPolicyArns: await USER_OPS.listAttached(sup, undefined, physicalId),
      Tags: userTags(user.Tags),
    };
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name = input.knownPhysicalId ?? optionalString(input.properties.UserName);
    if (!name) return null;
    try {
      const user = (
        await this.sup.send(undefined, (c, o) => c.send(new GetUserCommand({ UserName: name }), o))
      ).User!;
      return { physicalId: user.UserName!, attributes: { Arn: user.Arn } };
    } catch (err) {
      if (isNoSuchEntity(err)) return null;
      throw this.sup.wrap(err, `looking up user ${name}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}

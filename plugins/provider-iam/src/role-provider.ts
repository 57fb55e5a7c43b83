/**
 * AWS::IAM::Role through IAM. The physical id is the role name.
 *
 * Create: a name the template leaves unset is generated from the create's
 * token (64 characters at most); the role carries the ownership tags, so a
 * create that meets `EntityAlreadyExists` adopts the role only when the tags
 * show this very create made it. Then its inline policies (`Policies`) and
 * managed policies (`ManagedPolicyArns`); a failure there deletes the role
 * again. Update: the trust policy, description, session duration, boundary,
 * tags, inline and managed policies in place; a property removed from the
 * template goes back to IAM's default (no description, 3600 s, no boundary).
 * Delete: IAM refuses to delete a role with policies or in an instance
 * profile, so those go first.
 */
import {
  CreateRoleCommand,
  DeleteRoleCommand,
  DeleteRolePermissionsBoundaryCommand,
  GetRoleCommand,
  ListInstanceProfilesForRoleCommand,
  PutRolePermissionsBoundaryCommand,
  RemoveRoleFromInstanceProfileCommand,
  TagRoleCommand,
  UntagRoleCommand,
  UpdateAssumeRolePolicyCommand,
  UpdateRoleCommand,
  type Role,
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
import { decodeDocument, documentText, sameDocument } from './documents';
import { isDeleteConflict, isEntityAlreadyExists, isNoSuchEntity } from './errors';
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
  ROLE_OPS,
  applyInlinePolicies,
  applyManagedPolicies,
  readInlinePolicies,
  removeAllPolicies,
} from './principal-policies';

const DEFAULT_MAX_SESSION_DURATION = 3600;
/** DeleteRole can race another change of the role (a policy attached meanwhile): a few rounds. */
const DELETE_ROUNDS = 3;

function sessionDuration(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  return Number(value);
}

export class IamRoleProvider implements ResourceProvider {
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
    const roleName = entityName(properties.RoleName, logicalId, context, MAX_ENTITY_NAME);
    const ref: ResourceRef = { logicalId, resourceType };
    const who = claimant(context.stackName, logicalId);
    let role: Role;
    let adopted = false;
    try {
      const out = await sup.sendReferencing(signal, (c, o) =>
        c.send(
          new CreateRoleCommand({
            RoleName: roleName,
            Path: optionalString(properties.Path),
            AssumeRolePolicyDocument: documentText(properties.AssumeRolePolicyDocument),
            Description: optionalString(properties.Description),
            MaxSessionDuration: sessionDuration(properties.MaxSessionDuration),
            PermissionsBoundary: optionalString(properties.PermissionsBoundary),
            Tags: tagsWithOwnership(properties.Tags, context.ownership),
          }),
          o,
        ),
      );
      role = out.Role!;
    } catch (err) {
      if (!isEntityAlreadyExists(err)) throw sup.wrap(err, `creating role ${roleName}`, ref);
      role = await this.getRole(roleName, signal, ref);
      sup.checkOwnership(
        context.ownership,
        role.Tags,
        `A role named ${roleName}`,
        ref,
        `Give ${logicalId} another RoleName, delete the existing role, or import it into this stack.`,
        err,
      );
      adopted = true;
    }
    return retireOnFailure(
      sup,
      { ...ref, physicalId: roleName },
      `role ${roleName}`,
      `aws iam delete-role --role-name ${roleName} (after removing its policies)`,
      async () => {
        // An adopted role was made by an earlier attempt of this create: bring it to the template.
        if (adopted) await this.converge(roleName, properties, signal);
        await applyInlinePolicies(sup, ROLE_OPS, roleName, properties.Policies, undefined, who, signal);
        await applyManagedPolicies(
          sup,
          ROLE_OPS,
          roleName,
          stringList(properties.ManagedPolicyArns),
          [],
          signal,
        );
        return { physicalId: role.RoleName ?? roleName, attributes: { Arn: role.Arn, RoleId: role.RoleId } };
      },
      () => this.deleteRole(roleName, signal),
    ).catch((err: unknown) => {
      throw sup.wrap(err, `configuring role ${roleName}`, { ...ref, physicalId: roleName });
    });
  }

  /** Sets every mutable field to the template's (an adopted role's attempt may have stopped half-way). */
  private async converge(
    roleName: string,
    properties: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<void> {
    const { sup } = this;
    await sup.send(signal, (c, o) =>
      c.send(
        new UpdateAssumeRolePolicyCommand({
          RoleName: roleName,
          PolicyDocument: documentText(properties.AssumeRolePolicyDocument),
        }),
        o,
      ),
    );
    await sup.send(signal, (c, o) =>
      c.send(
        new UpdateRoleCommand({
          RoleName: roleName,
          Description: optionalString(properties.Description) ?? '',
          MaxSessionDuration: sessionDuration(properties.MaxSessionDuration) ?? DEFAULT_MAX_SESSION_DURATION,
        }),
        o,
      ),
    );
    const boundary = optionalString(properties.PermissionsBoundary);
    if (boundary)
      await sup.sendReferencing(signal, (c, o) =>
        c.send(
          new PutRolePermissionsBoundaryCommand({ RoleName: roleName, PermissionsBoundary: boundary }),
          o,
        ),
      );
    const tags = templateTags(properties.Tags);
    if (tags.length)
      await sup.send(signal, (c, o) => c.send(new TagRoleCommand({ RoleName: roleName, Tags: tags }), o));
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
    const RoleName = physicalId;
    try {
      if (!sameDocument(properties.AssumeRolePolicyDocument, previous.AssumeRolePolicyDocument))
        await sup.send(signal, (c, o) =>
          c.send(
            new UpdateAssumeRolePolicyCommand({
              RoleName,
              PolicyDocument: documentText(properties.AssumeRolePolicyDocument),
            }),
            o,
          ),
        );
      const description = optionalString(properties.Description);
      const duration = sessionDuration(properties.MaxSessionDuration);
      const descriptionChanged = description !== optionalString(previous.Description);
      const durationChanged = duration !== sessionDuration(previous.MaxSessionDuration);
      if (descriptionChanged || durationChanged)
        // A removed description is cleared; a removed duration goes back to IAM's default.
        await sup.send(signal, (c, o) =>
          c.send(
            new UpdateRoleCommand({
              RoleName,
              ...(descriptionChanged ? { Description: description ?? '' } : {}),
              ...(durationChanged ? { MaxSessionDuration: duration ?? DEFAULT_MAX_SESSION_DURATION } : {}),
            }),
            o,
          ),
        );
      const boundary = optionalString(properties.PermissionsBoundary);
      if (boundary !== optionalString(previous.PermissionsBoundary)) {
        if (boundary)
          await sup.sendReferencing(signal, (c, o) =>
            c.send(new PutRolePermissionsBoundaryCommand({ RoleName, PermissionsBoundary: boundary }), o),
          );
        else
          await sup.send(signal, (c, o) => c.send(new DeleteRolePermissionsBoundaryCommand({ RoleName }), o));
      }
      const { toSet, toRemove } = tagChanges(properties.Tags, previous.Tags);
      if (toRemove.length)
        await sup.send(signal, (c, o) => c.send(new UntagRoleCommand({ RoleName, TagKeys: toRemove }), o));
      if (toSet.length)
        await sup.send(signal, (c, o) => c.send(new TagRoleCommand({ RoleName, Tags: toSet }), o));
      await applyInlinePolicies(
        sup,
        ROLE_OPS,
        RoleName,
        properties.Policies,
        previous.Policies,
        claimant(context?.stackName, logicalId),
        signal,
      );
      await applyManagedPolicies(
        sup,
        ROLE_OPS,
        RoleName,
        stringList(properties.ManagedPolicyArns),
        stringList(previous.ManagedPolicyArns),
        signal,
      );
      const role = await this.getRole(RoleName, signal, ref);
      return { physicalId, wasReplaced: false, attributes: { Arn: role.Arn, RoleId: role.RoleId } };
    } catch (err) {
      throw sup.wrap(err, `updating role ${RoleName}`, ref);
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
    await this.sup.deleteOrGone('role', ref, context?.expectedRegion, () =>
      this.deleteRole(physicalId, context?.signal),
    );
  }

  /** Removes the role from its instance profiles, deletes and detaches its policies, then deletes it. */
  private async deleteRole(RoleName: string, signal?: AbortSignal): Promise<void> {
    const { sup } = this;
    for (let round = 1; ; round++) {
      const profiles = await sup.send(signal, (c, o) =>
        c.send(new ListInstanceProfilesForRoleCommand({ RoleName }), o),
      );
      for (const profile of profiles.InstanceProfiles ?? [])
        await sup
          .send(signal, (c, o) =>
            c.send(
              new RemoveRoleFromInstanceProfileCommand({
                RoleName,
                InstanceProfileName: profile.InstanceProfileName!,
              }),
              o,
            ),
          )
          .catch((err: unknown) => {
            if (!isNoSuchEntity(err)) throw err;
          });
      await removeAllPolicies(sup, ROLE_OPS, RoleName, signal);
      try {
        await sup.send(signal, (c, o) => c.send(new DeleteRoleCommand({ RoleName }), o));
        return;
      } catch (err) {
        if (!isDeleteConflict(err) || round >= DELETE_ROUNDS) throw err;
      }
    }
  }

  private async getRole(RoleName: string, signal: AbortSignal | undefined, ref: ResourceRef): Promise<Role> {
    try {
      return (await this.sup.send(signal, (c, o) => c.send(new GetRoleCommand({ RoleName }), o))).Role!;
    } catch (err) {
      throw this.sup.wrap(err, `reading role ${RoleName}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName !== 'Arn' && attributeName !== 'RoleId') return undefined;
    try {
      const role = (
        await this.sup.send(undefined, (c, o) => c.send(new GetRoleCommand({ RoleName: physicalId }), o))
      ).Role;
      return attributeName === 'Arn' ? role?.Arn : role?.RoleId;
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
    let role: Role;
    try {
      role = (await sup.send(undefined, (c, o) => c.send(new GetRoleCommand({ RoleName: physicalId }), o)))
        .Role!;
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
    return {
      RoleName: role.RoleName,
      Path: role.Path,
      AssumeRolePolicyDocument: decodeDocument(role.AssumeRolePolicyDocument),
      Description: role.Description ?? '',
      MaxSessionDuration: role.MaxSessionDuration ?? DEFAULT_MAX_SESSION_DURATION,
      PermissionsBoundary: role.PermissionsBoundary?.PermissionsBoundaryArn ?? '',
      Policies: await readInlinePolicies(sup, ROLE_OPS, physicalId, properties?.Policies),
      ManagedPolicyArns: await ROLE_OPS.listAttached(sup, undefined, physicalId),
      Tags: userTags(role.Tags),
    };
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name = input.knownPhysicalId ?? optionalString(input.properties.RoleName);
    if (!name) return null;
    try {
      const role = (
        await this.sup.send(undefined, (c, o) => c.send(new GetRoleCommand({ RoleName: name }), o))
      ).Role!;
      return { physicalId: role.RoleName!, attributes: { Arn: role.Arn, RoleId: role.RoleId } };
    } catch (err) {
      if (isNoSuchEntity(err)) return null;
      throw this.sup.wrap(err, `looking up role ${name}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}

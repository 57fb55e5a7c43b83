/**
 * AWS::IAM::InstanceProfile through IAM. The physical id is the instance
 * profile name. IAM allows one role per profile (`Roles` has at most one
 * item); the ownership tags go on the profile itself. Delete removes the role
 * first, as IAM requires.
 */
import {
  AddRoleToInstanceProfileCommand,
  CreateInstanceProfileCommand,
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  RemoveRoleFromInstanceProfileCommand,
  type InstanceProfile,
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
import { IamSupport, optionalString, stringList, tagsWithOwnership, type ResourceRef } from './iam-support';
import { MAX_ENTITY_NAME, entityName } from './names';

export class IamInstanceProfileProvider implements ResourceProvider {
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
    const name = entityName(properties.InstanceProfileName, logicalId, context, MAX_ENTITY_NAME);
    const ref: ResourceRef = { logicalId, resourceType };
    let profile: InstanceProfile;
    try {
      profile = (
        await sup.send(signal, (c, o) =>
          c.send(
            new CreateInstanceProfileCommand({
              InstanceProfileName: name,
              Path: optionalString(properties.Path),
              Tags: tagsWithOwnership(undefined, context.ownership),
            }),
            o,
          ),
        )
      ).InstanceProfile!;
    } catch (err) {
      if (!isEntityAlreadyExists(err)) throw sup.wrap(err, `creating instance profile ${name}`, ref);
      profile = await this.getProfile(name, signal, ref);
      sup.checkOwnership(
        context.ownership,
        profile.Tags,
        `An instance profile named ${name}`,
        ref,
        `Give ${logicalId} another InstanceProfileName, delete the existing profile, or import it into this stack.`,
        err,
      );
    }
    const present = (profile.Roles ?? []).map((r) => r.RoleName!);
    return retireOnFailure(
      sup,
      { ...ref, physicalId: name },
      `instance profile ${name}`,
      `aws iam delete-instance-profile --instance-profile-name ${name}`,
      async () => {
        for (const role of stringList(properties.Roles))
          if (!present.includes(role)) await this.addRole(name, role, signal);
        return { physicalId: profile.InstanceProfileName ?? name, attributes: { Arn: profile.Arn } };
      },
      () => this.deleteProfile(name, signal),
    ).catch((err: unknown) => {
      throw sup.wrap(err, `configuring instance profile ${name}`, { ...ref, physicalId: name });
    });
  }

  private async addRole(InstanceProfileName: string, RoleName: string, signal?: AbortSignal): Promise<void> {
    await this.sup.sendReferencing(signal, (c, o) =>
      c.send(new AddRoleToInstanceProfileCommand({ InstanceProfileName, RoleName }), o),
    );
  }

  private async removeRole(
    InstanceProfileName: string,
    RoleName: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.sup
      .send(signal, (c, o) =>
        c.send(new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName, RoleName }), o),
      )
      .catch((err: unknown) => {
        if (!isNoSuchEntity(err)) throw err;
      });
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
    try {
      const now = stringList(properties.Roles);
      const before = stringList(previous.Roles);
      // Removed first: a profile holds one role.
      for (const role of before) if (!now.includes(role)) await this.removeRole(physicalId, role, signal);
      for (const role of now) if (!before.includes(role)) await this.addRole(physicalId, role, signal);
      const profile = await this.getProfile(physicalId, signal, ref);
      return { physicalId, wasReplaced: false, attributes: { Arn: profile.Arn } };
    } catch (err) {
      throw sup.wrap(err, `updating instance profile ${physicalId}`, ref);
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
    await this.sup.deleteOrGone('instance profile', ref, context?.expectedRegion, () =>
      this.deleteProfile(physicalId, context?.signal),
    );
  }

  private async deleteProfile(InstanceProfileName: string, signal?: AbortSignal): Promise<void> {
    const { sup } = this;
    const profile = (
      await sup.send(signal, (c, o) => c.send(new GetInstanceProfileCommand({ InstanceProfileName }), o))
    ).InstanceProfile!;
    for (const role of profile.Roles ?? [])
      await this.removeRole(InstanceProfileName, role.RoleName!, signal);
    await sup.send(signal, (c, o) => c.send(new DeleteInstanceProfileCommand({ InstanceProfileName }), o));
  }

  private async getProfile(
    InstanceProfileName: string,
    signal: AbortSignal | undefined,
    ref: ResourceRef,
  ): Promise<InstanceProfile> {
    try {
      return (
        await this.sup.send(signal, (c, o) =>
          c.send(new GetInstanceProfileCommand({ InstanceProfileName }), o),
        )
      ).InstanceProfile!;
    } catch (err) {
      throw this.sup.wrap(err, `reading instance profile ${InstanceProfileName}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName !== 'Arn') return undefined;
    try {
      return (
        await this.sup.send(undefined, (c, o) =>
          c.send(new GetInstanceProfileCommand({ InstanceProfileName: physicalId }), o),
        )
      ).InstanceProfile?.Arn;
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    try {
      const profile = (
        await this.sup.send(undefined, (c, o) =>
          c.send(new GetInstanceProfileCommand({ InstanceProfileName: physicalId }), o),
        )
      ).InstanceProfile!;
      return {
        InstanceProfileName: profile.InstanceProfileName,
        Path: profile.Path,
        Roles: (profile.Roles ?? []).map((r) => r.RoleName!),
      };
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name = input.knownPhysicalId ?? optionalString(input.properties.InstanceProfileName);
    if (!name) return null;
    try {
      const profile = (
        await this.sup.send(undefined, (c, o) =>
          c.send(new GetInstanceProfileCommand({ InstanceProfileName: name }), o),
        )
      ).InstanceProfile!;
      return { physicalId: profile.InstanceProfileName!, attributes: { Arn: profile.Arn } };
    } catch (err) {
      if (isNoSuchEntity(err)) return null;
      throw this.sup.wrap(err, `looking up instance profile ${name}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}

/**
 * AWS::IAM::Group through IAM. The physical id is the group name.
 *
 * IAM groups take no tags, so a group cannot carry the ownership marker.
 * When CreateGroup answers `EntityAlreadyExists`, the group is adopted only
 * when it is provably this create's:
 * - its name was generated for this create: the name derives from the
 *   create's token, so no other create asks for it; or
 * - an earlier attempt of this create ran in this process (the SDK's own
 *   retry of a lost reply, or the engine's retry) and the group was made
 *   after that attempt started.
 * Anything else is refused with `ResourceExistsError`, never taken over. The
 * cost: a create with a fixed `GroupName` whose reply was lost and whose
 * process then died is refused by the next run; the message says to delete or
 * import the group.
 */
import {
  CreateGroupCommand,
  DeleteGroupCommand,
  GetGroupCommand,
  RemoveUserFromGroupCommand,
  UpdateGroupCommand,
  type Group,
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
import { isEntityAlreadyExists, isNoSuchEntity, sdkAttempts } from './errors';
import { IamSupport, optionalString, stringList, type ResourceRef } from './iam-support';
import { claimant } from './inline-claims';
import { MAX_ENTITY_NAME, entityName, isGeneratedName } from './names';
import {
  GROUP_OPS,
  applyInlinePolicies,
  applyManagedPolicies,
  readInlinePolicies,
  removeAllPolicies,
} from './principal-policies';

/** Allowance for the difference between this machine's clock and IAM's. */
const CLOCK_SKEW_MS = 30_000;

/** When the first attempt of each create intent (by token) started in this process. */
const firstAttempts = new Map<string, number>();

export class IamGroupProvider implements ResourceProvider {
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
    const groupName = entityName(properties.GroupName, logicalId, context, MAX_ENTITY_NAME);
    const ref: ResourceRef = { logicalId, resourceType };
    const started = Date.now();
    const firstStarted = firstAttempts.get(context.idempotencyToken) ?? started;
    firstAttempts.set(context.idempotencyToken, firstStarted);
    let group: Group;
    try {
      group = (
        await sup.send(signal, (c, o) =>
          c.send(new CreateGroupCommand({ GroupName: groupName, Path: optionalString(properties.Path) }), o),
        )
      ).Group!;
    } catch (err) {
      if (!isEntityAlreadyExists(err)) throw sup.wrap(err, `creating group ${groupName}`, ref);
      group = await this.getGroup(groupName, signal, ref);
      const made = group.CreateDate ? group.CreateDate.getTime() : 0;
      const earlierAttempt = firstStarted < started || sdkAttempts(err) > 1;
      const ours =
        isGeneratedName(groupName, properties.GroupName, logicalId, context, MAX_ENTITY_NAME) ||
        (earlierAttempt && made >= firstStarted - CLOCK_SKEW_MS);
      if (!ours)
        throw sup.exists(
          `A group named ${groupName}`,
          ref,
          'groups carry no tags, and it was not made by an attempt of this create',
          `Give ${logicalId} another GroupName, delete the existing group, or import it into this stack.`,
          err,
        );
    }
    const result = await retireOnFailure(
      sup,
      { ...ref, physicalId: groupName },
      `group ${groupName}`,
      `aws iam delete-group --group-name ${groupName} (after removing its policies)`,
      async () => {
        await applyInlinePolicies(
          sup,
          GROUP_OPS,
          groupName,
          properties.Policies,
          undefined,
          claimant(context.stackName, logicalId),
          signal,
        );
        await applyManagedPolicies(
          sup,
          GROUP_OPS,
          groupName,
          stringList(properties.ManagedPolicyArns),
          [],
          signal,
        );
        return { physicalId: group.GroupName ?? groupName, attributes: { Arn: group.Arn } };
      },
      () => this.deleteGroup(groupName, signal),
    ).catch((err: unknown) => {
      throw sup.wrap(err, `configuring group ${groupName}`, { ...ref, physicalId: groupName });
    });
    firstAttempts.delete(context.idempotencyToken);
    return result;
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
    const GroupName = physicalId;
    try {
      const path = optionalString(properties.Path) ?? '/';
      if (path !== (optionalString(previous.Path) ?? '/'))
        await sup.send(signal, (c, o) => c.send(new UpdateGroupCommand({ GroupName, NewPath: path }), o));
      await applyInlinePolicies(
        sup,
        GROUP_OPS,
        GroupName,
        properties.Policies,
        previous.Policies,
        claimant(context?.stackName, logicalId),
        signal,
      );
      await applyManagedPolicies(
        sup,
        GROUP_OPS,
        GroupName,
        stringList(properties.ManagedPolicyArns),
        stringList(previous.ManagedPolicyArns),
        signal,
      );
      const group = await this.getGroup(GroupName, signal, ref);
      return { physicalId, wasReplaced: false, attributes: { Arn: group.Arn } };
    } catch (err) {
      throw sup.wrap(err, `updating group ${GroupName}`, ref);
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
    await this.sup.deleteOrGone('group', ref, context?.expectedRegion, () =>
      this.deleteGroup(physicalId, context?.signal),
    );
  }

  /** IAM deletes a group only without members and policies: those go first. */
  private async deleteGroup(GroupName: string, signal?: AbortSignal): Promise<void> {
    const { sup } = this;
    let marker: string | undefined;
    const members: string[] = [];
    do {
      const out = await sup.send(signal, (c, o) =>
        c.send(new GetGroupCommand({ GroupName, Marker: marker }), o),
      );
      members.push(...(out.Users ?? []).map((u) => u.UserName!));
      marker = out.IsTruncated ? out.Marker : undefined;
    } while (marker);
    for (const UserName of members)
      await sup
        .send(signal, (c, o) => c.send(new RemoveUserFromGroupCommand({ GroupName, UserName }), o))
        .catch((err: unknown) => {
          if (!isNoSuchEntity(err)) throw err;
        });
    await removeAllPolicies(sup, GROUP_OPS, GroupName, signal);
    await sup.send(signal, (c, o) => c.send(new DeleteGroupCommand({ GroupName }), o));
  }

  private async getGroup(
    GroupName: string,
    signal: AbortSignal | undefined,
    ref: ResourceRef,
  ): Promise<Group> {
    try {
      return (
        await this.sup.send(signal, (c, o) => c.send(new GetGroupCommand({ GroupName, MaxItems: 1 }), o))
      ).Group!;
    } catch (err) {
      throw this.sup.wrap(err, `reading group ${GroupName}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    if (attributeName !== 'Arn') return undefined;
    try {
      return (
        await this.sup.send(undefined, (c, o) =>
          c.send(new GetGroupCommand({ GroupName: physicalId, MaxItems: 1 }), o),
        )
      ).Group?.Arn;
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
    let group: Group;
    try {
      group = (
        await this.sup.send(undefined, (c, o) =>
          c.send(new GetGroupCommand({ GroupName: physicalId, MaxItems: 1 }), o),
        )
      ).Group!;
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
    return {
      GroupName: group.GroupName,
      Path: group.Path,
      Policies: await readInlinePolicies(this.sup, GROUP_OPS, physicalId, properties?.Policies),
      ManagedPolicyArns: await GROUP_OPS.listAttached(this.sup, undefined, physicalId),
    };
  }

  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name = input.knownPhysicalId ?? optionalString(input.properties.GroupName);
    if (!name) return null;
    try {
      const group = (
        await this.sup.send(undefined, (c, o) =>
          c.send(new GetGroupCommand({ GroupName: name, MaxItems: 1 }), o),
        )
      ).Group!;
      return { physicalId: group.GroupName!, attributes: { Arn: group.Arn } };
    } catch (err) {
      if (isNoSuchEntity(err)) return null;
      throw this.sup.wrap(err, `looking up group ${name}`, {
        logicalId: input.logicalId,
        resourceType: input.resourceType,
      });
    }
  }
}

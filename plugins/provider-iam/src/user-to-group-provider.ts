/**
 * AWS::IAM::UserToGroupAddition through IAM: the users' memberships of one
 * group (IAM has no object for it). AddUserToGroup is idempotent, so a
 * repeated create adds nothing twice. The physical id is a name generated
 * for the create in CloudFormation's style (what `Ref` returns); the group
 * and users are read from the record's properties, so a record missing
 * either (both are required by the schema) is corrupt: its delete is
 * reported as skipped and the record kept.
 */
import { AddUserToGroupCommand, RemoveUserFromGroupCommand } from '@aws-sdk/client-iam';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import { isNoSuchEntity } from './errors';
import { IamSupport, optionalString, stringList, type ResourceRef } from './iam-support';
import { entityName } from './names';

/** Why a delete whose record lacks `GroupName` or `Users` does nothing. */
export const MEMBERSHIP_RECORD_INCOMPLETE_REASON =
  'the state record names no GroupName or no Users (both are required), so cdkd cannot tell which memberships to remove; ' +
  'check the group in the IAM console, then remove the record with cdkd state orphan (the memberships go with the group or user if that is in the same stack)';

const MAX_ID = 128;

export class IamUserToGroupAdditionProvider implements ResourceProvider {
  private readonly sup: IamSupport;

  constructor(ctx: ProviderContext) {
    this.sup = new IamSupport(ctx);
  }

  /** Adds the users; `added` collects each one as its call succeeds. */
  private async add(
    GroupName: string,
    users: string[],
    signal?: AbortSignal,
    added: string[] = [],
  ): Promise<void> {
    for (const UserName of users) {
      await this.sup.sendReferencing(signal, (c, o) =>
        c.send(new AddUserToGroupCommand({ GroupName, UserName }), o),
      );
      added.push(UserName);
    }
  }

  /** Removes memberships; returns how many were already gone (user, group or membership). */
  private async remove(GroupName: string, users: string[], signal?: AbortSignal): Promise<number> {
    let missing = 0;
    for (const UserName of users) {
      try {
        await this.sup.send(signal, (c, o) =>
          c.send(new RemoveUserFromGroupCommand({ GroupName, UserName }), o),
        );
      } catch (err) {
        if (!isNoSuchEntity(err)) throw err;
        missing++;
      }
    }
    return missing;
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const ref: ResourceRef = { logicalId, resourceType };
    const group = optionalString(properties.GroupName);
    const users = stringList(properties.Users);
    if (!group)
      throw new this.sup.ctx.errors.ProvisioningError(`${logicalId} needs a GroupName.`, {
        resource: ref,
        remedy: `Set GroupName (and Users) of ${logicalId}.`,
      });
    const id = entityName(undefined, logicalId, context, MAX_ID);
    const added: string[] = [];
    try {
      await this.add(group, users, context.signal, added);
    } catch (err) {
      // Memberships this create added before the failure are taken back: nothing records them.
      await this.remove(group, added, context.signal).catch(() => undefined);
      throw this.sup.wrap(err, `adding users to group ${group}`, ref);
    }
    return { physicalId: id, attributes: { Id: id } };
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previous: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    await this.sup.assertRegion(context?.expectedRegion, ref, 'pre-update');
    const signal = context?.signal;
    const group = optionalString(properties.GroupName) ?? '';
    const oldGroup = optionalString(previous.GroupName) ?? '';
    const users = stringList(properties.Users);
    const oldUsers = stringList(previous.Users);
    try {
      if (group.toLowerCase() !== oldGroup.toLowerCase()) {
        await this.add(group, users, signal);
        if (oldGroup) await this.remove(oldGroup, oldUsers, signal);
      } else {
        const lower = (list: string[]) => list.map((u) => u.toLowerCase());
        await this.add(
          group,
          users.filter((u) => !lower(oldUsers).includes(u.toLowerCase())),
          signal,
        );
        await this.remove(
          group,
          oldUsers.filter((u) => !lower(users).includes(u.toLowerCase())),
          signal,
        );
      }
    } catch (err) {
      throw this.sup.wrap(err, `updating the members of group ${group}`, ref);
    }
    return { physicalId, wasReplaced: false, attributes: { Id: physicalId } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    const group = optionalString(properties?.GroupName);
    const users = properties?.Users;
    if (!group || !Array.isArray(users)) {
      this.sup.ctx.logger.warn(`${logicalId}: not deleted: ${MEMBERSHIP_RECORD_INCOMPLETE_REASON}`);
      return { outcome: 'skipped', reason: MEMBERSHIP_RECORD_INCOMPLETE_REASON };
    }
    try {
      const missing = await this.remove(group, stringList(users), context?.signal);
      if (missing > 0) await this.sup.assertRegion(context?.expectedRegion, ref);
    } catch (err) {
      throw this.sup.wrap(err, `removing users from group ${group}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Id' ? physicalId : undefined;
  }
}

/**
 * AWS::IAM::Policy through IAM: one inline policy put on every role, user
 * and group the resource names (IAM has no object for it). The physical id
 * is the policy name, as the reference tool records it.
 *
 * An inline policy carries no tags, so a name already taken on a principal
 * is judged by its document: the same document is this create's own earlier
 * attempt (or identical), and is kept; another document is another
 * resource's, and the create is refused (`ResourceExistsError`) before
 * anything is written, since putting it would silently replace someone
 * else's permissions (two stacks whose CDK apps derive the same policy name
 * for a shared role: CloudFormation refuses that too). The one exception is
 * a name another resource of the same stack wrote in this process: a policy
 * name moving between resources within one deploy.
 *
 * Delete removes the policy from each principal only while its document is
 * still the one this resource put and no other resource wrote that name
 * since, so a name another resource took over is never removed.
 */
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
import { retireOnFailure } from './cleanup';
import { documentText, sameDocument } from './documents';
import { IamSupport, optionalString, stringList, type ResourceRef } from './iam-support';
import { claim, claimant, claimedByOther, release, writtenBySameStack, type Claimant } from './inline-claims';
import { GROUP_OPS, ROLE_OPS, USER_OPS, type PrincipalOps } from './principal-policies';

/** Why a delete whose record names no policy or no principal does nothing (the record is kept). */
export const POLICY_RECORD_INCOMPLETE_REASON =
  'the state record names no policy name or no role, user or group, so cdkd cannot tell where the inline policy is; ' +
  'check the principals in the IAM console, then remove the record with cdkd state orphan (the policy is deleted with its principal if that is in the same stack)';

interface Target {
  ops: PrincipalOps;
  principal: string;
}

function targets(properties: Record<string, unknown> | undefined): Target[] {
  if (!properties) return [];
  return [
    ...stringList(properties.Roles).map((principal) => ({ ops: ROLE_OPS, principal })),
    ...stringList(properties.Users).map((principal) => ({ ops: USER_OPS, principal })),
    ...stringList(properties.Groups).map((principal) => ({ ops: GROUP_OPS, principal })),
  ];
}

const sameTarget = (a: Target, b: Target) =>
  a.ops.kind === b.ops.kind && a.principal.toLowerCase() === b.principal.toLowerCase();

export class IamPolicyProvider implements ResourceProvider {
  private readonly sup: IamSupport;

  constructor(ctx: ProviderContext) {
    this.sup = new IamSupport(ctx);
  }

  /**
   * Refuses when a target already has an inline policy of this name with another document that
   * no resource of this stack wrote in this process. Returns the targets that had none.
   */
  private async checkTargets(
    policyName: string,
    document: unknown,
    list: Target[],
    who: Claimant,
    ref: ResourceRef,
    signal?: AbortSignal,
  ): Promise<Target[]> {
    const absent: Target[] = [];
    for (const target of list) {
      const existing = await target.ops.get(this.sup, signal, target.principal, policyName);
      if (existing === undefined) absent.push(target);
      else if (
        !sameDocument(existing, document) &&
        !writtenBySameStack(target.ops.kind, target.principal, policyName, who)
      )
        throw this.sup.exists(
          `An inline policy named ${policyName} on ${target.ops.noun} ${target.principal}`,
          ref,
          'with another document, written by another resource or stack',
          `Give ${ref.logicalId} another PolicyName. If another resource of this stack gives the name up in this same deploy, deploy again once it has.`,
        );
    }
    return absent;
  }

  private async put(
    policyName: string,
    document: unknown,
    list: Target[],
    who: Claimant,
    signal?: AbortSignal,
  ): Promise<void> {
    for (const target of list) {
      await target.ops.put(this.sup, signal, target.principal, policyName, documentText(document));
      claim(target.ops.kind, target.principal, policyName, who);
    }
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const { sup } = this;
    const signal = context.signal;
    const ref: ResourceRef = { logicalId, resourceType };
    const policyName = optionalString(properties.PolicyName);
    const list = targets(properties);
    if (!policyName || list.length === 0)
      throw new sup.ctx.errors.ProvisioningError(
        `${logicalId} needs a PolicyName and at least one of Roles, Users or Groups.`,
        {
          resource: ref,
          remedy: `Set PolicyName and the principals of ${logicalId}, or remove it from the app.`,
        },
      );
    const who = claimant(context.stackName, logicalId);
    try {
      const absent = await this.checkTargets(policyName, properties.PolicyDocument, list, who, ref, signal);
      return await retireOnFailure(
        sup,
        { ...ref, physicalId: policyName },
        `inline policy ${policyName}`,
        `aws iam delete-role-policy (or delete-user-policy, delete-group-policy) --policy-name ${policyName}`,
        async () => {
          await this.put(policyName, properties.PolicyDocument, list, who, signal);
          return { physicalId: policyName, attributes: { Id: policyName } };
        },
        async () => {
          // Only what this create added: a principal that already had the same document keeps it.
          for (const target of absent) {
            await target.ops.delete(sup, signal, target.principal, policyName);
            release(target.ops.kind, target.principal, policyName, who);
          }
        },
      );
    } catch (err) {
      throw sup.wrap(err, `putting inline policy ${policyName}`, ref);
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
    const who = claimant(context?.stackName, logicalId);
    const oldName = physicalId || optionalString(previous.PolicyName) || '';
    const newName = optionalString(properties.PolicyName) ?? oldName;
    const renamed = newName.toLowerCase() !== oldName.toLowerCase();
    const before = targets(previous);
    const now = targets(properties);
    try {
      // Principals that newly get this name are checked as a create checks them.
      const fresh = now.filter((t) => renamed || !before.some((b) => sameTarget(b, t)));
      await this.checkTargets(newName, properties.PolicyDocument, fresh, who, ref, signal);
      const documentChanged = !sameDocument(properties.PolicyDocument, previous.PolicyDocument);
      await this.put(
        newName,
        properties.PolicyDocument,
        documentChanged || renamed ? now : fresh,
        who,
        signal,
      );
      // Then the old name goes from every principal that no longer has it under this resource.
      const gone = before.filter((b) => renamed || !now.some((t) => sameTarget(b, t)));
      await this.remove(oldName, previous.PolicyDocument, gone, who, signal);
      return { physicalId: newName, wasReplaced: false, attributes: { Id: newName } };
    } catch (err) {
      throw sup.wrap(err, `updating inline policy ${oldName}`, ref);
    }
  }

  /** Deletes the policy from each target while it is still this resource's; returns how many were already gone. */
  private async remove(
    policyName: string,
    document: unknown,
    list: Target[],
    who: Claimant,
    signal?: AbortSignal,
  ): Promise<number> {
    let missing = 0;
    for (const target of list) {
      const { ops, principal } = target;
      if (claimedByOther(ops.kind, principal, policyName, who)) {
        this.sup.ctx.logger.debug(
          `${who}: ${policyName} on ${ops.noun} ${principal} now belongs to another resource; left in place`,
        );
        continue;
      }
      const current = await ops.get(this.sup, signal, principal, policyName);
      if (current === undefined) {
        missing++;
        continue;
      }
      if (!sameDocument(current, document)) {
        this.sup.ctx.logger.warn(
          `${who}: inline policy ${policyName} on ${ops.noun} ${principal} has another document than this resource put; ` +
            'another resource or stack owns it now, so it is left in place',
        );
        continue;
      }
      await ops.delete(this.sup, signal, principal, policyName);
      release(ops.kind, principal, policyName, who);
    }
    return missing;
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    const ref: ResourceRef = { logicalId, resourceType, physicalId };
    // What was deployed wins: the physical id is the name IAM holds.
    const policyName = physicalId || optionalString(properties?.PolicyName);
    const list = targets(properties);
    if (!policyName || list.length === 0) {
      this.sup.ctx.logger.warn(`${logicalId}: not deleted: ${POLICY_RECORD_INCOMPLETE_REASON}`);
      return { outcome: 'skipped', reason: POLICY_RECORD_INCOMPLETE_REASON };
    }
    try {
      const missing = await this.remove(
        policyName,
        properties?.PolicyDocument,
        list,
        claimant(context?.stackName, logicalId),
        context?.signal,
      );
      // Gone from a principal counts as deleted only where we looked in the right place.
      if (missing > 0) await this.sup.assertRegion(context?.expectedRegion, ref);
    } catch (err) {
      throw this.sup.wrap(err, `deleting inline policy ${policyName}`, ref);
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Id' ? physicalId : undefined;
  }

  async readCurrentState(
    physicalId: string,
    _logicalId: string,
    _resourceType: string,
    properties?: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined> {
    const found: Record<string, string[]> = { Roles: [], Users: [], Groups: [] };
    let document: unknown;
    for (const { ops, principal } of targets(properties)) {
      const current = await ops.get(this.sup, undefined, principal, physicalId);
      if (current === undefined) continue;
      document ??= current;
      found[ops === ROLE_OPS ? 'Roles' : ops === USER_OPS ? 'Users' : 'Groups']!.push(principal);
    }
    if (document === undefined) return undefined;
    return { PolicyName: physicalId, PolicyDocument: document, ...found };
  }
}

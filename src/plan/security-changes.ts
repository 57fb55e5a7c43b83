/**
 * The security-relevant part of a stack plan, judged as the CDK CLI judges it
 * for `--require-approval`: IAM statements (inline, managed and resource
 * policies, trust policies), managed policy attachments and security-group
 * rules, compared by @aws-cdk/cloudformation-diff. cdkd keeps no template, so
 * the "before" side is the state record (each resource's type and resolved
 * properties) and the "after" side the plan's desired properties; values known
 * only after deploy stand in as `Ref` / `Fn::GetAtt`, which the diff renders as
 * `${Resource.Attr}`.
 *
 * That diff loads the whole CloudFormation service spec (a second of CPU), so
 * it is given only the resources the plan changes whose type and properties it
 * would examine (the committed schema index lists them); unchanged resources
 * compare equal on both sides and add nothing, and a plan touching none of them
 * has no security change without loading it.
 */
import type * as CloudFormationDiff from '@aws-cdk/cloudformation-diff';
import type { TemplateDiff } from '@aws-cdk/cloudformation-diff';
import { SchemaStore } from '../provisioning/schema-store';
import type { StackState } from '../state/types';
import { isUnknown } from '../template/unknown';
import type { Unknown } from '../template/unknown';
import { nestedResourceName, planLevels } from './nested-plans';
import type { StackPlan } from './types';

/** `broadening`: a permission or network access is added or widened. */
export type PermissionChange = 'none' | 'non-broadening' | 'broadening';

export interface SecurityChanges {
  change: PermissionChange;
  /** The diff, for {@link renderSecurityChanges} (src/ui); absent when nothing needed diffing. */
  diff?: TemplateDiff;
}

/** What the security diff examines in a type (see {@link SchemaStore.securityScrutiny}). */
export type SecurityScrutiny = (type: string) => '*' | readonly string[] | undefined;

/** What the plan changes in permissions and network access. */
export function securityChangesOf(
  plan: StackPlan,
  state: StackState | undefined,
  scrutiny: SecurityScrutiny = (type) => SchemaStore.default().securityScrutiny(type),
): SecurityChanges {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  // A nested stack's children count as the parent's: their resources are named `Parent > Child > Resource`.
  for (const level of planLevels(plan, state))
    for (const r of level.plan.resources) {
      if (r.action === 'NO_CHANGE') continue;
      const examined = scrutiny(r.resourceType);
      if (!examined) continue;
      const id = nestedResourceName(plan.stackName, level, r.logicalId);
      const old = level.state?.resources[r.logicalId];
      const oldProperties = old?.properties ?? {};
      const newProperties = r.action === 'DELETE' || !r.desired ? undefined : r.desired.properties;
      if (examined !== '*') {
        const touches = (props: Record<string, unknown> | undefined) =>
          props !== undefined && examined.some((name) => props[name] !== undefined);
        if (!touches(old ? oldProperties : undefined) && !touches(newProperties)) continue;
      }
      if (old) before[id] = { Type: old.resourceType, Properties: oldProperties };
      if (newProperties) after[id] = { Type: r.resourceType, Properties: asTemplateValue(newProperties) };
    }
  if (Object.keys(before).length === 0 && Object.keys(after).length === 0) return { change: 'none' };
  const { fullDiff } = require('@aws-cdk/cloudformation-diff') as typeof CloudFormationDiff;
  const diff = fullDiff({ Resources: before }, { Resources: after });
  const change: PermissionChange = diff.permissionsBroadened
    ? 'broadening'
    : diff.permissionsAnyChanges
      ? 'non-broadening'
      : 'none';
  return { change, diff };
}

/** The plan's values with every `Unknown` as the intrinsic it stands for. */
function asTemplateValue(value: unknown): unknown {
  if (isUnknown(value)) return unknownAsIntrinsic(value);
  if (Array.isArray(value)) return value.map(asTemplateValue);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asTemplateValue(v)]));
  return value;
}

function unknownAsIntrinsic(u: Unknown): unknown {
  const parts = u.description.split(', ').map((name) => {
    const dot = name.indexOf('.');
    if (dot < 0) return name;
    const [id, attr] = [name.slice(0, dot), name.slice(dot + 1)];
    return attr === 'Ref' ? { Ref: id } : { 'Fn::GetAtt': [id, attr] };
  });
  return parts.length === 1 ? parts[0] : { 'Fn::Join': ['', parts] };
}

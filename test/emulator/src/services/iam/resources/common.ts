/**
 * What the IAM types' Cloud Control providers share: IAM is global, so a
 * resource is looked up in the caller's account whatever the region, and the
 * inventory lists it once, under us-east-1 (where IAM's global endpoint and
 * its CloudTrail events live).
 */
import { HandlerError, serviceFailure } from '../../../core/resources';
import type { InventoryItem } from '../../../core/service';
import {
  PRINCIPAL_KINDS,
  attachPolicy,
  detachPolicy,
  putInlinePolicy,
  type PrincipalKind,
} from '../principal-policies';
import { nameKey, type IamStore, type Principal, type Tag } from '../store';

export const IAM_INVENTORY_REGION = 'us-east-1';

export const ROLE_KIND: PrincipalKind = PRINCIPAL_KINDS[0]!;
export const USER_KIND: PrincipalKind = PRINCIPAL_KINDS[1]!;
export const GROUP_KIND: PrincipalKind = PRINCIPAL_KINDS[2]!;

/** A policy document as the template gives it (object or JSON string) → the text IAM stores. */
export function documentText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

/** The text IAM stores → the object Cloud Control reports. */
export function documentObject(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Runs a handler step, turning IAM's errors into the handler's. */
export function handler<T>(work: () => T): T {
  try {
    return work();
  } catch (err) {
    if (err instanceof HandlerError) throw err;
    throw serviceFailure(err, 'Iam');
  }
}

export function tagsModel(tags: Tag[]): Tag[] | undefined {
  return tags.length ? tags.map((t) => ({ ...t })) : undefined;
}

/** `Policies` of a principal's model. */
export function policiesModel(principal: Principal): unknown[] | undefined {
  const policies = Object.values(principal.inlinePolicies).map((p) => ({
    PolicyName: p.name,
    PolicyDocument: documentObject(p.document),
  }));
  return policies.length ? policies : undefined;
}

/** Makes a principal's inline policies exactly `desired` (the model's `Policies`). */
export function applyPolicies(kind: PrincipalKind, principal: Principal, desired: unknown): void {
  const list = (desired as Array<{ PolicyName: string; PolicyDocument: unknown }> | undefined) ?? [];
  const wanted = new Set(list.map((p) => nameKey(p.PolicyName)));
  for (const key of Object.keys(principal.inlinePolicies))
    if (!wanted.has(key)) delete principal.inlinePolicies[key];
  for (const p of list) putInlinePolicy(kind, principal, p.PolicyName, documentText(p.PolicyDocument));
}

/** Makes a principal's attached managed policies exactly `desired` (the model's `ManagedPolicyArns`). */
export function applyManagedPolicies(
  store: IamStore,
  kind: PrincipalKind,
  account: string,
  principal: Principal,
  desired: unknown,
): void {
  const arns = (desired as string[] | undefined) ?? [];
  for (const arn of [...principal.attached]) if (!arns.includes(arn)) detachPolicy(principal, arn);
  for (const arn of arns) attachPolicy(store, kind, account, principal, arn);
}

export function item(
  account: string,
  type: string,
  identifier: string,
  properties: Record<string, unknown>,
): InventoryItem {
  return { account, region: IAM_INVENTORY_REGION, type, identifier, properties };
}

/**
 * Which resource last wrote an inline policy name on a principal, in this
 * process. An inline policy has no identity of its own: it is a name on a
 * role, user or group, and the name can move between resources within one
 * deploy (an `AWS::IAM::Policy` whose logical id changed but whose
 * `PolicyName` did not, two policies swapping names, a role's own `Policies`
 * giving a name up to an `AWS::IAM::Policy`). The new holder is created
 * before the old one is deleted, so the old one's delete must not remove what
 * the new one just put: it asks here first. Shared by every provider of the
 * pack (a role's `Policies` and `AWS::IAM::Policy` write the same names) and
 * across regions (IAM is global).
 */
export type PrincipalKind = 'role' | 'user' | 'group';

/** `<stack>/<logicalId>` of the writer. */
export type Claimant = string;

const claims = new Map<string, Claimant>();

function key(kind: PrincipalKind, principal: string, policyName: string): string {
  // IAM names ignore case.
  return `${kind}|${principal.toLowerCase()}|${policyName.toLowerCase()}`;
}

export function claimant(stackName: string | undefined, logicalId: string): Claimant {
  return `${stackName ?? ''}/${logicalId}`;
}

/** Records that `who` wrote the policy name on the principal. */
export function claim(kind: PrincipalKind, principal: string, policyName: string, who: Claimant): void {
  claims.set(key(kind, principal, policyName), who);
}

/** True when another resource wrote the name on the principal after `who` did (in this process). */
export function claimedByOther(
  kind: PrincipalKind,
  principal: string,
  policyName: string,
  who: Claimant,
): boolean {
  const holder = claims.get(key(kind, principal, policyName));
  return holder !== undefined && holder !== who;
}

/** Forgets a claim after its holder deleted the policy. */
export function release(kind: PrincipalKind, principal: string, policyName: string, who: Claimant): void {
  const k = key(kind, principal, policyName);
  if (claims.get(k) === who) claims.delete(k);
}

/** True when a resource of the same stack as `who` (itself included) wrote the name in this process. */
export function writtenBySameStack(
  kind: PrincipalKind,
  principal: string,
  policyName: string,
  who: Claimant,
): boolean {
  const holder = claims.get(key(kind, principal, policyName));
  return (
    holder !== undefined && holder.slice(0, holder.lastIndexOf('/')) === who.slice(0, who.lastIndexOf('/'))
  );
}

/**
 * Inline policies (`Policies`) and attached managed policies
 * (`ManagedPolicyArns`) of roles, users and groups: the same work through
 * each kind's own IAM operations. An update changes only what the template
 * changed (IAM has no "replace all" call): policies put or re-put, then the
 * removed ones deleted, so a renamed policy never leaves a gap; managed
 * policies attached, then the removed ones detached. Only what the previous
 * template declared is ever removed: an inline policy an `AWS::IAM::Policy`
 * put on the role, or a managed policy a `ManagedPolicy`'s `Roles` attached,
 * is left alone.
 */
import {
  AttachGroupPolicyCommand,
  AttachRolePolicyCommand,
  AttachUserPolicyCommand,
  DeleteGroupPolicyCommand,
  DeleteRolePolicyCommand,
  DeleteUserPolicyCommand,
  DetachGroupPolicyCommand,
  DetachRolePolicyCommand,
  DetachUserPolicyCommand,
  GetGroupPolicyCommand,
  GetRolePolicyCommand,
  GetUserPolicyCommand,
  ListAttachedGroupPoliciesCommand,
  ListAttachedRolePoliciesCommand,
  ListAttachedUserPoliciesCommand,
  ListGroupPoliciesCommand,
  ListRolePoliciesCommand,
  ListUserPoliciesCommand,
  PutGroupPolicyCommand,
  PutRolePolicyCommand,
  PutUserPolicyCommand,
} from '@aws-sdk/client-iam';
import { decodeDocument, documentText, sameDocument } from './documents';
import { isNoSuchEntity } from './errors';
import type { IamSupport } from './iam-support';
import { claim, claimedByOther, release, type Claimant, type PrincipalKind } from './inline-claims';

type Signal = AbortSignal | undefined;

/** One kind of principal's policy operations. */
export interface PrincipalOps {
  kind: PrincipalKind;
  /** `role`, `user`, `group` as messages say it. */
  noun: string;
  put(
    sup: IamSupport,
    signal: Signal,
    principal: string,
    policyName: string,
    document: string,
  ): Promise<void>;
  /** The inline policy's document, or undefined when the principal has none of that name. */
  get(sup: IamSupport, signal: Signal, principal: string, policyName: string): Promise<unknown>;
  /** False when there was nothing to delete. */
  delete(sup: IamSupport, signal: Signal, principal: string, policyName: string): Promise<boolean>;
  listInline(sup: IamSupport, signal: Signal, principal: string): Promise<string[]>;
  attach(sup: IamSupport, signal: Signal, principal: string, arn: string): Promise<void>;
  /** False when it was not attached. */
  detach(sup: IamSupport, signal: Signal, principal: string, arn: string): Promise<boolean>;
  listAttached(sup: IamSupport, signal: Signal, principal: string): Promise<string[]>;
}

/** Follows IAM's Marker paging to the end. */
async function allPages<T>(
  page: (marker: string | undefined) => Promise<{ items: T[]; IsTruncated?: boolean; Marker?: string }>,
): Promise<T[]> {
  const out: T[] = [];
  let marker: string | undefined;
  do {
    const res = await page(marker);
    out.push(...res.items);
    marker = res.IsTruncated ? res.Marker : undefined;
  } while (marker);
  return out;
}

async function tolerateMissing(work: () => Promise<unknown>): Promise<boolean> {
  try {
    await work();
    return true;
  } catch (err) {
    if (isNoSuchEntity(err)) return false;
    throw err;
  }
}

export const ROLE_OPS: PrincipalOps = {
  kind: 'role',
  noun: 'role',
  put: async (sup, signal, RoleName, PolicyName, PolicyDocument) => {
    await sup.sendReferencing(signal, (c, o) =>
      c.send(new PutRolePolicyCommand({ RoleName, PolicyName, PolicyDocument }), o),
    );
  },
  get: async (sup, signal, RoleName, PolicyName) => {
    try {
      const out = await sup.send(signal, (c, o) =>
        c.send(new GetRolePolicyCommand({ RoleName, PolicyName }), o),
      );
      return decodeDocument(out.PolicyDocument);
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  },
  delete: (sup, signal, RoleName, PolicyName) =>
    tolerateMissing(() =>
      sup.send(signal, (c, o) => c.send(new DeleteRolePolicyCommand({ RoleName, PolicyName }), o)),
    ),
  listInline: (sup, signal, RoleName) =>
    allPages(async (Marker) => {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListRolePoliciesCommand({ RoleName, Marker }), o),
      );
      return { items: out.PolicyNames ?? [], IsTruncated: out.IsTruncated, Marker: out.Marker };
    }),
  attach: async (sup, signal, RoleName, PolicyArn) => {
    await sup.sendReferencing(signal, (c, o) =>
      c.send(new AttachRolePolicyCommand({ RoleName, PolicyArn }), o),
    );
  },
  detach: (sup, signal, RoleName, PolicyArn) =>
    tolerateMissing(() =>
      sup.send(signal, (c, o) => c.send(new DetachRolePolicyCommand({ RoleName, PolicyArn }), o)),
    ),
  listAttached: (sup, signal, RoleName) =>
    allPages(async (Marker) => {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListAttachedRolePoliciesCommand({ RoleName, Marker }), o),
      );
      return {
        items: (out.AttachedPolicies ?? []).map((p) => p.PolicyArn!),
        IsTruncated: out.IsTruncated,
        Marker: out.Marker,
      };
    }),
};

export const USER_OPS: PrincipalOps = {
  kind: 'user',
  noun: 'user',
  put: async (sup, signal, UserName, PolicyName, PolicyDocument) => {
    await sup.sendReferencing(signal, (c, o) =>
      c.send(new PutUserPolicyCommand({ UserName, PolicyName, PolicyDocument }), o),
    );
  },
  get: async (sup, signal, UserName, PolicyName) => {
    try {
      const out = await sup.send(signal, (c, o) =>
        c.send(new GetUserPolicyCommand({ UserName, PolicyName }), o),
      );
      return decodeDocument(out.PolicyDocument);
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  },
  delete: (sup, signal, UserName, PolicyName) =>
    tolerateMissing(() =>
      sup.send(signal, (c, o) => c.send(new DeleteUserPolicyCommand({ UserName, PolicyName }), o)),
    ),
  listInline: (sup, signal, UserName) =>
    allPages(async (Marker) => {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListUserPoliciesCommand({ UserName, Marker }), o),
      );
      return { items: out.PolicyNames ?? [], IsTruncated: out.IsTruncated, Marker: out.Marker };
    }),
  attach: async (sup, signal, UserName, PolicyArn) => {
    await sup.sendReferencing(signal, (c, o) =>
      c.send(new AttachUserPolicyCommand({ UserName, PolicyArn }), o),
    );
  },
  detach: (sup, signal, UserName, PolicyArn) =>
    tolerateMissing(() =>
      sup.send(signal, (c, o) => c.send(new DetachUserPolicyCommand({ UserName, PolicyArn }), o)),
    ),
  listAttached: (sup, signal, UserName) =>
    allPages(async (Marker) => {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListAttachedUserPoliciesCommand({ UserName, Marker }), o),
      );
      return {
        items: (out.AttachedPolicies ?? []).map((p) => p.PolicyArn!),
        IsTruncated: out.IsTruncated,
        Marker: out.Marker,
      };
    }),
};

export const GROUP_OPS: PrincipalOps = {
  kind: 'group',
  noun: 'group',
  put: async (sup, signal, GroupName, PolicyName, PolicyDocument) => {
    await sup.sendReferencing(signal, (c, o) =>
      c.send(new PutGroupPolicyCommand({ GroupName, PolicyName, PolicyDocument }), o),
    );
  },
  get: async (sup, signal, GroupName, PolicyName) => {
    try {
      const out = await sup.send(signal, (c, o) =>
        c.send(new GetGroupPolicyCommand({ GroupName, PolicyName }), o),
      );
      return decodeDocument(out.PolicyDocument);
    } catch (err) {
      if (isNoSuchEntity(err)) return undefined;
      throw err;
    }
  },
  delete: (sup, signal, GroupName, PolicyName) =>
    tolerateMissing(() =>
      sup.send(signal, (c, o) => c.send(new DeleteGroupPolicyCommand({ GroupName, PolicyName }), o)),
    ),
  listInline: (sup, signal, GroupName) =>
    allPages(async (Marker) => {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListGroupPoliciesCommand({ GroupName, Marker }), o),
      );
      return { items: out.PolicyNames ?? [], IsTruncated: out.IsTruncated, Marker: out.Marker };
    }),
  attach: async (sup, signal, GroupName, PolicyArn) => {
    await sup.sendReferencing(signal, (c, o) =>
      c.send(new AttachGroupPolicyCommand({ GroupName, PolicyArn }), o),
    );
  },
  detach: (sup, signal, GroupName, PolicyArn) =>
    tolerateMissing(() =>
      sup.send(signal, (c, o) => c.send(new DetachGroupPolicyCommand({ GroupName, PolicyArn }), o)),
    ),
  listAttached: (sup, signal, GroupName) =>
    allPages(async (Marker) => {
      const out = await sup.send(signal, (c, o) =>
        c.send(new ListAttachedGroupPoliciesCommand({ GroupName, Marker }), o),
      );
      return {
        items: (out.AttachedPolicies ?? []).map((p) => p.PolicyArn!),
        IsTruncated: out.IsTruncated,
        Marker: out.Marker,
      };
    }),
};

/** The template's `Policies` by lower-cased name (IAM names ignore case). */
export function inlinePolicies(value: unknown): Map<string, { name: string; document: unknown }> {
  const out = new Map<string, { name: string; document: unknown }>();
  if (!Array.isArray(value)) return out;
  for (const p of value as Array<{ PolicyName?: unknown; PolicyDocument?: unknown }>)
    if (typeof p?.PolicyName === 'string')
      out.set(p.PolicyName.toLowerCase(), { name: p.PolicyName, document: p.PolicyDocument });
  return out;
}

/**
 * Brings a principal's inline policies from the previous `Policies` to the next: new and changed
 * documents are put, then removed names deleted — unless another resource wrote that name since
 * (it moved to an `AWS::IAM::Policy` in this deploy).
 */
export async function applyInlinePolicies(
  sup: IamSupport,
  ops: PrincipalOps,
  principal: string,
  next: unknown,
  previous: unknown,
  who: Claimant,
  signal: Signal,
): Promise<void> {
  const now = inlinePolicies(next);
  const before = inlinePolicies(previous);
  for (const [key, policy] of now) {
    const old = before.get(key);
    if (old && old.name === policy.name && sameDocument(old.document, policy.document)) continue;
    await ops.put(sup, signal, principal, policy.name, documentText(policy.document));
    claim(ops.kind, principal, policy.name, who);
  }
  for (const [key, policy] of before) {
    if (now.has(key)) continue;
    if (claimedByOther(ops.kind, principal, policy.name, who)) {
      sup.ctx.logger.debug(
        `${who}: inline policy ${policy.name} on ${ops.noun} ${principal} now belongs to another resource; left in place`,
      );
      continue;
    }
    await ops.delete(sup, signal, principal, policy.name);
    release(ops.kind, principal, policy.name, who);
  }
}

/** Attaches the managed policies the template added, then detaches the ones it removed. */
export async function applyManagedPolicies(
  sup: IamSupport,
  ops: PrincipalOps,
  principal: string,
  next: string[],
  previous: string[],
  signal: Signal,
): Promise<void> {
  for (const arn of next) if (!previous.includes(arn)) await ops.attach(sup, signal, principal, arn);
  for (const arn of previous) if (!next.includes(arn)) await ops.detach(sup, signal, principal, arn);
}

/** Before deleting a principal: every inline policy deleted and every managed policy detached (IAM refuses otherwise). */
export async function removeAllPolicies(
  sup: IamSupport,
  ops: PrincipalOps,
  principal: string,
  signal: Signal,
): Promise<void> {
  for (const name of await ops.listInline(sup, signal, principal))
    await ops.delete(sup, signal, principal, name);
  for (const arn of await ops.listAttached(sup, signal, principal))
    await ops.detach(sup, signal, principal, arn);
}

/** The inline policies as `Policies` reads back (drift): only the names the record declares. */
export async function readInlinePolicies(
  sup: IamSupport,
  ops: PrincipalOps,
  principal: string,
  declared: unknown,
): Promise<Array<{ PolicyName: string; PolicyDocument: unknown }>> {
  const out: Array<{ PolicyName: string; PolicyDocument: unknown }> = [];
  for (const { name } of inlinePolicies(declared).values()) {
    const document = await ops.get(sup, undefined, principal, name);
    if (document !== undefined) out.push({ PolicyName: name, PolicyDocument: document });
  }
  return out;
}

/**
 * Inline policies (Put/Get/Delete/List{Role,User,Group}Policy) and managed
 * policy attachments (Attach/Detach/ListAttached{Role,User,Group}Policies):
 * the same operations for the three kinds of principal, with each kind's
 * quotas (IAM User Guide, "IAM and AWS STS quotas": inline policies of a role
 * 10,240 characters in all, of a user 2,048, of a group 5,120; 10 managed
 * policies per principal by default).
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { attachablePolicy, getGroup, getRole, getUser, noSuchEntity } from './entities';
import { encodeDocument, policySize, validatePolicyDocument } from './policy-document';
import { nameKey, type AccountIam, type IamStore, type Principal } from './store';
import { checkName, paginate, required, validationError, type Input } from './validate';

export interface PrincipalKind {
  /** `Role`, `User`, `Group`: the word in the operation names. */
  label: 'Role' | 'User' | 'Group';
  get(iam: AccountIam, name: string): Principal;
  /** Aggregate size of the principal's inline policies (characters, white space not counted). */
  inlineQuota: number;
  /** The default quota of attached managed policies. */
  attachQuota: number;
}

export const PRINCIPAL_KINDS: readonly PrincipalKind[] = [
  { label: 'Role', get: getRole, inlineQuota: 10_240, attachQuota: 10 },
  { label: 'User', get: getUser, inlineQuota: 2_048, attachQuota: 10 },
  { label: 'Group', get: getGroup, inlineQuota: 5_120, attachQuota: 10 },
];

/** Puts an inline policy on a principal (also used by Cloud Control's inline policy types). */
export function putInlinePolicy(
  kind: PrincipalKind,
  principal: Principal,
  policyName: string,
  document: string,
): void {
  checkName(policyName, 'policyName', 128);
  if (document.length > 131072)
    throw validationError('policyDocument', '...', 'Member must have length less than or equal to 131072');
  validatePolicyDocument(document, 'identity');
  const others = Object.values(principal.inlinePolicies).filter(
    (p) => nameKey(p.name) !== nameKey(policyName),
  );
  const total = others.reduce((sum, p) => sum + policySize(p.document), 0) + policySize(document);
  if (total > kind.inlineQuota)
    throw new AwsError(
      'LimitExceeded',
      `Maximum policy size of ${kind.inlineQuota} bytes exceeded for ${kind.label.toLowerCase()} ${principal.name}`,
    );
  // An existing policy keeps the spelling of its name, as IAM does.
  const existing = principal.inlinePolicies[nameKey(policyName)];
  principal.inlinePolicies[nameKey(policyName)] = { name: existing?.name ?? policyName, document };
}

export function deleteInlinePolicy(kind: PrincipalKind, principal: Principal, policyName: string): void {
  if (!principal.inlinePolicies[nameKey(policyName)])
    throw noSuchEntity(`The ${kind.label.toLowerCase()} policy with name ${policyName} cannot be found.`);
  delete principal.inlinePolicies[nameKey(policyName)];
}

export function attachPolicy(
  store: IamStore,
  kind: PrincipalKind,
  account: string,
  principal: Principal,
  arn: string,
): void {
  attachablePolicy(store, account, arn);
  if (principal.attached.includes(arn)) return;
  if (principal.attached.length >= kind.attachQuota)
    throw new AwsError(
      'LimitExceeded',
      `Cannot exceed quota for PoliciesPer${kind.label}: ${kind.attachQuota}`,
    );
  principal.attached.push(arn);
}

export function detachPolicy(principal: Principal, arn: string): void {
  if (!principal.attached.includes(arn)) throw noSuchEntity(`Policy ${arn} was not found.`);
  principal.attached = principal.attached.filter((a) => a !== arn);
}

export function principalPolicyOperations(store: IamStore): Operations {
  const operations: Operations = {};
  for (const kind of PRINCIPAL_KINDS) {
    const member = `${kind.label}Name`;
    const principal = (ctx: CallContext, input: Input) =>
      kind.get(store.account(ctx.account), required(input, member));

    operations[`Put${kind.label}Policy`] = (ctx, input: Input) => {
      const target = principal(ctx, input);
      putInlinePolicy(kind, target, required(input, 'PolicyName'), required(input, 'PolicyDocument'));
      return {};
    };
    operations[`Get${kind.label}Policy`] = (ctx, input: Input) => {
      const target = principal(ctx, input);
      const policyName = required(input, 'PolicyName');
      const policy = target.inlinePolicies[nameKey(policyName)];
      if (!policy)
        throw noSuchEntity(`The ${kind.label.toLowerCase()} policy with name ${policyName} cannot be found.`);
      return {
        [member]: target.name,
        PolicyName: policy.name,
        PolicyDocument: encodeDocument(policy.document),
      };
    };
    operations[`Delete${kind.label}Policy`] = (ctx, input: Input) => {
      deleteInlinePolicy(kind, principal(ctx, input), required(input, 'PolicyName'));
      return {};
    };
    operations[`List${kind.label}Policies`] = (ctx, input: Input) => {
      const names = Object.values(principal(ctx, input).inlinePolicies)
        .map((p) => p.name)
        .sort();
      const page = paginate(names, input);
      return { PolicyNames: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    };
    operations[`Attach${kind.label}Policy`] = (ctx, input: Input) => {
      attachPolicy(store, kind, ctx.account, principal(ctx, input), required(input, 'PolicyArn'));
      return {};
    };
    operations[`Detach${kind.label}Policy`] = (ctx, input: Input) => {
      detachPolicy(principal(ctx, input), required(input, 'PolicyArn'));
      return {};
    };
    operations[`ListAttached${kind.label}Policies`] = (ctx, input: Input) => {
      const prefix = input.PathPrefix === undefined ? '/' : String(input.PathPrefix);
      const attached = principal(ctx, input)
        .attached.map((arn) => store.managedPolicy(ctx.account, arn))
        .filter((p) => p !== undefined && p.path.startsWith(prefix))
        .map((p) => ({ PolicyName: p!.name, PolicyArn: p!.arn }));
      const page = paginate(attached, input);
      return { AttachedPolicies: page.items, IsTruncated: page.IsTruncated, Marker: page.Marker };
    };
  }
  return operations;
}

/**
 * Policy documents as IAM checks them: JSON, the policy grammar (IAM User
 * Guide, "IAM JSON policy elements" and "Grammar of the IAM JSON policy
 * language"), the rules of each kind of policy (an identity policy names
 * resources and no principal; a role's trust policy names principals and no
 * resource) and IAM's size quotas, which do not count white space. Failures
 * are `MalformedPolicyDocument` or `LimitExceeded`, in IAM's wording.
 */
import { AwsError } from '../../core/errors';

/** `identity`: inline and managed permission policies; `trust`: a role's assume-role policy. */
export type PolicyKind = 'identity' | 'trust';

const VERSIONS = new Set(['2012-10-17', '2008-10-17']);
const TOP_LEVEL = new Set(['Version', 'Id', 'Statement']);
const STATEMENT_KEYS = new Set([
  'Sid',
  'Effect',
  'Action',
  'NotAction',
  'Resource',
  'NotResource',
  'Principal',
  'NotPrincipal',
  'Condition',
]);
const PRINCIPAL_KEYS = new Set(['AWS', 'Service', 'Federated', 'CanonicalUser']);
/** `*`, or `<service>:<action>` with wildcards. */
const ACTION = /^(\*|[a-zA-Z0-9-]+:[a-zA-Z0-9*?_-]*)$/;

function malformed(message: string): AwsError {
  return new AwsError('MalformedPolicyDocument', message);
}

function stringList(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string'))
    return value as string[];
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function checkActions(value: unknown): void {
  const actions = stringList(value);
  if (!actions) throw malformed('Syntax errors in policy.');
  for (const action of actions)
    if (!ACTION.test(action))
      throw malformed('Actions/Conditions must be prefaced by a vendor, e.g., iam, sdb, ec2, etc.');
}

function checkResources(value: unknown): void {
  const resources = stringList(value);
  if (!resources) throw malformed('Syntax errors in policy.');
  for (const resource of resources)
    if (resource !== '*' && !resource.startsWith('arn:'))
      throw malformed(`Resource ${resource} must be in ARN format or "*".`);
}

function checkPrincipal(value: unknown): void {
  if (value === '*') return;
  if (!isRecord(value) || Object.keys(value).length === 0) throw malformed('Invalid principal in policy');
  for (const [key, entry] of Object.entries(value)) {
    if (!PRINCIPAL_KEYS.has(key)) throw malformed(`Invalid principal in policy: "${key}"`);
    const names = stringList(entry);
    if (!names) throw malformed(`Invalid principal in policy: "${key}"`);
    if (key === 'AWS')
      for (const name of names)
        if (name !== '*' && !/^\d{12}$/.test(name) && !/^arn:aws[a-z-]*:(iam|sts)::\d{12}:/.test(name))
          throw malformed(`Invalid principal in policy: "AWS":"${name}"`);
  }
}

function checkCondition(value: unknown): void {
  if (!isRecord(value)) throw malformed('Syntax errors in policy.');
  for (const block of Object.values(value)) {
    if (!isRecord(block)) throw malformed('Syntax errors in policy.');
    for (const v of Object.values(block)) {
      const ok =
        ['string', 'boolean', 'number'].includes(typeof v) ||
        (Array.isArray(v) && v.every((x) => ['string', 'boolean', 'number'].includes(typeof x)));
      if (!ok) throw malformed('Syntax errors in policy.');
    }
  }
}

function checkStatement(statement: unknown, kind: PolicyKind): void {
  if (!isRecord(statement)) throw malformed('Syntax errors in policy.');
  for (const key of Object.keys(statement))
    if (!STATEMENT_KEYS.has(key)) throw malformed('Syntax errors in policy.');
  const sid = statement.Sid;
  if (sid !== undefined && (typeof sid !== 'string' || (kind === 'identity' && !/^[0-9A-Za-z]*$/.test(sid))))
    throw malformed(
      'Statement IDs (SID) must be alpha-numeric. Check that your input satisfies the regular expression [0-9A-Za-z]*',
    );
  if (statement.Effect === undefined) throw malformed('Missing required field Effect');
  if (statement.Effect !== 'Allow' && statement.Effect !== 'Deny')
    throw malformed('Syntax errors in policy.');
  const hasAction = statement.Action !== undefined;
  const hasNotAction = statement.NotAction !== undefined;
  if (hasAction && hasNotAction) throw malformed('Syntax errors in policy.');
  if (!hasAction && !hasNotAction) throw malformed('Policy statement must contain actions.');
  checkActions(hasAction ? statement.Action : statement.NotAction);
  const hasResource = statement.Resource !== undefined || statement.NotResource !== undefined;
  const hasPrincipal = statement.Principal !== undefined || statement.NotPrincipal !== undefined;
  if (statement.Resource !== undefined && statement.NotResource !== undefined)
    throw malformed('Syntax errors in policy.');
  if (kind === 'identity') {
    if (hasPrincipal) throw malformed('Policy document should not specify a principal.');
    if (!hasResource) throw malformed('Policy statement must contain resources.');
    checkResources(statement.Resource ?? statement.NotResource);
  } else {
    if (hasResource) throw malformed('Has prohibited field Resource');
    if (!hasPrincipal) throw malformed('Missing required field Principal');
    checkPrincipal(statement.Principal ?? statement.NotPrincipal);
  }
  if (statement.Condition !== undefined) checkCondition(statement.Condition);
}

/** Checks a policy document and returns it parsed. */
export function validatePolicyDocument(text: string, kind: PolicyKind): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw malformed('Syntax errors in policy.');
  }
  if (!isRecord(doc)) throw malformed('Syntax errors in policy.');
  for (const key of Object.keys(doc)) if (!TOP_LEVEL.has(key)) throw malformed('Syntax errors in policy.');
  if (doc.Version !== undefined && !VERSIONS.has(String(doc.Version)))
    throw malformed('The policy failed legacy parsing');
  const statements = Array.isArray(doc.Statement)
    ? doc.Statement
    : doc.Statement === undefined
      ? undefined
      : [doc.Statement];
  if (!statements) throw malformed('Syntax errors in policy.');
  for (const statement of statements) checkStatement(statement, kind);
  return doc;
}

/** A document's size as IAM counts it against its quotas: without white space. */
export function policySize(text: string): number {
  return text.replace(/\s/g, '').length;
}

/** Documents as IAM returns them: URL-encoded (RFC 3986). */
export function encodeDocument(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

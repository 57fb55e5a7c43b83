/**
 * Topic access policies: the default policy SNS gives every new topic (the
 * owner account may do everything; SNS writes the actions as `SNS:...`), the
 * statements AddPermission adds and RemovePermission removes, and who may
 * call an action on a topic.
 */
import { AwsError } from '../../core/errors';
import { evaluateResourcePolicy, type PolicyPrincipal } from '../../core/resource-policy';

const DEFAULT_ACTIONS = [
  'SNS:GetTopicAttributes',
  'SNS:SetTopicAttributes',
  'SNS:AddPermission',
  'SNS:RemovePermission',
  'SNS:DeleteTopic',
  'SNS:Subscribe',
  'SNS:ListSubscriptionsByTopic',
  'SNS:Publish',
];

/** Actions AddPermission accepts (SNS API reference, AddPermission: "ActionName"). */
const PERMISSION_ACTIONS = new Set([...DEFAULT_ACTIONS.map((a) => a.slice(4)), 'Receive']);

interface PolicyDocument {
  Version?: string;
  Id?: string;
  Statement: Array<Record<string, unknown>>;
}

/** The policy SNS attaches to a new topic, as it writes it. */
export function defaultTopicPolicy(topicArn: string, owner: string): string {
  return JSON.stringify({
    Version: '2008-10-17',
    Id: '__default_policy_ID',
    Statement: [
      {
        Sid: '__default_statement_ID',
        Effect: 'Allow',
        Principal: { AWS: '*' },
        Action: DEFAULT_ACTIONS,
        Resource: topicArn,
        Condition: { StringEquals: { 'AWS:SourceOwner': owner } },
      },
    ],
  });
}

/** Why a policy text is not a valid topic policy, or undefined. */
export function topicPolicyProblem(text: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return 'Invalid parameter: Policy Error: null';
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return 'Invalid parameter: Policy Error: null';
  const statement = (doc as { Statement?: unknown }).Statement;
  if (statement === undefined) return 'Invalid parameter: Policy Error: Missing required field Statement';
  const statements = Array.isArray(statement) ? statement : [statement];
  for (const s of statements) {
    if (!s || typeof s !== 'object') return 'Invalid parameter: Policy Error: Statement is not an object';
    const st = s as Record<string, unknown>;
    if (st.Effect !== 'Allow' && st.Effect !== 'Deny')
      return 'Invalid parameter: Policy Error: Missing required field Effect';
    if (st.Principal === undefined && st.NotPrincipal === undefined)
      return 'Invalid parameter: Policy Error: Missing required field Principal';
    if (st.Action === undefined && st.NotAction === undefined)
      return 'Invalid parameter: Policy Error: Missing required field Action';
  }
  return undefined;
}

function parse(text: string): PolicyDocument {
  const doc = JSON.parse(text) as PolicyDocument;
  const statement = doc.Statement as unknown;
  doc.Statement = Array.isArray(statement)
    ? statement
    : statement
      ? [statement as Record<string, unknown>]
      : [];
  return doc;
}

/** The policy with a statement `label` letting the accounts call the actions (AddPermission). */
export function addPermission(
  policy: string,
  topicArn: string,
  label: string,
  accounts: string[],
  actions: string[],
): string {
  if (!label || !/^[A-Za-z0-9_-]{1,80}$/.test(label))
    throw new AwsError('InvalidParameter', 'Invalid parameter: Label');
  if (!accounts.length) throw new AwsError('InvalidParameter', 'Invalid parameter: AWSAccountId');
  if (!actions.length || actions.some((a) => !PERMISSION_ACTIONS.has(a)))
    throw new AwsError(
      'InvalidParameter',
      'Invalid parameter: Policy statement action out of service scope!',
    );
  const doc = parse(policy);
  if (doc.Statement.some((s) => s.Sid === label))
    throw new AwsError('InvalidParameter', 'Invalid parameter: Statement already exists');
  doc.Statement.push({
    Sid: label,
    Effect: 'Allow',
    Principal: { AWS: accounts.map((a) => (/^\d{12}$/.test(a) ? `arn:aws:iam::${a}:root` : a)) },
    Action: actions.map((a) => `SNS:${a}`),
    Resource: topicArn,
  });
  return JSON.stringify(doc);
}

/** The policy without the statement `label` (RemovePermission). */
export function removePermission(policy: string, label: string): string {
  const doc = parse(policy);
  const kept = doc.Statement.filter((s) => s.Sid !== label);
  if (kept.length === doc.Statement.length)
    throw new AwsError('InvalidParameter', 'Invalid parameter: Statement does not exist');
  doc.Statement = kept;
  return JSON.stringify(doc);
}

/**
 * Whether the principal may call `action` (`sns:Publish`) on the topic: the owner account
 * always (its IAM decides, which the emulator does not model); anyone else only when the
 * topic policy allows it.
 */
export function topicAllows(
  policy: string | undefined,
  topicArn: string,
  owner: string,
  principal: PolicyPrincipal,
  action: string,
  context: Record<string, string> = {},
): boolean {
  if ('aws' in principal && principal.aws.account === owner) return true;
  return evaluateResourcePolicy(policy, { principal, action, resource: topicArn, context }) === 'allow';
}

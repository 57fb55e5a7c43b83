/**
 * Resource-based policies: AddPermission, RemovePermission, GetPolicy. One
 * policy per function and per version or alias; statements as Lambda writes
 * them (principal forms, conditions from SourceArn, SourceAccount, ...).
 */
import { randomUUID } from 'node:crypto';
import type { AddPermissionRequest } from '@aws-sdk/client-lambda';
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import { assertRevision } from './configuration';
import { resolveIn, type LambdaContext } from './context';
import type { LambdaFunction, PolicyStatement } from './model';
import { functionArn, resolveQualifier, validationError } from './names';

const MAX_POLICY_BYTES = 20_480;

/** The Principal element Lambda writes for an AddPermission principal. */
export function principalElement(principal: string): PolicyStatement['Principal'] {
  if (principal === '*') return '*';
  if (/^\d{12}$/.test(principal)) return { AWS: `arn:aws:iam::${principal}:root` };
  if (principal.startsWith('arn:')) return { AWS: principal };
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(principal)) return { Service: principal };
  throw new AwsError(
    'InvalidParameterValueException',
    'The provided principal was invalid. Please check the principal and try again.',
  );
}

/** The statement AddPermission adds. */
export function buildStatement(input: AddPermissionRequest, resource: string): PolicyStatement {
  const condition: Record<string, Record<string, string>> = {};
  const add = (operator: string, key: string, value: string) => {
    condition[operator] = { ...condition[operator], [key]: value };
  };
  if (input.SourceAccount) add('StringEquals', 'AWS:SourceAccount', input.SourceAccount);
  if (input.EventSourceToken) add('StringEquals', 'lambda:EventSourceToken', input.EventSourceToken);
  if (input.PrincipalOrgID) add('StringEquals', 'aws:PrincipalOrgID', input.PrincipalOrgID);
  if (input.FunctionUrlAuthType) add('StringEquals', 'lambda:FunctionUrlAuthType', input.FunctionUrlAuthType);
  if (input.InvokedViaFunctionUrl !== undefined)
    add('Bool', 'lambda:InvokedViaFunctionUrl', String(input.InvokedViaFunctionUrl));
  if (input.SourceArn) add('ArnLike', 'AWS:SourceArn', input.SourceArn);
  return {
    Sid: input.StatementId!,
    Effect: 'Allow',
    Principal: principalElement(input.Principal!),
    Action: input.Action!,
    Resource: resource,
    ...(Object.keys(condition).length ? { Condition: condition } : {}),
  };
}

export function policyDocument(statements: PolicyStatement[]): string {
  return JSON.stringify({ Version: '2012-10-17', Id: 'default', Statement: statements });
}

export class PermissionHandlers {
  readonly operations: Operations = {
    AddPermission: (ctx, input: AddPermissionRequest) => this.addPermission(ctx, input),
    RemovePermission: (
      ctx,
      input: { FunctionName?: string; StatementId?: string; Qualifier?: string; RevisionId?: string },
    ) => {
      const { fn, key } = this.target(ctx, input.FunctionName, input.Qualifier);
      const policy = fn.policies[key];
      const index = policy?.statements.findIndex((s) => s.Sid === input.StatementId) ?? -1;
      if (!policy || index < 0)
        throw new AwsError(
          'ResourceNotFoundException',
          `Statement ${input.StatementId} is not found in resource policy.`,
        );
      assertRevision(input.RevisionId, policy.RevisionId);
      policy.statements.splice(index, 1);
      if (policy.statements.length) policy.RevisionId = randomUUID();
      else delete fn.policies[key];
      return {};
    },
    GetPolicy: (ctx, input: { FunctionName?: string; Qualifier?: string }) => {
      const { fn, key } = this.target(ctx, input.FunctionName, input.Qualifier);
      const policy = fn.policies[key];
      if (!policy)
        throw new AwsError('ResourceNotFoundException', 'The resource you requested does not exist.');
      return { Policy: policyDocument(policy.statements), RevisionId: policy.RevisionId };
    },
  };

  constructor(private readonly lambda: LambdaContext) {}

  /** The function and the policy key (`''`, a version or an alias) a call addresses. */
  private target(
    ctx: CallContext,
    functionName: unknown,
    qualifierMember: unknown,
  ): { fn: LambdaFunction; key: string } {
    const { fn, ref } = this.lambda.find(ctx, functionName);
    const qualifier = resolveQualifier(ref, qualifierMember);
    if (qualifier === '$LATEST')
      throw new AwsError(
        'InvalidParameterValueException',
        'We currently do not support adding policies for $LATEST.',
      );
    if (qualifier !== undefined) resolveIn(fn, qualifier);
    return { fn, key: qualifier ?? '' };
  }

  private addPermission(ctx: CallContext, input: AddPermissionRequest): unknown {
    for (const member of ['StatementId', 'Action', 'Principal'] as const)
      if (!input[member])
        throw validationError(
          member.charAt(0).toLowerCase() + member.slice(1),
          null,
          'Member must not be null',
        );
    if (!/^([a-zA-Z0-9-_.]+)$/.test(input.StatementId!) || input.StatementId!.length > 100)
      throw validationError(
        'statementId',
        input.StatementId,
        'Member must satisfy regular expression pattern: ([a-zA-Z0-9-_.]+)',
      );
    if (!/^(lambda:[*]|lambda:[a-zA-Z]+|[*])$/.test(input.Action!))
      throw validationError(
        'action',
        input.Action,
        'Member must satisfy regular expression pattern: (lambda:[*]|lambda:[a-zA-Z]+|[*])',
      );
    const { fn, key } = this.target(ctx, input.FunctionName, input.Qualifier);
    const policy = fn.policies[key];
    if (policy) assertRevision(input.RevisionId, policy.RevisionId);
    if (policy?.statements.some((s) => s.Sid === input.StatementId))
      throw new AwsError(
        'ResourceConflictException',
        `The statement id (${input.StatementId}) provided already exists. Please provide a new statement id, or remove the existing statement.`,
      );
    const statement = buildStatement(input, functionArn(fn.account, fn.region, fn.name, key || undefined));
    const statements = [...(policy?.statements ?? []), statement];
    const size = Buffer.byteLength(policyDocument(statements));
    if (size > MAX_POLICY_BYTES)
      throw new AwsError(
        'PolicyLengthExceededException',
        `The final policy size (${size}) is bigger than the limit (${MAX_POLICY_BYTES}).`,
      );
    fn.policies[key] = { statements, RevisionId: randomUUID() };
    return { Statement: JSON.stringify(statement) };
  }
}

/** A service invoking a function on someone's behalf (SNS, EventBridge, S3, ...). */
export interface ServiceInvoker {
  /** `sns.amazonaws.com`. */
  servicePrincipal: string;
  /** The topic, rule or bucket ARN (`AWS:SourceArn`). */
  sourceArn: string;
  sourceAccount: string;
}

/** IAM wildcards (`*`, `?`). */
function wildcard(pattern: string, value: string): boolean {
  const re = pattern
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${re}$`).test(value);
}

/**
 * Whether the statements Lambda wrote allow the service to invoke: an Allow for
 * `lambda:InvokeFunction` to its principal whose conditions the call meets
 * (`AWS:SourceArn`, `AWS:SourceAccount`); any other condition fails closed.
 */
export function allowsServiceInvoke(
  statements: readonly PolicyStatement[],
  invoker: ServiceInvoker,
): boolean {
  return statements.some((s) => {
    if (!['lambda:InvokeFunction', 'lambda:*', '*'].includes(s.Action)) return false;
    const principal = s.Principal;
    if (
      principal !== '*' &&
      (typeof principal !== 'object' || principal.Service !== invoker.servicePrincipal)
    )
      return false;
    for (const [operator, keys] of Object.entries(s.Condition ?? {})) {
      for (const [key, expected] of Object.entries(keys)) {
        const value =
          key === 'AWS:SourceArn'
            ? invoker.sourceArn
            : key === 'AWS:SourceAccount'
              ? invoker.sourceAccount
              : undefined;
        if (value === undefined) return false;
        const holds =
          operator === 'ArnLike' || operator === 'StringLike'
            ? wildcard(expected, value)
            : ['ArnEquals', 'StringEquals'].includes(operator) && expected === value;
        if (!holds) return false;
      }
    }
    return true;
  });
}

/**
 * AWS::Lambda::Permission: one statement of a function's resource policy
 * (AddPermission / RemovePermission). The statement id is derived from the
 * create's idempotency token, so a repeated create finds the statement its
 * earlier attempt added (Lambda answers it exists) and adopts it. The
 * physical id is `<FunctionName>|<statement id>`, Cloud Control's identifier.
 */
import {
  AddPermissionCommand,
  GetPolicyCommand,
  RemovePermissionCommand,
  type FunctionUrlAuthType,
} from '@aws-sdk/client-lambda';
import { PERMISSION_TYPE } from './properties';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceDeleteResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
} from '@cdkd/plugin-api';
import { assertUpdateRegion, deleteChecked, lambdaClient, whileUpdating } from './common';
import { errorMessage, errorName, isNotFound, provisioningError } from './errors';
import { physicalName } from './ownership';

/** Statement ids: at most 100 of `[a-zA-Z0-9-_.]`. */
const SID_OPTIONS = { maxLength: 100, extraCharacters: '-_.' };
export const MALFORMED_PERMISSION_ID =
  'the physical id is not "<FunctionName>|<StatementId>", so the statement cannot be addressed; remove it from the function policy yourself (aws lambda remove-permission), then drop the record from state (cdkd state orphan)';

type Props = Record<string, unknown>;

interface Statement {
  Sid: string;
  Principal?: string | { Service?: string; AWS?: string };
  Action?: string;
  Condition?: Record<string, Record<string, string>>;
}

export function splitPermissionId(
  physicalId: string,
): { functionName: string; statementId: string } | undefined {
  const bar = physicalId.lastIndexOf('|');
  if (bar <= 0 || bar === physicalId.length - 1) return undefined;
  return { functionName: physicalId.slice(0, bar), statementId: physicalId.slice(bar + 1) };
}

/** A statement as the template writes the permission. */
function permissionProperties(functionName: string, statement: Statement): Props {
  const principal = statement.Principal;
  const aws = typeof principal === 'object' ? principal.AWS : undefined;
  const condition = statement.Condition ?? {};
  const props: Props = {
    FunctionName: functionName,
    Action: statement.Action,
    Principal:
      typeof principal === 'string'
        ? principal
        : (principal?.Service ?? (aws && /^arn:aws[a-z-]*:iam::(\d{12}):root$/.exec(aws)?.[1]) ?? aws),
  };
  const put = (property: string, value: string | undefined) => {
    if (value !== undefined) props[property] = value;
  };
  put('SourceArn', condition.ArnLike?.['AWS:SourceArn']);
  put('SourceAccount', condition.StringEquals?.['AWS:SourceAccount']);
  put('EventSourceToken', condition.StringEquals?.['lambda:EventSourceToken']);
  put('PrincipalOrgID', condition.StringEquals?.['aws:PrincipalOrgID']);
  put('FunctionUrlAuthType', condition.StringEquals?.['lambda:FunctionUrlAuthType']);
  if (condition.Bool?.['lambda:InvokedViaFunctionUrl'] !== undefined)
    props.InvokedViaFunctionUrl = condition.Bool['lambda:InvokedViaFunctionUrl'] === 'true';
  return props;
}

export class LambdaPermissionProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  async create(
    logicalId: string,
    resourceType: string,
    properties: Props,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const functionName = String(properties.FunctionName);
    const statementId = physicalName(context, logicalId, SID_OPTIONS);
    const physicalId = `${functionName}|${statementId}`;
    const resource = { logicalId, resourceType, physicalId };
    const client = lambdaClient(this.ctx);
    const bool = (v: unknown) => (v === undefined ? undefined : v === true || v === 'true');
    try {
      await whileUpdating(this.ctx, () =>
        client.send(
          new AddPermissionCommand({
            FunctionName: functionName,
            StatementId: statementId,
            Action: String(properties.Action),
            Principal: String(properties.Principal),
            ...(properties.SourceArn !== undefined ? { SourceArn: String(properties.SourceArn) } : {}),
            ...(properties.SourceAccount !== undefined
              ? { SourceAccount: String(properties.SourceAccount) }
              : {}),
            ...(properties.EventSourceToken !== undefined
              ? { EventSourceToken: String(properties.EventSourceToken) }
              : {}),
            ...(properties.PrincipalOrgID !== undefined
              ? { PrincipalOrgID: String(properties.PrincipalOrgID) }
              : {}),
            ...(properties.FunctionUrlAuthType !== undefined
              ? { FunctionUrlAuthType: properties.FunctionUrlAuthType as FunctionUrlAuthType }
              : {}),
            ...(bool(properties.InvokedViaFunctionUrl) !== undefined
              ? { InvokedViaFunctionUrl: bool(properties.InvokedViaFunctionUrl) }
              : {}),
          }),
          { abortSignal: context.signal },
        ),
      );
    } catch (err) {
      // The id is this create's own: the statement is what an earlier attempt added.
      if (!(errorName(err) === 'ResourceConflictException' && /already exists/.test(errorMessage(err))))
        throw provisioningError(
          this.ctx,
          err,
          `adding permission ${statementId} to ${functionName}`,
          resource,
        );
      this.ctx.logger.debug(
        `${logicalId}: statement ${statementId} was added by an earlier attempt of this create`,
      );
    }
    return { physicalId, attributes: { Id: statementId } };
  }

  /** Every property is create-only: a change is a replacement, decided by cdkd. */
  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties: Props,
    _previous: Props,
    context?: { expectedRegion?: string },
  ): Promise<ResourceUpdateResult> {
    await assertUpdateRegion(this.ctx, { logicalId, resourceType, physicalId }, context?.expectedRegion);
    return { physicalId, wasReplaced: false, attributes: { Id: splitPermissionId(physicalId)?.statementId } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Props,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult> {
    const parts = splitPermissionId(physicalId);
    if (!parts) {
      this.ctx.logger.warn(`${logicalId}: ${MALFORMED_PERMISSION_ID}`);
      return { outcome: 'skipped', reason: MALFORMED_PERMISSION_ID };
    }
    // A function that is gone took its policy with it: not found is deleted.
    await deleteChecked(
      this.ctx,
      { logicalId, resourceType, physicalId },
      context,
      `removing permission ${physicalId}`,
      () =>
        whileUpdating(this.ctx, () =>
          lambdaClient(this.ctx).send(
            new RemovePermissionCommand({ FunctionName: parts.functionName, StatementId: parts.statementId }),
            { abortSignal: context?.signal },
          ),
        ),
    );
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Id' ? splitPermissionId(physicalId)?.statementId : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Props | undefined> {
    const parts = splitPermissionId(physicalId);
    if (!parts) return undefined;
    try {
      const out = await lambdaClient(this.ctx).send(
        new GetPolicyCommand({ FunctionName: parts.functionName }),
      );
      const statements = (JSON.parse(out.Policy ?? '{}') as { Statement?: Statement[] }).Statement ?? [];
      const statement = statements.find((s) => s.Sid === parts.statementId);
      return statement ? permissionProperties(parts.functionName, statement) : undefined;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading the policy of ${parts.functionName}`, {
        resourceType: PERMISSION_TYPE,
        physicalId,
      });
    }
  }

  /** A statement is named by the user (`<FunctionName>|<StatementId>`); there is nothing to look it up by. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    if (!input.knownPhysicalId) return null;
    const found = await this.readCurrentState(input.knownPhysicalId);
    return found
      ? {
          physicalId: input.knownPhysicalId,
          attributes: { Id: splitPermissionId(input.knownPhysicalId)?.statementId },
        }
      : null;
  }
}

/**
 * AWS::Logs::LogGroup through the CloudWatch Logs API. The physical id is the
 * log group name (CloudFormation's `Ref`); `Arn` is the ARN with the `:*`
 * suffix CloudFormation returns.
 *
 * Create is idempotent across processes: a log group whose template gives no
 * name gets one derived from the create's token (`generatePhysicalName`), and
 * every log group carries the ownership tags. Names are regional, so a
 * `ResourceAlreadyExistsException` names a group in this region: it is
 * adopted only when its tags show this very create made it (an earlier
 * attempt whose reply was lost, or a process that died), and then brought to
 * the template's settings; anything else is refused with ResourceExistsError.
 * A create that fails after CreateLogGroup deletes the group it made.
 */
import {
  AssociateKmsKeyCommand,
  CloudWatchLogsClient,
  CreateLogGroupCommand,
  DeleteDataProtectionPolicyCommand,
  DeleteIndexPolicyCommand,
  DeleteLogGroupCommand,
  DeleteResourcePolicyCommand,
  DeleteRetentionPolicyCommand,
  DescribeIndexPoliciesCommand,
  DescribeLogGroupsCommand,
  DescribeResourcePoliciesCommand,
  DisassociateKmsKeyCommand,
  GetDataProtectionPolicyCommand,
  ListTagsForResourceCommand,
  PutBearerTokenAuthenticationCommand,
  PutDataProtectionPolicyCommand,
  PutIndexPolicyCommand,
  PutLogGroupDeletionProtectionCommand,
  PutResourcePolicyCommand,
  PutRetentionPolicyCommand,
  TagResourceCommand,
  UntagResourceCommand,
  type LogGroup,
} from '@aws-sdk/client-cloudwatch-logs';
import type {
  CreateContext,
  DeleteContext,
  ProviderContext,
  ResourceCreateResult,
  ResourceImportInput,
  ResourceImportResult,
  ResourceProvider,
  ResourceUpdateResult,
  UpdateContext,
} from '@cdkd/plugin-api';
import {
  LOG_GROUP_NAME_EXTRA_CHARACTERS,
  LOG_GROUP_NAME_MAX_LENGTH,
  logGroupClassOf,
  planLogGroup,
  tagMap,
  type Step,
} from './log-group-plan';

export const LOG_GROUP_TYPE = 'AWS::Logs::LogGroup';

/** The AWS error name of an SDK error (`ResourceNotFoundException`), or `''`. */
function errorName(err: unknown): string {
  return typeof err === 'object' && err !== null && typeof (err as { name?: unknown }).name === 'string'
    ? (err as { name: string }).name
    : '';
}

const isNotFound = (err: unknown) => errorName(err) === 'ResourceNotFoundException';

/** Tags cdkd and AWS manage, left out of what drift compares with the template. */
const MANAGED_TAG = /^(cdkd|aws):/;

export class LogGroupProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): CloudWatchLogsClient {
    return this.ctx.clients.get(CloudWatchLogsClient);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const name =
      typeof properties.LogGroupName === 'string' && properties.LogGroupName !== ''
        ? properties.LogGroupName
        : this.generatedName(logicalId, context);
    const abortSignal = context.signal;
    const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
    // True once the group exists and is this create's: a failure from here on deletes it.
    let owned = false;
    try {
      await this.client().send(
        new CreateLogGroupCommand({
          logGroupName: name,
          logGroupClass: logGroupClassOf(properties) as LogGroup['logGroupClass'],
          ...(typeof properties.KmsKeyId === 'string' ? { kmsKeyId: properties.KmsKeyId } : {}),
          ...(Object.keys(tags).length ? { tags } : {}),
        }),
        { abortSignal },
      );
    } catch (err) {
      if (errorName(err) !== 'ResourceAlreadyExistsException')
        throw this.wrap(err, `creating log group ${name}`, logicalId, resourceType);
      await this.adoptOnlyOwn(name, logicalId, resourceType, context, err);
    }
    owned = true;
    try {
      await this.apply(name, planLogGroup(properties, {}, true), abortSignal);
    } catch (err) {
      if (owned) await this.retire(name, logicalId);
      throw this.wrap(err, `configuring log group ${name}`, logicalId, resourceType, name);
    }
    return { physicalId: name, attributes: await this.attributesOf(name) };
  }

  private generatedName(logicalId: string, context: CreateContext): string {
    const options = {
      maxLength: LOG_GROUP_NAME_MAX_LENGTH,
      extraCharacters: LOG_GROUP_NAME_EXTRA_CHARACTERS,
    };
    if (context.generatePhysicalName) return context.generatePhysicalName(options);
    // cdkd before generatePhysicalName: the same shape, from the token.
    const clean = (s: string) => s.replace(/[^A-Za-z0-9._\-/#]/g, '');
    return `${clean(context.stackName)}-${clean(logicalId)}-${clean(context.idempotencyToken)}`.slice(
      0,
      LOG_GROUP_NAME_MAX_LENGTH,
    );
  }

  /** An existing group of that name is this create's only when its ownership tags say so. */
  private async adoptOnlyOwn(
    name: string,
    logicalId: string,
    resourceType: string,
    context: CreateContext,
    cause: unknown,
  ): Promise<void> {
    const ExistsError = this.ctx.errors.ResourceExistsError ?? this.ctx.errors.ProvisioningError;
    const refuse = (whose: string) =>
      new ExistsError(`A log group named ${name} already exists (${whose}); cdkd does not take it over.`, {
        cause,
        resource: { logicalId, resourceType, physicalId: name },
        remedy: `Give ${logicalId} another LogGroupName, delete the existing log group, or import it into this stack.`,
      });
    if (!context.ownership) throw refuse('and this cdkd cannot tell who made it');
    let tags: Record<string, string> | undefined;
    try {
      tags = (
        await this.client().send(new ListTagsForResourceCommand({ resourceArn: await this.arnOf(name) }), {
          abortSignal: context.signal,
        })
      ).tags;
    } catch (err) {
      throw this.wrap(err, `reading the tags of log group ${name}`, logicalId, resourceType, name);
    }
    const verdict = context.ownership.classify(tags);
    if (verdict !== 'same-intent')
      throw refuse(
        verdict === 'same-resource' ? 'made by an earlier create of this resource' : 'not made by this stack',
      );
    this.ctx.logger.debug(`${logicalId}: log group ${name} was made by this create earlier; adopting it`);
  }

  /** Best-effort delete of a group this create made, so a failed create leaves nothing behind. */
  private async retire(name: string, logicalId: string): Promise<void> {
    try {
      await this.client().send(new DeleteLogGroupCommand({ logGroupName: name }));
    } catch (err) {
      this.ctx.logger.warn(
        `${logicalId}: the log group ${name} was created but could not be configured, and deleting it failed (${errorName(err) || String(err)}); delete it with \`aws logs delete-log-group --log-group-name ${name}\`.`,
      );
    }
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const from = logGroupClassOf(previousProperties);
    const to = logGroupClassOf(properties);
    if (from !== to)
      throw new this.ctx.errors.ProvisioningError(
        `The log group class of ${physicalId} cannot change from ${from} to ${to}: CloudWatch Logs fixes a log group's class when it is created.`,
        {
          resource: { logicalId, resourceType, physicalId },
          remedy: `Keep LogGroupClass ${from}, or give ${logicalId} a new LogGroupName so it is replaced by a ${to} log group.`,
        },
      );
    try {
      await this.apply(physicalId, planLogGroup(properties, previousProperties, false), context?.signal);
    } catch (err) {
      throw this.wrap(err, `updating log group ${physicalId}`, logicalId, resourceType, physicalId);
    }
    return { physicalId, wasReplaced: false, attributes: await this.attributesOf(physicalId) };
  }

  private async apply(name: string, steps: Step[], abortSignal?: AbortSignal): Promise<void> {
    const client = this.client();
    const options = { abortSignal };
    for (const step of steps) {
      switch (step.kind) {
        case 'putRetention':
          await client.send(
            new PutRetentionPolicyCommand({ logGroupName: name, retentionInDays: step.days }),
            options,
          );
          break;
        case 'deleteRetention':
          await client.send(new DeleteRetentionPolicyCommand({ logGroupName: name }), options);
          break;
        case 'associateKmsKey':
          await client.send(
            new AssociateKmsKeyCommand({ logGroupName: name, kmsKeyId: step.kmsKeyId }),
            options,
          );
          break;
        case 'disassociateKmsKey':
          await client.send(new DisassociateKmsKeyCommand({ logGroupName: name }), options);
          break;
        case 'putDataProtectionPolicy':
          await client.send(
            new PutDataProtectionPolicyCommand({ logGroupIdentifier: name, policyDocument: step.document }),
            options,
          );
          break;
        case 'deleteDataProtectionPolicy':
          await this.ignoringNotFound(
            client.send(new DeleteDataProtectionPolicyCommand({ logGroupIdentifier: name }), options),
          );
          break;
        case 'putIndexPolicy':
          await client.send(
            new PutIndexPolicyCommand({ logGroupIdentifier: name, policyDocument: step.document }),
            options,
          );
          break;
        case 'deleteIndexPolicy':
          await this.ignoringNotFound(
            client.send(new DeleteIndexPolicyCommand({ logGroupIdentifier: name }), options),
          );
          break;
        case 'putResourcePolicy':
          await client.send(
            new PutResourcePolicyCommand({
              resourceArn: await this.arnOf(name),
              policyDocument: step.document,
            }),
            options,
          );
          break;
        case 'deleteResourcePolicy':
          await this.ignoringNotFound(
            client.send(new DeleteResourcePolicyCommand({ resourceArn: await this.arnOf(name) }), options),
          );
          break;
        case 'setBearerTokenAuthentication':
          await client.send(
            new PutBearerTokenAuthenticationCommand({
              logGroupIdentifier: name,
              bearerTokenAuthenticationEnabled: step.enabled,
            }),
            options,
          );
          break;
        case 'untag':
          await client.send(
            new UntagResourceCommand({ resourceArn: await this.arnOf(name), tagKeys: step.keys }),
            options,
          );
          break;
        case 'tag':
          await client.send(
            new TagResourceCommand({ resourceArn: await this.arnOf(name), tags: step.tags }),
            options,
          );
          break;
        case 'setDeletionProtection':
          await client.send(
            new PutLogGroupDeletionProtectionCommand({
              logGroupIdentifier: name,
              deletionProtectionEnabled: step.enabled,
            }),
            options,
          );
          break;
      }
    }
  }

  /** A policy already gone is what a removal wants (the group itself must exist: that error still surfaces). */
  private async ignoringNotFound(call: Promise<unknown>): Promise<void> {
    try {
      await call;
    } catch (err) {
      const message = err instanceof Error ? err.message : '';
      if (!(isNotFound(err) && /policy/i.test(message))) throw err;
    }
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    const client = this.client();
    try {
      await client.send(new DeleteLogGroupCommand({ logGroupName: physicalId }), {
        abortSignal: context?.signal,
      });
    } catch (err) {
      if (isNotFound(err)) {
        // "Gone" only when we looked in the region the group was created in.
        this.ctx.assertRegionMatch(
          await client.config.region(),
          context?.expectedRegion,
          resourceType,
          logicalId,
          physicalId,
        );
        this.ctx.logger.debug(`${logicalId}: log group ${physicalId} does not exist; nothing to delete`);
        return;
      }
      throw this.wrap(err, `deleting log group ${physicalId}`, logicalId, resourceType, physicalId, {
        remedy:
          errorName(err) === 'ValidationException'
            ? `If deletion protection is on, set DeletionProtectionEnabled to false on ${logicalId} and deploy before destroying.`
            : undefined,
      });
    }
  }

  /** `Arn` derives from the name: no AWS call beyond the (cached) account id. */
  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Arn' ? `${await this.arnOf(physicalId)}:*` : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const client = this.client();
    try {
      const group = await this.describe(physicalId);
      if (!group) return undefined;
      const arn = await this.arnOf(physicalId);
      const [tags, dataProtection, index, policies] = await Promise.all([
        client.send(new ListTagsForResourceCommand({ resourceArn: arn })),
        client.send(new GetDataProtectionPolicyCommand({ logGroupIdentifier: physicalId })),
        client.send(new DescribeIndexPoliciesCommand({ logGroupIdentifiers: [physicalId] })),
        client.send(new DescribeResourcePoliciesCommand({ resourceArn: arn })),
      ]);
      const parse = (doc: string | undefined) => (doc ? (JSON.parse(doc) as unknown) : undefined);
      const resourcePolicy = policies.resourcePolicies?.find((p) => p.policyScope === 'RESOURCE');
      return {
        LogGroupName: physicalId,
        LogGroupClass: group.logGroupClass ?? 'STANDARD',
        KmsKeyId: group.kmsKeyId ?? '',
        DeletionProtectionEnabled: group.deletionProtectionEnabled ?? false,
        BearerTokenAuthenticationEnabled: group.bearerTokenAuthenticationEnabled ?? false,
        ...(group.retentionInDays !== undefined ? { RetentionInDays: group.retentionInDays } : {}),
        ...(dataProtection.policyDocument
          ? { DataProtectionPolicy: parse(dataProtection.policyDocument) }
          : {}),
        ...(index.indexPolicies?.length
          ? { FieldIndexPolicies: [parse(index.indexPolicies[0]!.policyDocument)] }
          : {}),
        ...(resourcePolicy?.policyDocument
          ? { ResourcePolicyDocument: parse(resourcePolicy.policyDocument) }
          : {}),
        Tags: Object.entries(tags.tags ?? {})
          .filter(([k]) => !MANAGED_TAG.test(k))
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([Key, Value]) => ({ Key, Value })),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw this.wrap(err, `reading log group ${physicalId}`, undefined, LOG_GROUP_TYPE, physicalId);
    }
  }

  /** Adopts the log group named by the user's physical id or the template's LogGroupName. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const name =
      input.knownPhysicalId ??
      (typeof input.properties.LogGroupName === 'string' ? input.properties.LogGroupName : undefined);
    if (!name) return null;
    try {
      if (!(await this.describe(name))) return null;
    } catch (err) {
      throw this.wrap(err, `looking up log group ${name}`, input.logicalId, input.resourceType);
    }
    return { physicalId: name, attributes: await this.attributesOf(name) };
  }

  /** The group of exactly this name (DescribeLogGroups matches by prefix). */
  private async describe(name: string): Promise<LogGroup | undefined> {
    const out = await this.client().send(new DescribeLogGroupsCommand({ logGroupIdentifiers: [name] }));
    return out.logGroups?.find((g) => g.logGroupName === name);
  }

  /** `arn:<partition>:logs:<region>:<account>:log-group:<name>`: the form tagging and policies take. */
  private async arnOf(name: string): Promise<string> {
    return `arn:${this.ctx.partition}:logs:${this.ctx.region}:${await this.ctx.accountId()}:log-group:${name}`;
  }

  private async attributesOf(name: string): Promise<Record<string, string>> {
    return { Arn: `${await this.arnOf(name)}:*` };
  }

  private wrap(
    err: unknown,
    doing: string,
    logicalId: string | undefined,
    resourceType: string,
    physicalId?: string,
    extra: { remedy?: string } = {},
  ): Error {
    if (this.ctx.errors.isCdkdError(err)) return err as Error;
    const name = errorName(err);
    const message = err instanceof Error ? err.message : String(err);
    return new this.ctx.errors.ProvisioningError(
      `CloudWatch Logs ${name ? `${name} ` : ''}while ${doing}: ${message}`,
      {
        cause: err,
        resource: { logicalId, resourceType, physicalId },
        retryable: this.ctx.isTransientError(err),
        ...(extra.remedy ? { remedy: extra.remedy } : {}),
      },
    );
  }
}

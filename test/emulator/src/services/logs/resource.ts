/**
 * A log group seen as the CloudFormation resource `AWS::Logs::LogGroup`, and
 * the provider that lets Cloud Control create, read, update and delete log
 * groups in CloudWatch Logs' own store (identifier: the log group name).
 */
import { upperAlnum, uuid } from '../../core/ids';
import {
  alreadyExists,
  HandlerError,
  inventoryItems,
  notFound,
  serviceFailure,
  type ResourceProvider,
  type ResourceScope,
  type StoredResource,
} from '../../core/resources';
import type { ResourceSchema } from '../../core/resource-schema';
import type { InventoryItem, InventoryView } from '../../core/service';
import {
  logGroupWildcardArn,
  validateKmsKeyArn,
  validateRetention,
  validateTags,
  type LogGroup,
  type LogsStore,
} from './store';

const TYPE = 'AWS::Logs::LogGroup';

function parsed(document: string): unknown {
  return JSON.parse(document) as unknown;
}

/** A JSON property (an object, or a string holding one) as the document CloudWatch Logs stores. */
function documentOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The log group's CloudFormation properties, read-only ones included. */
export function logGroupProperties(group: LogGroup): Record<string, unknown> {
  const tags = Object.entries(group.tags);
  return {
    LogGroupName: group.name,
    Arn: logGroupWildcardArn(group),
    ...(group.retentionInDays !== undefined ? { RetentionInDays: group.retentionInDays } : {}),
    ...(group.kmsKeyId !== undefined ? { KmsKeyId: group.kmsKeyId } : {}),
    LogGroupClass: group.logGroupClass,
    ...(group.dataProtectionPolicy
      ? { DataProtectionPolicy: parsed(group.dataProtectionPolicy.document) }
      : {}),
    ...(group.indexPolicy ? { FieldIndexPolicies: [parsed(group.indexPolicy.document)] } : {}),
    ...(group.resourcePolicy ? { ResourcePolicyDocument: parsed(group.resourcePolicy.document) } : {}),
    DeletionProtectionEnabled: group.deletionProtectionEnabled,
    BearerTokenAuthenticationEnabled: group.bearerTokenAuthenticationEnabled,
    ...(tags.length ? { Tags: tags.map(([Key, Value]) => ({ Key, Value })) } : {}),
  };
}

function tagsOf(props: Record<string, unknown>): Record<string, string> {
  const tags: Record<string, string> = {};
  if (Array.isArray(props.Tags))
    for (const t of props.Tags as Array<{ Key: string; Value: string }>) tags[t.Key] = t.Value;
  return tags;
}

/**
 * Sets every mutable property from a desired model (validated first, so a bad
 * value changes nothing); what the model leaves out goes back to its default.
 */
function applyMutable(group: LogGroup, desired: Record<string, unknown>): void {
  const retention =
    desired.RetentionInDays !== undefined ? validateRetention(desired.RetentionInDays) : undefined;
  const kms = desired.KmsKeyId as string | undefined;
  if (kms !== undefined) validateKmsKeyArn(kms, group.region);
  const tags = tagsOf(desired);
  validateTags(tags);
  const dataProtection = documentOf(desired.DataProtectionPolicy);
  const index = Array.isArray(desired.FieldIndexPolicies)
    ? documentOf(desired.FieldIndexPolicies[0])
    : undefined;
  const resourcePolicy = documentOf(desired.ResourcePolicyDocument);
  const now = Date.now();

  if (retention !== undefined) group.retentionInDays = retention;
  else delete group.retentionInDays;
  if (kms !== undefined) group.kmsKeyId = kms;
  else delete group.kmsKeyId;
  if (dataProtection) group.dataProtectionPolicy = { document: dataProtection, lastUpdated: now };
  else delete group.dataProtectionPolicy;
  if (index) group.indexPolicy = { document: index, lastUpdated: now };
  else delete group.indexPolicy;
  if (resourcePolicy)
    group.resourcePolicy = { document: resourcePolicy, lastUpdated: now, revisionId: uuid() };
  else delete group.resourcePolicy;
  group.deletionProtectionEnabled = desired.DeletionProtectionEnabled === true;
  group.bearerTokenAuthenticationEnabled = desired.BearerTokenAuthenticationEnabled === true;
  group.tags = tags;
}

export class LogGroupProvider implements ResourceProvider {
  readonly typeName = TYPE;

  constructor(private readonly logs: LogsStore) {}

  inventory(_view: InventoryView): InventoryItem[] {
    return inventoryItems(this.typeName, this.logs.groups.values(), (g) => ({
      identifier: g.name,
      model: logGroupProperties(g),
    }));
  }

  create(scope: ResourceScope, _schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name =
      typeof desired.LogGroupName === 'string' ? desired.LogGroupName : `LogGroup-${upperAlnum(12)}`;
    if (this.logs.get(scope.account, scope.region, name)) throw alreadyExists(TYPE, name);
    let group: LogGroup | undefined;
    try {
      group = this.logs.create(scope.account, scope.region, name, {
        logGroupClass: desired.LogGroupClass as string | undefined,
      });
      applyMutable(group, desired);
    } catch (err) {
      if (group) this.logs.groups.delete(`${scope.account}|${scope.region}|${name}`);
      throw serviceFailure(err, 'CloudWatchLogs');
    }
    return { identifier: name, model: logGroupProperties(group) };
  }

  read(scope: ResourceScope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const group = this.logs.get(scope.account, scope.region, identifier);
    return group ? { identifier, model: logGroupProperties(group) } : undefined;
  }

  update(
    scope: ResourceScope,
    _schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const group = this.logs.get(scope.account, scope.region, identifier);
    if (!group) throw notFound(TYPE, identifier);
    const wantedClass = (desired.LogGroupClass as string | undefined) ?? 'STANDARD';
    if (wantedClass !== group.logGroupClass)
      throw new HandlerError(
        'InvalidRequest',
        `The log group class of ${identifier} is ${group.logGroupClass}; it cannot be changed after the log group is created.`,
      );
    try {
      applyMutable(group, desired);
    } catch (err) {
      throw serviceFailure(err, 'CloudWatchLogs');
    }
    return { identifier, model: logGroupProperties(group) };
  }

  delete(scope: ResourceScope, _schema: ResourceSchema, identifier: string): void {
    const group = this.logs.get(scope.account, scope.region, identifier);
    if (!group) throw notFound(TYPE, identifier);
    try {
      this.logs.delete(group);
    } catch (err) {
      throw serviceFailure(err, 'CloudWatchLogs');
    }
  }

  list(scope: ResourceScope): StoredResource[] {
    return this.logs
      .list(scope.account, scope.region)
      .map((g) => ({ identifier: g.name, model: logGroupProperties(g) }));
  }
}

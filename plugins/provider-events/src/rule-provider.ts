/**
 * AWS::Events::Rule through the EventBridge API. The physical id is the rule
 * ARN (Cloud Control's identifier; records holding CloudFormation's `name` or
 * `bus|name` are read too).
 *
 * PutRule creates a rule or silently replaces the one of that name, so a
 * create looks first: an existing rule is adopted only when its ownership
 * tags show this very create made it (an earlier attempt whose reply was
 * lost), and refused with `ResourceExistsError` otherwise. A rule whose
 * template gives no `Name` gets one derived from the create's token. Updates
 * put the whole rule again (PutRule keeps nothing it is not given, so a
 * dropped property is reset), reconcile the tags (keeping the ownership
 * tags) and the targets by id: added or changed ones are put, removed ones
 * removed. A rule's targets go before the rule on delete (EventBridge
 * refuses to delete a rule that has targets).
 */
import { createHash } from 'node:crypto';
import {
  DeleteRuleCommand,
  DescribeRuleCommand,
  EventBridgeClient,
  ListTagsForResourceCommand,
  ListTargetsByRuleCommand,
  PutRuleCommand,
  PutTargetsCommand,
  RemoveTargetsCommand,
  type Target,
} from '@aws-sdk/client-eventbridge';
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
import { errorMessage, existsError, isNotFound, provisioningError } from './events-errors';
import { readTags, reconcileTags, tagMap } from './tags';
import {
  busName,
  DEFAULT_BUS,
  patternText,
  ruleArn,
  ruleIdentity,
  targetChanges,
  targetFromSdk,
  targetsById,
  targetToSdk,
  type RuleIdentity,
} from './rule-properties';

export const RULE_TYPE = 'AWS::Events::Rule';

/** Rule names: 64 characters of `[.\-_A-Za-z0-9]`. */
const MAX_NAME_LENGTH = 64;
/** PutTargets and RemoveTargets take at most 10 entries per call. */
const BATCH = 10;

export class EventsRuleProvider implements ResourceProvider {
  constructor(private readonly ctx: ProviderContext) {}

  private client(): EventBridgeClient {
    return this.ctx.clients.get(EventBridgeClient);
  }

  private async arnOf(id: RuleIdentity): Promise<string> {
    return ruleArn(this.ctx.partition, this.ctx.region, await this.ctx.accountId(), id);
  }

  async create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult> {
    const name =
      typeof properties.Name === 'string' && properties.Name !== ''
        ? properties.Name
        : (context.generatePhysicalName?.({ maxLength: MAX_NAME_LENGTH, extraCharacters: '.-_' }) ??
          fallbackName(context.stackName, logicalId, context.idempotencyToken));
    const id: RuleIdentity = { bus: busName(properties.EventBusName), name };
    const arn = await this.arnOf(id);
    const resource = { logicalId, resourceType, physicalId: arn };
    const signal = context.signal;
    const client = this.client();
    let adopted = false;
    try {
      if (await this.exists(id, signal)) {
        const tags = (
          await client.send(new ListTagsForResourceCommand({ ResourceARN: arn }), { abortSignal: signal })
        ).Tags;
        const verdict = context.ownership?.classify(tags) ?? 'foreign';
        if (verdict !== 'same-intent')
          throw existsError(
            this.ctx,
            `rule ${name} on event bus ${id.bus}`,
            logicalId,
            resourceType,
            verdict,
            `Give ${logicalId} another Name, or delete or import the existing rule.`,
          );
        adopted = true;
      }
      const tags = { ...tagMap(properties.Tags), ...(context.ownership?.tags ?? {}) };
      await this.putRule(
        id,
        properties,
        Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        signal,
      );
    } catch (err) {
      throw provisioningError(this.ctx, err, `creating rule ${name}`, resource);
    }
    try {
      const targets = [...targetsById(properties).values()];
      if (adopted) {
        // An earlier attempt may have put other targets: keep exactly the template's.
        const current = (await this.targetsOf(id, signal))
          .map((t) => t.Id!)
          .filter((t) => !targets.some((d) => d.Id === t));
        await this.removeTargets(id, current, signal);
      }
      await this.putTargets(id, targets, signal);
    } catch (err) {
      if (!adopted) await this.deleteQuietly(id, logicalId);
      throw provisioningError(this.ctx, err, `putting the targets of rule ${name}`, resource);
    }
    return { physicalId: arn, attributes: { Arn: arn } };
  }

  async update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult> {
    const client = this.client();
    this.ctx.assertRegionMatch(
      await client.config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-update',
    );
    const id = ruleIdentity(physicalId);
    const arn = await this.arnOf(id);
    const signal = context?.signal;
    try {
      // PutRule on an existing rule ignores tags: they are reconciled below.
      await this.putRule(id, properties, undefined, signal);
      await reconcileTags(client, arn, properties.Tags, previousProperties.Tags, signal);
      const { put, remove: gone } = targetChanges(properties, previousProperties);
      await this.removeTargets(id, gone, signal);
      await this.putTargets(id, put, signal);
    } catch (err) {
      throw provisioningError(this.ctx, err, `updating rule ${id.name}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
    return { physicalId: arn, wasReplaced: false, attributes: { Arn: arn } };
  }

  async delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    _properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void> {
    // DeleteRule succeeds for a rule that does not exist: check the region before.
    this.ctx.assertRegionMatch(
      await this.client().config.region(),
      context?.expectedRegion,
      resourceType,
      logicalId,
      physicalId,
      'pre-delete',
    );
    const id = ruleIdentity(physicalId);
    const signal = context?.signal;
    try {
      await this.removeTargets(
        id,
        (await this.targetsOf(id, signal)).map((t) => t.Id!),
        signal,
      );
      await this.client().send(new DeleteRuleCommand({ Name: id.name, EventBusName: id.bus }), {
        abortSignal: signal,
      });
    } catch (err) {
      if (isNotFound(err)) return;
      throw provisioningError(this.ctx, err, `deleting rule ${id.name}`, {
        logicalId,
        resourceType,
        physicalId,
      });
    }
  }

  async getAttribute(physicalId: string, _resourceType: string, attributeName: string): Promise<unknown> {
    return attributeName === 'Arn' ? this.arnOf(ruleIdentity(physicalId)) : undefined;
  }

  async readCurrentState(physicalId: string): Promise<Record<string, unknown> | undefined> {
    const id = ruleIdentity(physicalId);
    const client = this.client();
    try {
      const rule = await client.send(new DescribeRuleCommand({ Name: id.name, EventBusName: id.bus }));
      const [targets, tags] = await Promise.all([
        this.targetsOf(id),
        client.send(new ListTagsForResourceCommand({ ResourceARN: rule.Arn })),
      ]);
      return {
        Name: rule.Name,
        ...(id.bus !== DEFAULT_BUS ? { EventBusName: id.bus } : {}),
        EventPattern: rule.EventPattern ? (JSON.parse(rule.EventPattern) as unknown) : {},
        ScheduleExpression: rule.ScheduleExpression ?? '',
        State: rule.State ?? 'ENABLED',
        Description: rule.Description ?? '',
        RoleArn: rule.RoleArn ?? '',
        Targets: targets.map((t) => targetFromSdk(t as unknown as Record<string, unknown>)),
        Tags: readTags(tags.Tags),
      };
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw provisioningError(this.ctx, err, `reading rule ${id.name}`, {
        resourceType: RULE_TYPE,
        physicalId,
      });
    }
  }

  /** Adopts the rule the user names (ARN, `bus|name` or name) or the template's Name. */
  async import(input: ResourceImportInput): Promise<ResourceImportResult | null> {
    const known =
      input.knownPhysicalId ??
      (typeof input.properties.Name === 'string' ? input.properties.Name : undefined);
    if (!known) return null;
    const id = input.knownPhysicalId
      ? ruleIdentity(known)
      : { bus: busName(input.properties.EventBusName), name: known };
    if (!(await this.exists(id))) return null;
    const arn = await this.arnOf(id);
    return { physicalId: arn, attributes: { Arn: arn } };
  }

  // -------------------------------------------------------------------------

  private async exists(id: RuleIdentity, signal?: AbortSignal): Promise<boolean> {
    try {
      await this.client().send(new DescribeRuleCommand({ Name: id.name, EventBusName: id.bus }), {
        abortSignal: signal,
      });
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }

  /** PutRule with every setting of the template (what it leaves out, PutRule does not keep). */
  private async putRule(
    id: RuleIdentity,
    properties: Record<string, unknown>,
    tags: Array<{ Key: string; Value: string }> | undefined,
    signal?: AbortSignal,
  ): Promise<void> {
    const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);
    await this.client().send(
      new PutRuleCommand({
        Name: id.name,
        EventBusName: id.bus,
        EventPattern: patternText(properties.EventPattern),
        ScheduleExpression: str(properties.ScheduleExpression),
        State: (str(properties.State) ?? 'ENABLED') as PutRuleCommand['input']['State'],
        Description: typeof properties.Description === 'string' ? properties.Description : undefined,
        RoleArn: str(properties.RoleArn),
        ...(tags?.length ? { Tags: tags } : {}),
      }),
      { abortSignal: signal },
    );
  }

  private async targetsOf(id: RuleIdentity, signal?: AbortSignal): Promise<Target[]> {
    const out: Target[] = [];
    let NextToken: string | undefined;
    do {
      const page = await this.client().send(
        new ListTargetsByRuleCommand({ Rule: id.name, EventBusName: id.bus, NextToken }),
        { abortSignal: signal },
      );
      out.push(...(page.Targets ?? []));
      NextToken = page.NextToken;
    } while (NextToken);
    return out;
  }

  private async putTargets(id: RuleIdentity, targets: Array<Record<string, unknown>>, signal?: AbortSignal) {
    for (let i = 0; i < targets.length; i += BATCH) {
      const out = await this.client().send(
        new PutTargetsCommand({
          Rule: id.name,
          EventBusName: id.bus,
          Targets: targets.slice(i, i + BATCH).map((t) => targetToSdk(t) as unknown as Target),
        }),
        { abortSignal: signal },
      );
      if (out.FailedEntryCount)
        throw new Error(
          `PutTargets failed for ${(out.FailedEntries ?? []).map((f) => `${f.TargetId} (${f.ErrorCode}: ${f.ErrorMessage})`).join(', ')}`,
        );
    }
  }

  private async removeTargets(id: RuleIdentity, ids: string[], signal?: AbortSignal) {
    for (let i = 0; i < ids.length; i += BATCH) {
      const out = await this.client().send(
        new RemoveTargetsCommand({ Rule: id.name, EventBusName: id.bus, Ids: ids.slice(i, i + BATCH) }),
        { abortSignal: signal },
      );
      if (out.FailedEntryCount)
        throw new Error(
          `RemoveTargets failed for ${(out.FailedEntries ?? []).map((f) => `${f.TargetId} (${f.ErrorCode}: ${f.ErrorMessage})`).join(', ')}`,
        );
    }
  }

  /** Retires a rule this create made before its error leaves, so nothing is left untracked. */
  private async deleteQuietly(id: RuleIdentity, logicalId: string): Promise<void> {
    try {
      await this.removeTargets(
        id,
        (await this.targetsOf(id)).map((t) => t.Id!),
      );
      await this.client().send(new DeleteRuleCommand({ Name: id.name, EventBusName: id.bus }));
    } catch (err) {
      this.ctx.logger.warn(
        `${logicalId}: could not delete rule ${id.name} on ${id.bus} after the failed create (${errorMessage(err)}); delete it by hand.`,
      );
    }
  }
}

/**
 * A CloudFormation-style name for a cdkd without `generatePhysicalName`:
 * `<stack>-<logicalId>-<suffix>` within 64 characters, the suffix from the
 * create's token so a repeated create names the same rule.
 */
function fallbackName(stackName: string, logicalId: string, token: string): string {
  const suffix = createHash('sha256').update(token).digest('hex').slice(0, 12).toUpperCase();
  const clean = (s: string) => s.replace(/[^.\-_A-Za-z0-9]/g, '');
  return `${`${clean(stackName)}-${clean(logicalId)}`.slice(0, MAX_NAME_LENGTH - suffix.length - 1)}-${suffix}`;
}

/**
 * PutEvents and TestEventPattern, and routing: an event put on a bus goes
 * to the targets of every enabled rule whose pattern matches it, each
 * receiving the event or its transformed input. SQS queues get it through
 * SQS's api and SNS topics through SNS's (as `events.amazonaws.com`, so the
 * queue or topic policy must allow it, as on AWS); Lambda functions through
 * the Lambda service's api when the emulator has one. Other targets are not
 * contacted. A failed delivery goes to the target's dead-letter queue when
 * it has one. Every attempt is in the delivery log. Scheduled rules do not
 * fire in the emulator.
 */
import { AwsError } from '../../core/errors';
import { matchesPattern } from '../../core/event-patterns';
import { uuid } from '../../core/ids';
import { lambdaInvoker } from '../../core/lambda-invoke';
import { evaluateResourcePolicy } from '../../core/resource-policy';
import type { CallContext, Operations, Platform } from '../../core/service';
import type { SqsDeliveryApi } from '../sqs/message-operations';
import type { SnsPublishApi } from '../sns/publish';
import { parseEventPattern, validationError } from './rules';
import type { EventsOperations } from './service';
import { busArn, ruleArn, type EventBus, type EventsStore, type Rule, type Target } from './store';
import { inputFor } from './targets';

type Input = Record<string, unknown>;

/** One delivery attempt, as the control API's delivery log shows it. */
export interface EventDeliveryRecord {
  eventId: string;
  ruleArn: string;
  targetId: string;
  targetArn: string;
  status: 'delivered' | 'failed' | 'dead-lettered' | 'not-delivered';
  reason?: string;
}

const MAX_LOG = 1000;
/** PutEvents: the total size of an entry (EventBridge quotas: 256 KB). */
const MAX_ENTRY_BYTES = 262_144;
const PRINCIPAL = 'events.amazonaws.com';
const REQUIRED_EVENT_FIELDS = ['id', 'account', 'source', 'time', 'region', 'detail-type'];

export class EventRouter {
  readonly operations: Operations = {
    PutEvents: (ctx, input) => this.putEvents(ctx, input),
    TestEventPattern: (_ctx, input) => this.testEventPattern(input),
  };

  readonly log: EventDeliveryRecord[] = [];

  constructor(
    private readonly store: EventsStore,
    private readonly buses: EventsOperations,
    private readonly platform: Platform,
  ) {}

  clear(): void {
    this.log.length = 0;
  }

  private record(entry: EventDeliveryRecord): void {
    this.log.push(entry);
    if (this.log.length > MAX_LOG) this.log.shift();
  }

  private testEventPattern(input: Input): unknown {
    const pattern = parseEventPattern(typeof input.EventPattern === 'string' ? input.EventPattern : '');
    let event: unknown;
    try {
      event = JSON.parse(typeof input.Event === 'string' ? input.Event : '');
    } catch {
      event = undefined;
    }
    if (!event || typeof event !== 'object' || REQUIRED_EVENT_FIELDS.some((f) => !(f in event)))
      throw validationError('Parameter Event is not valid.');
    return { Result: matchesPattern(pattern, event) };
  }

  private async putEvents(ctx: CallContext, input: Input): Promise<unknown> {
    const entries = Array.isArray(input.Entries) ? (input.Entries as Input[]) : [];
    if (!entries.length || entries.length > 10)
      throw validationError(
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length ${entries.length ? 'less than or equal to 10' : 'greater than or equal to 1'}`,
      );
    const results: unknown[] = [];
    let failed = 0;
    for (const entry of entries) {
      const problem = entryProblem(entry);
      if (problem) {
        failed++;
        results.push(problem);
        continue;
      }
      let bus: EventBus;
      try {
        bus = this.buses.bus(ctx, typeof entry.EventBusName === 'string' ? entry.EventBusName : undefined);
      } catch (err) {
        if (!(err instanceof AwsError)) throw err;
        failed++;
        results.push({ ErrorCode: err.code, ErrorMessage: err.message });
        continue;
      }
      const event = {
        version: '0',
        id: uuid(),
        'detail-type': entry.DetailType,
        source: entry.Source,
        account: ctx.account,
        time: (entry.Time instanceof Date ? entry.Time : new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
        region: ctx.region,
        resources: Array.isArray(entry.Resources) ? entry.Resources : [],
        detail: JSON.parse(entry.Detail as string) as unknown,
      };
      results.push({ EventId: event.id });
      await this.route(bus, event);
    }
    return { FailedEntryCount: failed, Entries: results };
  }

  /** Sends an event to the targets of the bus's enabled rules that match it. */
  async route(bus: EventBus, event: Record<string, unknown>): Promise<void> {
    for (const rule of this.store.rulesOf(bus)) {
      if (rule.state === 'DISABLED' || !rule.eventPattern) continue;
      if (!matchesPattern(JSON.parse(rule.eventPattern) as Record<string, unknown>, event)) continue;
      for (const target of rule.targets) await this.deliver(rule, target, event);
    }
  }

  private async deliver(rule: Rule, target: Target, event: Record<string, unknown>): Promise<void> {
    const base = {
      eventId: String(event.id),
      ruleArn: ruleArn(rule),
      targetId: target.Id,
      targetArn: target.Arn,
    };
    const body = inputFor(target, event, rule);
    const outcome = await this.send(rule, target, event, body);
    if (outcome.ok) {
      this.record({ ...base, status: 'delivered' });
      return;
    }
    if (outcome.notDelivered) {
      this.record({ ...base, status: 'not-delivered', reason: outcome.reason });
      return;
    }
    const dlq = (target.DeadLetterConfig as { Arn?: string } | undefined)?.Arn;
    if (dlq && this.sqs().deliver(dlq, this.delivery(rule, JSON.stringify(event))).delivered) {
      this.record({ ...base, status: 'dead-lettered', reason: outcome.reason });
      return;
    }
    this.record({ ...base, status: 'failed', reason: outcome.reason });
  }

  private sqs(): SqsDeliveryApi {
    return this.platform.api<SqsDeliveryApi>('sqs');
  }

  private delivery(rule: Rule, body: string) {
    return { servicePrincipal: PRINCIPAL, sourceArn: ruleArn(rule), sourceAccount: rule.account, body };
  }

  private async send(
    rule: Rule,
    target: Target,
    event: Record<string, unknown>,
    body: string,
  ): Promise<{ ok: true } | { ok: false; reason: string; notDelivered?: boolean }> {
    const service = target.Arn.split(':')[2];
    if (service === 'sqs') {
      const groupId = (target.SqsParameters as { MessageGroupId?: string } | undefined)?.MessageGroupId;
      const r = this.sqs().deliver(target.Arn, {
        ...this.delivery(rule, body),
        ...(groupId ? { groupId, deduplicationId: String(event.id) } : {}),
      });
      return r.delivered ? { ok: true } : { ok: false, reason: r.reason };
    }
    if (service === 'sns') {
      const r = await this.platform.api<SnsPublishApi>('sns').publish(target.Arn, {
        servicePrincipal: PRINCIPAL,
        sourceArn: ruleArn(rule),
        sourceAccount: rule.account,
        message: body,
      });
      return r.published ? { ok: true } : { ok: false, reason: r.reason };
    }
    if (service === 'lambda') {
      const lambda = lambdaInvoker(this.platform);
      if (!lambda)
        return { ok: false, reason: 'the emulator has no Lambda service to invoke', notDelivered: true };
      const r = await lambda.invokeAsync(target.Arn, body, {
        servicePrincipal: PRINCIPAL,
        sourceArn: ruleArn(rule),
        sourceAccount: rule.account,
      });
      return r.accepted ? { ok: true } : { ok: false, reason: r.reason };
    }
    if (service === 'events') {
      const bus = this.busByArn(target.Arn);
      if (!bus) return { ok: false, reason: `event bus ${target.Arn} does not exist` };
      const allowed =
        bus.account === rule.account ||
        evaluateResourcePolicy(bus.policy, {
          principal: { aws: { account: rule.account } },
          action: 'events:PutEvents',
          resource: busArn(bus),
        }) === 'allow';
      if (!allowed)
        return { ok: false, reason: `the policy of event bus ${target.Arn} does not allow ${rule.account}` };
      await this.route(bus, event);
      return { ok: true };
    }
    return { ok: false, reason: `the emulator does not deliver to ${service} targets`, notDelivered: true };
  }

  private busByArn(arn: string): EventBus | undefined {
    const m = /^arn:aws[a-z-]*:events:([a-z0-9-]+):(\d{12}):event-bus\/(.+)$/.exec(arn);
    return m ? this.store.bus(m[2]!, m[1]!, m[3]!) : undefined;
  }
}

/** Why a PutEvents entry is refused (as EventBridge reports it per entry), or undefined. */
function entryProblem(entry: Input): { ErrorCode: string; ErrorMessage: string } | undefined {
  for (const [member, label] of [
    ['Source', 'Source'],
    ['DetailType', 'DetailType'],
    ['Detail', 'Detail'],
  ] as const) {
    if (typeof entry[member] !== 'string' || entry[member] === '')
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: `Parameter ${label} is not valid. Reason: ${label} is a required argument.`,
      };
  }
  let detail: unknown;
  try {
    detail = JSON.parse(entry.Detail as string);
  } catch {
    detail = undefined;
  }
  if (!detail || typeof detail !== 'object' || Array.isArray(detail))
    return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
  const size = Buffer.byteLength(JSON.stringify(entry));
  if (size > MAX_ENTRY_BYTES)
    return {
      ErrorCode: 'InvalidArgument',
      ErrorMessage: 'Total size of the entries in the request is over the limit.',
    };
  return undefined;
}

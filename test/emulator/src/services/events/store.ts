/**
 * EventBridge event buses, their rules and the rules' targets, per account
 * and region. Every account and region has the `default` bus (made on first
 * use, as in AWS it always exists). Shared with Cloud Control
 * (`AWS::Events::EventBus`, `AWS::Events::Rule`).
 */
import type { ServiceStore } from '../../core/service';

/** A target as PutTargets takes it (the SDK's `Target` shape). */
export type Target = Record<string, unknown> & { Id: string; Arn: string };

export interface EventBus {
  account: string;
  region: string;
  name: string;
  description?: string;
  kmsKeyIdentifier?: string;
  deadLetterConfig?: { Arn?: string };
  logConfig?: { IncludeDetail?: string; Level?: string };
  eventSourceName?: string;
  /** The resource policy (JSON text), if any. */
  policy?: string;
  tags: Record<string, string>;
  /** Epoch ms. */
  created: number;
  lastModified: number;
}

export interface Rule {
  account: string;
  region: string;
  busName: string;
  name: string;
  eventPattern?: string;
  scheduleExpression?: string;
  state: string;
  description?: string;
  roleArn?: string;
  managedBy?: string;
  tags: Record<string, string>;
  /** In the order they were put. */
  targets: Target[];
}

export const DEFAULT_BUS = 'default';

export function busArn(bus: Pick<EventBus, 'account' | 'region' | 'name'>): string {
  return `arn:aws:events:${bus.region}:${bus.account}:event-bus/${bus.name}`;
}

/** `rule/<name>` on the default bus, `rule/<bus>/<name>` on another (as AWS writes rule ARNs). */
export function ruleArn(rule: Pick<Rule, 'account' | 'region' | 'busName' | 'name'>): string {
  const path = rule.busName === DEFAULT_BUS ? rule.name : `${rule.busName}/${rule.name}`;
  return `arn:aws:events:${rule.region}:${rule.account}:rule/${path}`;
}

/** A rule ARN's parts. */
export function parseRuleArn(
  arn: string,
): { region: string; account: string; busName: string; name: string } | undefined {
  const m = /^arn:aws[a-z-]*:events:([a-z0-9-]+):(\d{12}):rule\/(?:([^/]+)\/)?([^/]+)$/.exec(arn);
  return m ? { region: m[1]!, account: m[2]!, busName: m[3] ?? DEFAULT_BUS, name: m[4]! } : undefined;
}

/** An event bus name, or the name in an event bus ARN. */
export function busNameOf(nameOrArn: string | undefined): string {
  if (!nameOrArn) return DEFAULT_BUS;
  const m = /^arn:aws[a-z-]*:events:[a-z0-9-]+:\d{12}:event-bus\/(.+)$/.exec(nameOrArn);
  return m ? m[1]! : nameOrArn;
}

const key = (...parts: string[]) => parts.join('|');

export class EventsStore implements ServiceStore {
  readonly buses = new Map<string, EventBus>();
  readonly rules = new Map<string, Rule>();

  /** The bus, the default one made on first use; undefined for a custom bus that does not exist. */
  bus(account: string, region: string, name: string): EventBus | undefined {
    const k = key(account, region, name);
    let bus = this.buses.get(k);
    if (!bus && name === DEFAULT_BUS) {
      const now = Date.now();
      bus = { account, region, name, tags: {}, created: now, lastModified: now };
      this.buses.set(k, bus);
    }
    return bus;
  }

  addBus(bus: EventBus): void {
    this.buses.set(key(bus.account, bus.region, bus.name), bus);
  }

  deleteBus(bus: EventBus): void {
    this.buses.delete(key(bus.account, bus.region, bus.name));
    for (const r of this.rulesOf(bus)) this.rules.delete(key(r.account, r.region, r.busName, r.name));
  }

  rule(account: string, region: string, busName: string, name: string): Rule | undefined {
    return this.rules.get(key(account, region, busName, name));
  }

  putRule(rule: Rule): void {
    this.rules.set(key(rule.account, rule.region, rule.busName, rule.name), rule);
  }

  deleteRule(rule: Rule): void {
    this.rules.delete(key(rule.account, rule.region, rule.busName, rule.name));
  }

  rulesOf(bus: Pick<EventBus, 'account' | 'region' | 'name'>): Rule[] {
    return [...this.rules.values()]
      .filter((r) => r.account === bus.account && r.region === bus.region && r.busName === bus.name)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  clear(): void {
    this.buses.clear();
    this.rules.clear();
  }

  snapshot(): unknown {
    return { buses: [...this.buses.values()], rules: [...this.rules.values()] };
  }

  restore(saved: unknown): void {
    const data = saved as { buses?: EventBus[]; rules?: Rule[] };
    for (const b of data.buses ?? []) this.addBus(b);
    for (const r of data.rules ?? []) this.putRule(r);
  }
}

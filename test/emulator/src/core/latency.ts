/** Added latency per service and operation (default zero). */

export interface LatencyRule {
  /** Service short name or `*`. */
  service: string;
  /** Operation or `*` (default). */
  operation?: string;
  ms: number;
}

export class LatencyProfile {
  private readonly rules = new Map<string, number>();

  set(rule: LatencyRule): void {
    const key = `${rule.service || '*'}:${rule.operation || '*'}`;
    if (rule.ms > 0) this.rules.set(key, rule.ms);
    else this.rules.delete(key);
  }

  list(): LatencyRule[] {
    return [...this.rules.entries()].map(([key, ms]) => {
      const [service, operation] = key.split(':') as [string, string];
      return { service, operation, ms };
    });
  }

  clear(): void {
    this.rules.clear();
  }

  /** The most specific delay for a call (operation rule > service rule > global rule). */
  delayFor(service: string, operation: string): number {
    if (!this.rules.size) return 0;
    return (
      this.rules.get(`${service}:${operation}`) ??
      this.rules.get(`${service}:*`) ??
      this.rules.get(`*:${operation}`) ??
      this.rules.get('*:*') ??
      0
    );
  }
}

/**
 * Counts requests per `<service>:<Operation>`, and per resource type for the
 * requests that name one (Cloud Control's `TypeName`), so a test can tell
 * which types took the Cloud Control path.
 */
export class RequestCounter {
  private counts = new Map<string, number>();
  private typed = new Map<string, Map<string, number>>();
  private total = 0;

  add(service: string, operation: string): void {
    const key = `${service}:${operation}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    this.total++;
  }

  /** Counts a decoded request under its `TypeName`, when it has one. */
  addTyped(service: string, operation: string, input: unknown): void {
    const type = (input as { TypeName?: unknown } | undefined)?.TypeName;
    if (typeof type !== 'string') return;
    const ops = this.typed.get(type) ?? new Map<string, number>();
    const key = `${service}:${operation}`;
    ops.set(key, (ops.get(key) ?? 0) + 1);
    this.typed.set(type, ops);
  }

  snapshot(): {
    total: number;
    byOperation: Record<string, number>;
    byResourceType: Record<string, Record<string, number>>;
  } {
    const byOperation: Record<string, number> = {};
    for (const key of [...this.counts.keys()].sort()) byOperation[key] = this.counts.get(key)!;
    const byResourceType: Record<string, Record<string, number>> = {};
    for (const type of [...this.typed.keys()].sort()) {
      byResourceType[type] = Object.fromEntries([...this.typed.get(type)!.entries()].sort());
    }
    return { total: this.total, byOperation, byResourceType };
  }

  clear(): void {
    this.counts = new Map();
    this.typed = new Map();
    this.total = 0;
  }
}

/**
 * A named latency profile: `zero` (no added latency, the default),
 * `realistic` (every service's documented or commonly measured figures,
 * see the README), or `flat` (every call +`callMs`, every Cloud Control
 * request `cloudControlMs` from request to SUCCESS), as benchmarks use it.
 */
export type LatencyProfileSpec =
  { name: 'zero' } | { name: 'realistic' } | { name: 'flat'; callMs: number; cloudControlMs: number };

/** Parses `zero`, `realistic` or `flat:<callMs>[:<cloudControlMs>]` (the CLI's `--latency-profile`). */
export function parseLatencyProfile(text: string): LatencyProfileSpec {
  if (text === 'zero' || text === 'realistic') return { name: text };
  const m = /^flat:(\d+)(?::(\d+))?$/.exec(text);
  if (m) return { name: 'flat', callMs: Number(m[1]), cloudControlMs: Number(m[2] ?? 0) };
  throw new Error(`unknown latency profile "${text}" (zero, realistic, or flat:<callMs>[:<cloudControlMs>])`);
}

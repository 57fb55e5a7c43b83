/**
 * Lambda's state per account and region: functions (with their versions,
 * aliases, policies, URLs and invoke configurations), event source mappings,
 * layers, the deployment packages they point at (by SHA-256, shared) and the
 * functions' logs while no CloudWatch Logs service keeps them.
 */
import type { ServiceStore } from '../../core/service';
import type { EventSourceMappingRecord, LambdaFunction, LayerRecord, LogEvent } from './model';

/** Log events kept per stream, oldest dropped first. */
const MAX_EVENTS_PER_STREAM = 10_000;

interface SavedLambda {
  functions: LambdaFunction[];
  eventSourceMappings: EventSourceMappingRecord[];
  layers: LayerRecord[];
  /** Packages by SHA-256 (base64), base64. */
  code: Record<string, string>;
  logs: Array<{ key: string; streams: Record<string, LogEvent[]> }>;
  cloudFormationExtras: Record<string, Record<string, unknown>>;
}

export class LambdaStore implements ServiceStore {
  readonly functions = new Map<string, LambdaFunction>();
  readonly eventSourceMappings = new Map<string, EventSourceMappingRecord>();
  readonly layers = new Map<string, LayerRecord>();
  /** Deployment packages (zip bytes) by their CodeSha256. */
  readonly code = new Map<string, Buffer>();
  /** `${account}|${region}|${logGroup}` → stream → events. */
  readonly logs = new Map<string, Map<string, LogEvent[]>>();
  /**
   * CloudFormation properties Cloud Control was given that the Lambda API does
   * not keep (a function's `Code` as written, an alias's provisioned
   * concurrency, ...), by `<type>|<account>|<region>|<identifier>`.
   */
  readonly cloudFormationExtras = new Map<string, Record<string, unknown>>();
  /** Called when the store is cleared (the runtime stops its environments). */
  onClear?: () => void;

  static key(account: string, region: string, name: string): string {
    return `${account}|${region}|${name}`;
  }

  getFunction(account: string, region: string, name: string): LambdaFunction | undefined {
    return this.functions.get(LambdaStore.key(account, region, name));
  }

  putFunction(fn: LambdaFunction): void {
    this.functions.set(LambdaStore.key(fn.account, fn.region, fn.name), fn);
  }

  deleteFunction(fn: LambdaFunction): void {
    this.functions.delete(LambdaStore.key(fn.account, fn.region, fn.name));
  }

  functionsIn(account: string, region: string): LambdaFunction[] {
    return [...this.functions.values()]
      .filter((f) => f.account === account && f.region === region)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  getLayer(account: string, region: string, name: string): LayerRecord | undefined {
    return this.layers.get(LambdaStore.key(account, region, name));
  }

  putLayer(layer: LayerRecord): void {
    this.layers.set(LambdaStore.key(layer.account, layer.region, layer.name), layer);
  }

  appendLogs(account: string, region: string, group: string, stream: string, events: LogEvent[]): void {
    const key = LambdaStore.key(account, region, group);
    let streams = this.logs.get(key);
    if (!streams) this.logs.set(key, (streams = new Map()));
    const list = streams.get(stream) ?? [];
    list.push(...events);
    if (list.length > MAX_EVENTS_PER_STREAM) list.splice(0, list.length - MAX_EVENTS_PER_STREAM);
    streams.set(stream, list);
  }

  clear(): void {
    this.functions.clear();
    this.eventSourceMappings.clear();
    this.layers.clear();
    this.code.clear();
    this.logs.clear();
    this.cloudFormationExtras.clear();
    this.onClear?.();
  }

  snapshot(): SavedLambda {
    return {
      functions: [...this.functions.values()],
      eventSourceMappings: [...this.eventSourceMappings.values()],
      layers: [...this.layers.values()],
      code: Object.fromEntries([...this.code].map(([sha, zip]) => [sha, zip.toString('base64')])),
      logs: [...this.logs].map(([key, streams]) => ({ key, streams: Object.fromEntries(streams) })),
      cloudFormationExtras: Object.fromEntries(this.cloudFormationExtras),
    };
  }

  restore(saved: unknown): void {
    const s = saved as Partial<SavedLambda>;
    for (const fn of s.functions ?? []) this.putFunction({ ...fn, settings: fn.settings ?? {} });
    for (const m of s.eventSourceMappings ?? []) this.eventSourceMappings.set(m.UUID, m);
    for (const layer of s.layers ?? []) this.putLayer(layer);
    for (const [sha, zip] of Object.entries(s.code ?? {})) this.code.set(sha, Buffer.from(zip, 'base64'));
    for (const { key, streams } of s.logs ?? []) this.logs.set(key, new Map(Object.entries(streams)));
    for (const [key, extras] of Object.entries(s.cloudFormationExtras ?? {}))
      this.cloudFormationExtras.set(key, extras);
  }
}

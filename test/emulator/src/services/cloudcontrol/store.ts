/**
 * Cloud Control's own state: resource requests (with their timers), the
 * per-type behaviour set through the control API, and the generic records of
 * every type no service owns. Only the records are persisted.
 */
import type { InventoryItem, ServiceStore } from '../../core/service';
import type { OperationName } from './service';

export type OperationStatus =
  'PENDING' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILED' | 'CANCEL_IN_PROGRESS' | 'CANCEL_COMPLETE';

/** Per-type behaviour set through the control API (`*` is the default for every type). */
export interface TypeSettings {
  /** Time from the request to SUCCESS/FAILED, in ms. */
  latencyMs?: number;
  /** Per operation, overriding `latencyMs` (latency profiles set these). */
  latencyMsByOperation?: Partial<Record<OperationName, number>>;
  /** false: every request on the type is refused with UnsupportedActionException. */
  provisionable?: boolean;
  /**
   * Make requests fail with a handler error code (e.g. GeneralServiceException). With
   * `afterCreate`, a create fails only after its handler made the resource: the resource
   * exists and the FAILED event carries its Identifier (as when a create does not stabilize).
   */
  failWith?: {
    errorCode: string;
    message?: string;
    operations?: OperationName[];
    count?: number;
    afterCreate?: boolean;
  };
}

export interface ResourceRequest {
  token: string;
  account: string;
  region: string;
  typeName: string;
  identifier?: string;
  operation: OperationName;
  status: OperationStatus;
  eventTime: Date;
  statusMessage?: string;
  errorCode?: string;
  resourceModel?: string;
  clientToken?: string;
  /** Fingerprint of the input, for ClientToken conflicts. */
  fingerprint: string;
  timer?: NodeJS.Timeout;
}

/** A resource of a type no service owns: its schema-validated model. */
export interface GenericRecord {
  account: string;
  region: string;
  type: string;
  identifier: string;
  model: Record<string, unknown>;
}

export class CloudControlStore implements ServiceStore {
  readonly requests = new Map<string, ResourceRequest>();
  /** Requests by `<account>|<region>|<ClientToken>`. */
  readonly byClientToken = new Map<string, ResourceRequest>();
  /** Requests still IN_PROGRESS by `<account>|<region>|<type>|<identifier>`. */
  readonly inProgress = new Map<string, ResourceRequest>();
  readonly typeSettings = new Map<string, TypeSettings>();
  /** Generic records by `<account>|<region>|<type>|<identifier>`. */
  readonly records = new Map<string, GenericRecord>();

  static recordKey(account: string, region: string, type: string, identifier: string): string {
    return `${account}|${region}|${type}|${identifier}`;
  }

  /** Stops pending request timers (the emulator is stopping); requests keep their last status. */
  stopTimers(): void {
    for (const r of this.requests.values()) {
      if (r.timer) clearTimeout(r.timer);
      r.timer = undefined;
    }
  }

  clearRequests(): void {
    for (const r of this.requests.values()) if (r.timer) clearTimeout(r.timer);
    this.requests.clear();
    this.byClientToken.clear();
    this.inProgress.clear();
  }

  clear(): void {
    this.clearRequests();
    this.typeSettings.clear();
    this.records.clear();
  }

  snapshot(): { records: GenericRecord[] } {
    return { records: [...this.records.values()] };
  }

  restore(saved: unknown): void {
    for (const r of (saved as { records?: GenericRecord[] }).records ?? [])
      this.records.set(CloudControlStore.recordKey(r.account, r.region, r.type, r.identifier), r);
  }

  inventory(): InventoryItem[] {
    return [...this.records.values()].map((r) => ({
      account: r.account,
      region: r.region,
      type: r.type,
      identifier: r.identifier,
      properties: r.model,
    }));
  }

  settingsFor(typeName: string): TypeSettings {
    return { ...this.typeSettings.get('*'), ...this.typeSettings.get(typeName) };
  }

  /** The time from request to outcome: the type's own setting, else the `*` default, else 0. */
  latencyFor(typeName: string, operation: OperationName): number {
    for (const settings of [this.typeSettings.get(typeName), this.typeSettings.get('*')]) {
      const ms = settings?.latencyMsByOperation?.[operation] ?? settings?.latencyMs;
      if (ms !== undefined) return ms;
    }
    return 0;
  }
}

/**
 * Typed messages the deploy and destroy engines send to the IoHost. Renderers
 * (src/ui) and tests read them by code; the wording lives in `message`.
 */
import type { IoHost, LogLevel } from '../util/io-host';

export type ResourceAction = 'CREATE' | 'UPDATE' | 'REPLACE' | 'DELETE' | 'NO_CHANGE' | 'RETAIN';
export type ResourceStatus = 'started' | 'succeeded' | 'failed' | 'skipped' | 'retrying';

export const RESOURCE_EVENT = 'CDKD_RESOURCE_EVENT';
export const STACK_EVENT = 'CDKD_STACK_EVENT';

export interface ResourceEvent {
  stackName: string;
  logicalId: string;
  resourceType: string;
  action: ResourceAction;
  status: ResourceStatus;
  /** Which layer provisions it, and why. */
  route?: 'sdk' | 'cc-api';
  routeReason?: string;
  physicalId?: string;
  /** Time since the operation started, on finished events. */
  elapsedMs?: number;
  /** Failure or skip reason. */
  reason?: string;
}

export type StackPhase = 'started' | 'planned' | 'succeeded' | 'failed' | 'no-changes';

export interface StackSummary {
  created: number;
  updated: number;
  replaced: number;
  deleted: number;
  retained: number;
  unchanged: number;
  failed: number;
  skipped: number;
}

/** A summary with every count at zero. */
export function emptySummary(): StackSummary {
  return {
    created: 0,
    updated: 0,
    replaced: 0,
    deleted: 0,
    retained: 0,
    unchanged: 0,
    failed: 0,
    skipped: 0,
  };
}

export interface StackEvent {
  stackName: string;
  region: string;
  operation: 'deploy' | 'destroy' | 'rollback';
  phase: StackPhase;
  /** Number of resources with work to do, once planned. */
  total?: number;
  summary?: StackSummary;
  outputs?: Record<string, unknown>;
  elapsedMs?: number;
  error?: string;
}

const PAST: Record<ResourceAction, string> = {
  CREATE: 'created',
  UPDATE: 'updated',
  REPLACE: 'replaced',
  DELETE: 'deleted',
  NO_CHANGE: 'unchanged',
  RETAIN: 'retained',
};

const PRESENT: Record<ResourceAction, string> = {
  CREATE: 'creating',
  UPDATE: 'updating',
  REPLACE: 'replacing',
  DELETE: 'deleting',
  NO_CHANGE: 'checking',
  RETAIN: 'retaining',
};

export function describeResourceEvent(e: ResourceEvent): string {
  const id = `${e.logicalId} (${e.resourceType})`;
  const time = e.elapsedMs !== undefined ? ` in ${(e.elapsedMs / 1000).toFixed(1)}s` : '';
  switch (e.status) {
    case 'started':
      return `${PRESENT[e.action]} ${id}${e.route === 'cc-api' ? ' via Cloud Control' : ''}`;
    case 'succeeded':
      return `${PAST[e.action]} ${id}${time}`;
    case 'failed':
      return `failed to ${e.action.toLowerCase().replace('_', ' ')} ${id}${time}: ${e.reason ?? 'unknown error'}`;
    case 'skipped':
      return `skipped ${id}${e.reason ? `: ${e.reason}` : ''}`;
    case 'retrying':
      return `retrying ${id}: ${e.reason ?? ''}`;
  }
}

export function emitResourceEvent(host: IoHost, event: ResourceEvent): void {
  const level: LogLevel =
    event.status === 'failed'
      ? 'error'
      : event.status === 'skipped' || event.status === 'retrying'
        ? 'warn'
        : 'info';
  host.notify({
    level,
    code: RESOURCE_EVENT,
    message: `${event.stackName}: ${describeResourceEvent(event)}`,
    data: event,
    time: new Date(),
  });
}

export function emitStackEvent(host: IoHost, event: StackEvent, message: string): void {
  host.notify({
    level: event.phase === 'failed' ? 'error' : 'info',
    code: STACK_EVENT,
    message,
    data: event,
    time: new Date(),
  });
}

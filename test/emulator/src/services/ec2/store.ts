/**
 * What EC2 remembers beyond Cloud Control's records: rule changes made
 * through the native security-group calls, and the NAT gateway states only
 * EC2 shows (pending, failed, deleting, deleted).
 */
import type { ServiceStore } from '../../core/service';
import type { Changes } from './security-groups';

/** A NAT gateway's state as EC2 reports it; `model` is kept once Cloud Control no longer has the gateway. */
export interface NatLifecycle {
  state: 'pending' | 'available' | 'failed' | 'deleting' | 'deleted';
  createTime?: number;
  deleteTime?: number;
  failureCode?: string;
  failureMessage?: string;
  model?: Record<string, unknown>;
}

export class Ec2Store implements ServiceStore {
  /** `<account>|<region>|<group id>` → changes. */
  readonly changes = new Map<string, Changes>();
  /** `<account>|<region>|<nat gateway id>` → lifecycle. */
  readonly natGateways = new Map<string, NatLifecycle>();
  clear(): void {
    this.changes.clear();
    this.natGateways.clear();
  }
  snapshot(): unknown {
    return {
      securityGroups: Object.fromEntries(this.changes),
      natGateways: Object.fromEntries(this.natGateways),
    };
  }
  restore(saved: unknown): void {
    const state = (saved ?? {}) as Record<string, unknown>;
    // Before NAT gateways the snapshot was the security-group changes alone.
    const legacy = !('securityGroups' in state) && !('natGateways' in state);
    const groups = (legacy ? state : (state.securityGroups ?? {})) as Record<string, Changes>;
    for (const [k, v] of Object.entries(groups)) this.changes.set(k, v);
    for (const [k, v] of Object.entries((state.natGateways ?? {}) as Record<string, NatLifecycle>))
      this.natGateways.set(k, v);
  }
}

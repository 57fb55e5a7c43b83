/**
 * Modelled eventual consistency, off by default. A service registers a named
 * behaviour (`iam.role-propagation`: a new role is not yet assumable by
 * Lambda) with a default delay; tests switch it on through
 * `PUT /_emulator/consistency` and the service asks {@link delayFor} whether
 * (and how long) to model the lag.
 */
export interface ConsistencyBehaviour {
  /** `<service>.<behaviour>`, e.g. `sqs.list-after-create`. */
  name: string;
  /** What AWS documents, in a sentence (with the source). */
  description: string;
  /** The lag modelled when switched on without a delay. */
  defaultDelayMs: number;
}

export interface ConsistencySetting extends ConsistencyBehaviour {
  enabled: boolean;
  delayMs: number;
}

export class ConsistencySwitches {
  private readonly behaviours = new Map<string, ConsistencySetting>();

  register(behaviour: ConsistencyBehaviour): void {
    this.behaviours.set(behaviour.name, { ...behaviour, enabled: false, delayMs: behaviour.defaultDelayMs });
  }

  /** The lag to model now, or 0 when the behaviour is off (or unknown). */
  delayFor(name: string): number {
    const b = this.behaviours.get(name);
    return b?.enabled ? b.delayMs : 0;
  }

  list(): ConsistencySetting[] {
    return [...this.behaviours.values()].map((b) => ({ ...b }));
  }

  has(name: string): boolean {
    return this.behaviours.has(name);
  }

  set(name: string, setting: { enabled?: boolean; delayMs?: number }): ConsistencySetting {
    const b = this.behaviours.get(name);
    if (!b) throw new Error(`no consistency behaviour ${name}`);
    if (setting.enabled !== undefined) b.enabled = setting.enabled;
    if (setting.delayMs !== undefined) b.delayMs = setting.delayMs;
    return { ...b };
  }

  /** Every behaviour off, delays back to their defaults. */
  reset(): void {
    for (const b of this.behaviours.values()) {
      b.enabled = false;
      b.delayMs = b.defaultDelayMs;
    }
  }
}

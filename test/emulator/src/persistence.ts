/**
 * Optional persistence (`--state-dir`): every service's store is written to
 * `<dir>/state.json` after changes (coalesced: one write at a time, at most
 * every 200 ms) and on stop, and read back on start. Request counts, latency,
 * faults and Cloud Control type settings are run-time test settings and are
 * not kept.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IssuedCredentials } from './core/accounts';
import type { EmulatorState } from './state';

const FORMAT_VERSION = 2;
const STATE_FILE = 'state.json';

interface Snapshot {
  formatVersion: number;
  defaultAccount: string;
  credentials: IssuedCredentials[];
  /** Each service's `store.snapshot()`, by service name. */
  services: Record<string, unknown>;
}

/** Format 1 kept every store's data at the top level. */
interface SnapshotV1 {
  formatVersion: 1;
  defaultAccount: string;
  credentials: IssuedCredentials[];
  buckets?: unknown[];
  queues?: unknown[];
  parameters?: unknown[];
  stacks?: unknown[];
  records?: unknown[];
  secrets?: unknown[];
}

function fromV1(saved: SnapshotV1): Snapshot {
  return {
    formatVersion: FORMAT_VERSION,
    defaultAccount: saved.defaultAccount,
    credentials: saved.credentials,
    services: {
      s3: { buckets: saved.buckets ?? [] },
      sqs: { queues: saved.queues ?? [] },
      ssm: { parameters: saved.parameters ?? [] },
      cloudformation: { stacks: saved.stacks ?? [] },
      cloudcontrol: { records: saved.records ?? [] },
      secretsmanager: { secrets: saved.secrets ?? [] },
    },
  };
}

export function snapshot(state: EmulatorState): Snapshot {
  return {
    formatVersion: FORMAT_VERSION,
    defaultAccount: state.accounts.defaultAccount,
    credentials: state.accounts.snapshot(),
    services: state.snapshot(),
  };
}

export function restore(state: EmulatorState, data: Snapshot | SnapshotV1): void {
  const saved = data.formatVersion === 1 ? fromV1(data as SnapshotV1) : (data as Snapshot);
  if (saved.formatVersion !== FORMAT_VERSION)
    throw new Error(`unsupported state format ${saved.formatVersion} (expected 1 or ${FORMAT_VERSION})`);
  state.accounts.defaultAccount = saved.defaultAccount;
  state.accounts.restore(saved.credentials);
  state.restore(saved.services);
}

export class StatePersistence {
  private readonly file: string;
  private dirty = false;
  private timer?: NodeJS.Timeout;
  private writing?: Promise<void>;

  constructor(
    private readonly state: EmulatorState,
    dir: string,
    private readonly delayMs = 200,
  ) {
    fs.mkdirSync(dir, { recursive: true });
    this.file = path.join(dir, STATE_FILE);
  }

  /** Reads the saved state, if any. */
  load(): boolean {
    if (!fs.existsSync(this.file)) return false;
    restore(this.state, JSON.parse(fs.readFileSync(this.file, 'utf8')) as Snapshot);
    return true;
  }

  /** Marks the state changed; a write follows shortly. */
  changed(): void {
    this.dirty = true;
    if (!this.timer && !this.writing) this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.write();
    }, this.delayMs);
    this.timer.unref?.();
  }

  private async write(): Promise<void> {
    if (!this.dirty) return;
    this.dirty = false;
    const text = JSON.stringify(snapshot(this.state));
    const temp = `${this.file}.${process.pid}.tmp`;
    this.writing = (async () => {
      await fs.promises.writeFile(temp, text);
      await fs.promises.rename(temp, this.file);
    })();
    try {
      await this.writing;
    } finally {
      this.writing = undefined;
      if (this.dirty) this.schedule();
    }
  }

  /** Writes now (on stop). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.writing) await this.writing.catch(() => undefined);
    this.dirty = true;
    await this.write();
  }
}

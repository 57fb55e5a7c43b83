/**
 * Optional persistence (`--state-dir`): every resource is written to
 * `<dir>/state.json` after changes (coalesced: one write at a time, at most
 * every 200 ms) and on stop, and read back on start. Request counts, latency,
 * faults and Cloud Control type settings are run-time test settings and are
 * not kept.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { IssuedCredentials } from './core/accounts';
import type { SeededStack } from './services/cloudformation';
import type { GenericRecord } from './services/cloudcontrol/adapters';
import type { Bucket, MultipartUpload, ObjectVersion } from './services/s3/store';
import type { Secret } from './services/secretsmanager/store';
import type { Queue } from './services/sqs/store';
import type { Parameter } from './services/ssm/store';
import type { EmulatorState } from './state';

const FORMAT_VERSION = 1;
const STATE_FILE = 'state.json';

interface SavedObject extends Omit<ObjectVersion, 'body' | 'lastModified'> {
  body: string;
  lastModified: string;
}

interface SavedUpload extends Omit<MultipartUpload, 'parts' | 'initiated'> {
  initiated: string;
  parts: Array<{ partNumber: number; body: string; etag: string; lastModified: string }>;
}

interface SavedBucket extends Omit<Bucket, 'objects' | 'uploads' | 'lastDelete' | 'creationDate'> {
  creationDate: string;
  objects: SavedObject[][];
  uploads: SavedUpload[];
}

interface Snapshot {
  formatVersion: number;
  defaultAccount: string;
  credentials: IssuedCredentials[];
  buckets: SavedBucket[];
  queues: Queue[];
  parameters: Array<
    Omit<Parameter, 'versions'> & {
      versions: Array<Omit<Parameter['versions'][number], 'lastModified'> & { lastModified: string }>;
    }
  >;
  stacks: Array<Omit<SeededStack, 'creationTime'> & { creationTime: string }>;
  records: GenericRecord[];
  secrets?: Array<
    Omit<Secret, 'created' | 'lastChanged' | 'deletedDate' | 'versions'> & {
      created: string;
      lastChanged: string;
      deletedDate?: string;
      versions: Array<Omit<Secret['versions'][number], 'created'> & { created: string }>;
    }
  >;
}

function saveObject(o: ObjectVersion): SavedObject {
  return { ...o, body: o.body.toString('base64'), lastModified: o.lastModified.toISOString() };
}

function loadObject(o: SavedObject): ObjectVersion {
  return { ...o, body: Buffer.from(o.body, 'base64'), lastModified: new Date(o.lastModified) };
}

export function snapshot(state: EmulatorState): Snapshot {
  return {
    formatVersion: FORMAT_VERSION,
    defaultAccount: state.accounts.defaultAccount,
    credentials: state.accounts.snapshot(),
    buckets: [...state.s3.buckets.values()].map(
      ({ objects, uploads, lastDelete: _lastDelete, creationDate, ...rest }) => ({
        ...rest,
        creationDate: creationDate.toISOString(),
        objects: [...objects.values()].map((versions) => versions.map(saveObject)),
        uploads: [...uploads.values()].map(({ parts, initiated, ...upload }) => ({
          ...upload,
          initiated: initiated.toISOString(),
          parts: [...parts.values()].map((p) => ({
            ...p,
            body: p.body.toString('base64'),
            lastModified: p.lastModified.toISOString(),
          })),
        })),
      }),
    ),
    queues: [...state.sqs.queues.values()],
    parameters: [...state.ssm.parameters.values()].map((p) => ({
      ...p,
      versions: p.versions.map((v) => ({ ...v, lastModified: v.lastModified.toISOString() })),
    })),
    stacks: state.cloudformation.stacks.map((s) => ({ ...s, creationTime: s.creationTime.toISOString() })),
    records: [...state.generic.records.values()],
    secrets: [...state.secrets.secrets.values()].map((s) => ({
      ...s,
      created: s.created.toISOString(),
      lastChanged: s.lastChanged.toISOString(),
      deletedDate: s.deletedDate?.toISOString(),
      versions: s.versions.map((v) => ({ ...v, created: v.created.toISOString() })),
    })),
  };
}

export function restore(state: EmulatorState, saved: Snapshot): void {
  if (saved.formatVersion !== FORMAT_VERSION)
    throw new Error(`unsupported state format ${saved.formatVersion} (expected ${FORMAT_VERSION})`);
  state.accounts.defaultAccount = saved.defaultAccount;
  state.accounts.restore(saved.credentials);
  for (const b of saved.buckets) {
    const bucket: Bucket = {
      ...b,
      creationDate: new Date(b.creationDate),
      objects: new Map(
        b.objects.filter((v) => v.length).map((versions) => [versions[0]!.key, versions.map(loadObject)]),
      ),
      uploads: new Map(
        b.uploads.map((u) => [
          u.uploadId,
          {
            ...u,
            initiated: new Date(u.initiated),
            parts: new Map(
              u.parts.map((p) => [
                p.partNumber,
                { ...p, body: Buffer.from(p.body, 'base64'), lastModified: new Date(p.lastModified) },
              ]),
            ),
          },
        ]),
      ),
      lastDelete: new Map(),
    };
    state.s3.buckets.set(bucket.name, bucket);
  }
  for (const q of saved.queues) state.sqs.queues.set(`${q.account}|${q.region}|${q.name}`, q);
  for (const p of saved.parameters) {
    state.ssm.parameters.set(`${p.account}|${p.region}|${p.name}`, {
      ...p,
      versions: p.versions.map((v) => ({ ...v, lastModified: new Date(v.lastModified) })),
    });
  }
  for (const s of saved.stacks)
    state.cloudformation.stacks.push({ ...s, creationTime: new Date(s.creationTime) });
  for (const r of saved.records)
    state.generic.records.set(`${r.account}|${r.region}|${r.type}|${r.identifier}`, r);
  for (const s of saved.secrets ?? []) {
    state.secrets.secrets.set(`${s.account}|${s.region}|${s.name}`, {
      ...s,
      created: new Date(s.created),
      lastChanged: new Date(s.lastChanged),
      deletedDate: s.deletedDate ? new Date(s.deletedDate) : undefined,
      versions: s.versions.map((v) => ({ ...v, created: new Date(v.created) })),
    });
  }
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

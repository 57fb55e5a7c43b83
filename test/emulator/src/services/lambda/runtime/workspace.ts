/**
 * The files an execution environment runs on, under one temporary root per
 * emulator:
 *
 *   <root>/node_modules/@aws-sdk/*   links to every @aws-sdk package the emulator can resolve,
 *                                    as Lambda's Node.js runtimes ship the SDK (found by require
 *                                    and by ES module imports, which walk up from the task)
 *   <root>/tasks/<sha>/              a deployment package, unzipped (LAMBDA_TASK_ROOT, /var/task)
 *   <root>/opt/<digest>/             the function's layers, unzipped in order (/opt)
 *   <root>/home/                     an empty HOME, so handlers never read the host's ~/.aws
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readZip } from '../zip';

export class RuntimeWorkspace {
  private root?: string;

  /** The root, created (with the SDK links) on first use. */
  private ensureRoot(): string {
    if (this.root) return this.root;
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'aws-emulator-lambda-'));
    for (const dir of ['tasks', 'opt', 'home', path.join('node_modules', '@aws-sdk')])
      fs.mkdirSync(path.join(root, dir), { recursive: true });
    linkSdkPackages(path.join(root, 'node_modules', '@aws-sdk'));
    this.root = root;
    return root;
  }

  get home(): string {
    return path.join(this.ensureRoot(), 'home');
  }

  /** The unzipped deployment package `sha` (extracted once). */
  task(sha: string, zip: () => Buffer | undefined): string {
    return this.extracted(path.join(this.ensureRoot(), 'tasks', safeName(sha)), () => {
      const bytes = zip();
      return bytes ? [bytes] : [];
    });
  }

  /** The layers, unzipped in order into one /opt folder (later layers overwrite earlier ones). */
  opt(layerShas: string[], zip: (sha: string) => Buffer | undefined): string {
    const digest = createHash('sha256').update(layerShas.join('\n')).digest('hex').slice(0, 32);
    return this.extracted(path.join(this.ensureRoot(), 'opt', digest), () =>
      layerShas.map((sha) => zip(sha)).filter((b): b is Buffer => b !== undefined),
    );
  }

  /** Removes everything (the emulator is stopping). */
  dispose(): void {
    if (this.root) fs.rmSync(this.root, { recursive: true, force: true });
    this.root = undefined;
  }

  private extracted(target: string, archives: () => Buffer[]): string {
    if (fs.existsSync(target)) return target;
    // Unzip beside the target and rename, so a half-written folder is never used.
    const staging = `${target}.${randomBytes(4).toString('hex')}.tmp`;
    fs.mkdirSync(staging, { recursive: true });
    for (const archive of archives()) unzipInto(archive, staging);
    try {
      fs.renameSync(staging, target);
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      if (!fs.existsSync(target)) throw err;
    }
    return target;
  }
}

function safeName(sha: string): string {
  return sha.replace(/[^A-Za-z0-9]/g, '_');
}

function unzipInto(archive: Buffer, dir: string): void {
  for (const entry of readZip(archive)) {
    const target = path.resolve(dir, entry.name);
    // Entries outside the folder ("zip slip") are skipped.
    if (target !== dir && !target.startsWith(dir + path.sep)) continue;
    if (entry.name.endsWith('/')) {
      fs.mkdirSync(target, { recursive: true });
      continue;
    }
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, entry.data, { mode: entry.mode ?? 0o644 });
  }
}

/** Links every `@aws-sdk/*` package on the emulator's resolution paths (the nearest of each name wins). */
function linkSdkPackages(into: string): void {
  const seen = new Set<string>();
  for (const modules of require.resolve.paths('@aws-sdk/client-lambda') ?? []) {
    const scope = path.join(modules, '@aws-sdk');
    let names: string[];
    try {
      names = fs.readdirSync(scope);
    } catch {
      continue;
    }
    for (const name of names) {
      if (seen.has(name)) continue;
      seen.add(name);
      try {
        fs.symlinkSync(fs.realpathSync(path.join(scope, name)), path.join(into, name), 'dir');
      } catch {
        // an entry that is not a package folder
      }
    }
  }
}

/**
 * A real npm registry for the tests: verdaccio (pinned in the lockfile), in
 * this process, on a free loopback port, with a temporary storage folder and
 * no uplinks, so nothing reaches the internet. Packs are published to it with
 * `npm publish`; the packages they depend on (the AWS SDK client and its
 * tree, TypeScript for a pack's build) are published from this repository's
 * own installed copies, so a project's `npm install` is served entirely from here.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { npmCommand } from '../../../src/packs/npm';

export interface LocalRegistry {
  /** `http://127.0.0.1:<port>/`. */
  url: string;
  /** An `.npmrc` line set that makes npm use this registry (and publish to it) by default. */
  npmrc(): string;
  /** Runs `npm <args>` in `cwd` against this registry, with an environment of its own. */
  npm(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }>;
  /** `npm publish` of a package folder; fails the test when npm does. */
  publish(dir: string): Promise<void>;
  /**
   * Publishes installed packages (folders under a node_modules) as they are,
   * with everything they depend on, so npm can install them from here.
   */
  seedInstalled(roots: string[]): Promise<string[]>;
  stop(): Promise<void>;
}

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

function readManifest(dir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as Manifest;
}

/** Node's lookup of `name` from `fromDir`, by folders (ignores `exports`). */
function findInstalled(name: string, fromDir: string): string | undefined {
  let dir = fromDir;
  for (;;) {
    const candidate = path.join(dir, 'node_modules', ...name.split('/'));
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** Every installed package folder `roots` need at run time (dependencies and required peers). */
export function dependencyClosure(roots: string[]): string[] {
  const seen = new Set<string>();
  const walk = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const m = readManifest(dir);
    const peers = Object.keys(m.peerDependencies ?? {}).filter((p) => !m.peerDependenciesMeta?.[p]?.optional);
    for (const name of [...Object.keys(m.dependencies ?? {}), ...peers]) {
      const found = findInstalled(name, dir);
      if (!found) throw new Error(`${m.name} needs ${name}, which is not installed here`);
      walk(found);
    }
  };
  for (const root of roots) walk(fs.realpathSync(root));
  return [...seen];
}

/** One ustar header block (with a pax header before it when the path is too long for ustar). */
function tarHeader(name: string, size: number, mode: number): Buffer {
  const block = (entryName: string, entrySize: number, type: string): Buffer => {
    const h = Buffer.alloc(512);
    let prefix = '';
    let base = entryName;
    if (Buffer.byteLength(base) > 100) {
      const cut = entryName.lastIndexOf('/', 155);
      if (cut > 0 && Buffer.byteLength(entryName.slice(cut + 1)) <= 100) {
        prefix = entryName.slice(0, cut);
        base = entryName.slice(cut + 1);
      } else base = entryName.slice(0, 100);
    }
    h.write(base, 0, 100);
    h.write(`${mode.toString(8).padStart(7, '0')}\0`, 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(`${entrySize.toString(8).padStart(11, '0')}\0`, 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write(type, 156);
    h.write('ustar\0', 257);
    h.write('00', 263);
    h.write(prefix, 345, 155);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    return h;
  };
  if (
    Buffer.byteLength(name) <= 100 ||
    (name.lastIndexOf('/', 155) > 0 && Buffer.byteLength(name.slice(name.lastIndexOf('/', 155) + 1)) <= 100)
  ) {
    return block(name, size, '0');
  }
  // A pax record "<len> path=<name>\n", its length counting itself.
  const body = ` path=${name}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len)
    len = String(len).length + Buffer.byteLength(body);
  const record = Buffer.from(`${len}${body}`);
  const padded = Buffer.concat([record, Buffer.alloc((512 - (record.length % 512)) % 512)]);
  return Buffer.concat([block('PaxHeader', record.length, 'x'), padded, block(name, size, '0')]);
}

/**
 * The tarball `npm pack` would make of an installed package folder (its files
 * under `package/`, without nested node_modules), gzipped fast: npm's own pack
 * is ten times slower, and the bytes inside are what matters here.
 */
export function packFolder(dir: string): Buffer {
  const parts: Buffer[] = [];
  const walk = (rel: string) => {
    for (const entry of fs
      .readdirSync(path.join(dir, rel), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (entry.isFile()) {
        const data = fs.readFileSync(path.join(dir, child));
        const mode = fs.statSync(path.join(dir, child)).mode & 0o111 ? 0o755 : 0o644;
        parts.push(
          tarHeader(`package/${child}`, data.length, mode),
          data,
          Buffer.alloc((512 - (data.length % 512)) % 512),
        );
      }
    }
  };
  walk('');
  parts.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(parts), { level: 1 });
}

/** An environment for npm that reads nothing of the caller's npm settings. */
function npmEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    npm_config_userconfig: path.join(home, '.npmrc'),
    npm_config_cache: path.join(home, '.npm'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

export async function startRegistry(): Promise<LocalRegistry> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-registry-'));
  const storage = path.join(home, 'storage');
  fs.mkdirSync(storage);
  // verdaccio's own module is not typed for this use; its runServer takes a parsed config.
  const { runServer } = require('verdaccio') as {
    runServer(
      config: Record<string, unknown>,
    ): Promise<{ listen(port: number, host: string, cb: () => void): Server }>;
  };
  const app = await runServer({
    self_path: path.join(home, 'config.yaml'),
    storage,
    uplinks: {},
    packages: { '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' } },
    auth: { htpasswd: { file: path.join(home, 'htpasswd'), max_users: 10 } },
    // JWT tokens are checked by signature; legacy ones re-check the password (bcrypt) on every request.
    security: { api: { legacy: false, jwt: { sign: { expiresIn: '1d' } } } },
    log: { type: 'stdout', format: 'pretty', level: 'fatal' },
    web: { enable: false },
    max_body_size: '200mb',
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}/`;

  const user = await fetch(`${url}-/user/org.couchdb.user:cdkd-test`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'cdkd-test', password: 'cdkd-test-password' }),
  });
  const { token } = (await user.json()) as { token?: string };
  if (!token) throw new Error(`verdaccio did not create the test user (HTTP ${user.status})`);
  const npmrc = () => `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`;
  fs.writeFileSync(path.join(home, '.npmrc'), npmrc());

  const npm = (args: string[], cwd: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const [command, ...lead] = npmCommand();
      const child = spawn(command, [...lead, ...args], {
        cwd,
        env: npmEnv(home),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });

  /** PUTs one tarball the way `npm publish` does. */
  const putTarball = async (manifest: Manifest, tarball: Buffer) => {
    const file = `${manifest.name}-${manifest.version}.tgz`;
    const body = {
      _id: manifest.name,
      name: manifest.name,
      'dist-tags': { latest: manifest.version },
      versions: {
        [manifest.version]: {
          ...manifest,
          _id: `${manifest.name}@${manifest.version}`,
          dist: {
            shasum: createHash('sha1').update(tarball).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
            tarball: `${url}${manifest.name}/-/${file}`,
          },
        },
      },
      _attachments: {
        [file]: {
          content_type: 'application/octet-stream',
          data: tarball.toString('base64'),
          length: tarball.length,
        },
      },
    };
    const res = await fetch(`${url}${manifest.name.replace('/', '%2f')}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (!res.ok)
      throw new Error(
        `publishing ${manifest.name}@${manifest.version}: HTTP ${res.status} ${await res.text()}`,
      );
  };

  return {
    url,
    npmrc,
    npm,
    async publish(dir) {
      const r = await npm(['publish', '--ignore-scripts', '--registry', url], dir);
      if (r.code !== 0) throw new Error(`npm publish ${dir} failed:\n${r.stderr}`);
    },
    async seedInstalled(roots) {
      const dirs = dependencyClosure(roots);
      await Promise.all(dirs.map((dir) => putTarball(readManifest(dir), packFolder(dir))));
      return dirs.map((dir) => `${readManifest(dir).name}@${readManifest(dir).version}`);
    },
    async stop() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

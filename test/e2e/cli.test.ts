import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// Runs the BUILT CLI (`npx tsc -p tsconfig.build.json` and the workspaces' builds first).
const root = path.resolve(__dirname, '..', '..');
const bin = path.join(root, 'bin', 'run.js');

function cdkd(args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('cdkd CLI', () => {
  it('--help lists the commands and topics', () => {
    const { status, stdout } = cdkd(['--help']);
    expect(status).toBe(0);
    for (const name of ['providers', 'plugins', 'version'])
      expect(stdout).toMatch(new RegExp(`^\\s+${name}\\s`, 'm'));
    const providersHelp = cdkd(['providers', '--help']).stdout;
    expect(providersHelp).toContain('--json');
    expect(cdkd(['providers', 'check', '--help']).stdout).toContain('--pack');
  });

  it("every first-party pack's hook answers without loading an AWS SDK client", () => {
    // Issue 12, "Loads fast": the SDK client loads when a provider is first made, not when
    // `cdkd providers`, `diff` or `deploy` asks the hook for registrations.
    const packs = fs
      .readdirSync(path.join(root, 'plugins'))
      .filter((d) => d.startsWith('provider-'))
      .map((d) => path.join(root, 'plugins', d));
    expect(packs.length).toBeGreaterThanOrEqual(11);
    for (const dir of packs) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        oclif?: { hooks?: Record<string, string> };
      };
      const hook = path.join(dir, pkg.oclif!.hooks!['cdkd:providers']);
      const script = `
const mod = require(${JSON.stringify(hook)});
Promise.resolve((mod.default ?? mod)()).then((pack) => {
  const clients = Object.keys(require.cache).filter((f) => /[\\/]@aws-sdk[\\/]client-/.test(f));
  process.stdout.write(JSON.stringify({ types: pack.providers.length, clients }));
});`;
      const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
      expect({ dir, status: run.status, stderr: run.stderr }).toEqual({ dir, status: 0, stderr: '' });
      const answer = JSON.parse(run.stdout) as { types: number; clients: string[] };
      expect(answer.types).toBeGreaterThan(0);
      expect({ dir, clients: answer.clients }).toEqual({ dir, clients: [] });
    }
  });

  it('--version loads no engine module, provider pack or AWS SDK', () => {
    // A require hook records every module the process resolves.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-version-'));
    const trace = path.join(tmp, 'trace.js');
    const out = path.join(tmp, 'loaded.json');
    fs.writeFileSync(
      trace,
      `const Module = require('node:module');
const fs = require('node:fs');
const loaded = new Set();
const load = Module._load;
Module._load = function (request, parent, isMain) {
  try { loaded.add(Module._resolveFilename(request, parent, isMain)); } catch {}
  return load.apply(this, arguments);
};
process.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, JSON.stringify([...loaded])));
`,
    );
    try {
      const { status, stdout } = cdkd(['--version'], { NODE_OPTIONS: `--require ${trace}` });
      expect(status).toBe(0);
      expect(stdout).toMatch(/^cdkd\/\d+\.\d+\.\d+/);
      const loaded = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
      expect(loaded.length).toBeGreaterThan(0);
      const heavy = loaded.filter(
        (f) =>
          f.startsWith(path.join(root, 'dist') + path.sep) ||
          f.startsWith(path.join(root, 'plugins') + path.sep) ||
          /[\\/]node_modules[\\/](@aws-sdk|@aws-cdk|@smithy|aws-cdk-lib|ajv|cosmiconfig|yaml)[\\/]/.test(f),
      );
      expect(heavy).toEqual([]);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('the committed oclif.manifest.json matches the build', () => {
    const result = spawnSync(
      process.execPath,
      [path.join(root, 'scripts', 'generate-manifest.js'), '--check'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    // On failure: run `npm run build` and commit oclif.manifest.json.
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

// @ts-check
/* global fetch */
/**
 * Shared pieces of the deploy benchmarks: the emulator as a child process and
 * its control API, the BUILT cdkd CLI as a child process (under GNU time for
 * its peak memory), synthesis of the synthetic stacks, reading the state back
 * from the emulator's S3, and the dependency-graph arithmetic (critical path,
 * ideal schedule at a given concurrency).
 *
 * Everything runs the built project: `npm run build` first.
 */
'use strict';
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const ROOT = path.resolve(__dirname, '..', '..');
/** The cdkd install the benchmarks run (`--cdkd DIR`, default this repository). */
let cdkdRoot = ROOT;
const EMULATOR_BIN = path.join(ROOT, 'test', 'emulator', 'bin', 'aws-emulator.js');
const APP = path.join(__dirname, 'synthetic-app.js');
const GNU_TIME = '/usr/bin/time';
const ACCOUNT = '123456789012';
const REGION = 'us-east-1';
const STATE_BUCKET = `cdkd-state-${ACCOUNT}`;
const CREDENTIALS = { accessKeyId: 'AKIABENCHMARK0000001', secretAccessKey: 'bench' };

/**
 * Chooses the cdkd install to benchmark (a directory with bin/run.js and a
 * built dist/), so two builds can be compared under the same conditions.
 * @param {string | undefined} dir
 */
function useCdkd(dir) {
  cdkdRoot = dir ? path.resolve(dir) : ROOT;
}

/** The `bin/run.js` of the cdkd install the benchmarks run. */
function cdkdBin() {
  return path.join(cdkdRoot, 'bin', 'run.js');
}

/** Fails with the remedy when the project or the emulator is not built. */
function ensureBuilt() {
  const missing = [
    [path.join(cdkdRoot, 'bin', 'run.js'), `cdkd's bin/run.js in ${cdkdRoot}`],
    [path.join(cdkdRoot, 'dist', 'commands', 'deploy.js'), `cdkd (${path.join(cdkdRoot, 'dist')})`],
    [path.join(ROOT, 'test', 'emulator', 'dist', 'cli.js'), 'the emulator (test/emulator/dist/)'],
    [
      path.join(ROOT, 'plugins', 'provider-sqs', 'dist'),
      'the SQS provider pack (plugins/provider-sqs/dist/)',
    ],
  ].filter(([file]) => !fs.existsSync(file));
  if (missing.length) {
    const remedy =
      cdkdRoot === ROOT
        ? 'Run `npm run build` in the repository root first.'
        : `--cdkd ${cdkdRoot} must be a built cdkd install (make one with scripts/bench/make-baseline.js).`;
    process.stderr.write(
      `The benchmarks run the built project, and these are missing: ${missing.map(([, what]) => what).join(', ')}.\n${remedy}\n`,
    );
    process.exit(2);
  }
  if (!fs.existsSync(GNU_TIME)) {
    process.stderr.write(
      `${GNU_TIME} (GNU time) is needed to measure the peak memory of the cdkd process.\n`,
    );
    process.exit(2);
  }
}

/**
 * `--name value` options with defaults; unknown options are an error.
 * @param {Record<string, string>} defaults
 * @param {string} usage
 * @returns {Record<string, string>}
 */
function parseOptions(defaults, usage) {
  const argv = process.argv.slice(2);
  const out = { ...defaults };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${usage}\n`);
      process.exit(0);
    }
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!m || !(m[1] in defaults)) {
      process.stderr.write(`unknown option ${arg}\n${usage}\n`);
      process.exit(2);
    }
    const value = m[2] ?? argv[++i];
    if (value === undefined) {
      process.stderr.write(`--${m[1]} needs a value\n${usage}\n`);
      process.exit(2);
    }
    out[m[1]] = value;
  }
  return out;
}

/**
 * A comma-separated list of positive integers; exits with a message naming
 * the option otherwise.
 * @param {string} text
 * @param {string} option
 */
function positiveIntegers(text, option) {
  const values = list(text).map(Number);
  if (!values.length || values.some((n) => !Number.isInteger(n) || n < 1)) {
    process.stderr.write(`--${option} takes positive integers separated by commas (got "${text}")\n`);
    process.exit(2);
  }
  return values;
}

/**
 * A whole number of milliseconds >= 0; exits with a message naming the option otherwise.
 * @param {string} text
 * @param {string} option
 */
function wholeMilliseconds(text, option) {
  const ms = Number(text);
  if (!Number.isInteger(ms) || ms < 0) {
    process.stderr.write(`--${option} takes a whole number of milliseconds >= 0 (got "${text}")\n`);
    process.exit(2);
  }
  return ms;
}

/**
 * A comma-separated list of shapes (wide, deep); exits with a message otherwise.
 * @param {string} text
 */
function shapes(text) {
  const values = list(text);
  const bad = values.filter((v) => v !== 'wide' && v !== 'deep');
  if (!values.length || bad.length) {
    process.stderr.write(`--shapes takes wide and/or deep (got "${text}")\n`);
    process.exit(2);
  }
  return values;
}

/** @param {string} text */
function list(text) {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The folder a `--profile`/`--events` option names, resolved and created;
 * undefined when the option is empty.
 * @param {string} option
 */
function outputDir(option) {
  const dir = option ? path.resolve(option) : undefined;
  if (dir) fs.mkdirSync(dir, { recursive: true });
  return dir;
}

// ------------------------------------------------------------------ emulator

/**
 * @typedef {object} Emulator
 * @property {string} url
 * @property {number} pid
 * @property {(method: string, route: string, body?: unknown) => Promise<any>} control  `/_emulator/<route>`
 * @property {() => Promise<void>} stop
 */

/**
 * Starts `aws-emulator --port 0` as a separate process, so its CPU is not
 * mixed with cdkd's.
 * @returns {Promise<Emulator>}
 */
function startEmulator() {
  const child = spawn(process.execPath, [EMULATOR_BIN, '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      const url = m[1];
      resolve({
        url,
        pid: /** @type {number} */ (child.pid),
        control: async (method, route, body) => {
          const res = await fetch(`${url}/_emulator/${route}`, {
            method,
            headers: body === undefined ? {} : { 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          });
          const json = await res.json();
          if (!res.ok)
            throw new Error(`emulator control ${method} ${route}: ${res.status} ${JSON.stringify(json)}`);
          return json;
        },
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.on('exit', (code) =>
      reject(new Error(`aws-emulator exited with ${code} before listening\n${stderr}`)),
    );
  });
}

/**
 * The benchmarks' latency profile: the emulator's `flat` profile (every call
 * `callMs`, every Cloud Control request `cloudControlMs` from the request to
 * SUCCESS), or, given latencies per type, `flat` for the calls and each
 * type's own request latency.
 * @param {Emulator} emulator
 * @param {number} callMs
 * @param {number | Record<string, number>} cloudControlMs
 */
async function setLatencyProfile(emulator, callMs, cloudControlMs) {
  const perType = typeof cloudControlMs === 'number' ? undefined : cloudControlMs;
  await emulator.control('PUT', 'latency/profile', {
    name: 'flat',
    callMs,
    cloudControlMs: perType ? 0 : cloudControlMs,
  });
  for (const [type, ms] of Object.entries(perType ?? {}))
    await emulator.control('PUT', `cloudcontrol/types/${encodeURIComponent(type)}`, { latencyMs: ms });
}

/**
 * The emulator's CPU time (user + system) between two `GET stats` readings.
 * @param {{ cpuUserMs: number, cpuSystemMs: number }} before
 * @param {{ cpuUserMs: number, cpuSystemMs: number }} after
 */
function emulatorCpuMs(before, after) {
  return after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
}

/**
 * @typedef {object} Workspace
 * @property {Emulator} emulator
 * @property {NodeJS.ProcessEnv} env  the environment of cdkd children ({@link cliEnv})
 * @property {import('@aws-sdk/client-s3').S3Client} s3  a client on the emulator's S3
 * @property {string} assembly  an empty folder for the cloud assembly
 */

/**
 * Runs `fn` against a fresh emulator process on which cdkd is bootstrapped,
 * with a cdkd home and an assembly folder of its own; stops the emulator and
 * removes the folders afterwards, whatever `fn` did.
 * @template T
 * @param {(workspace: Workspace) => Promise<T>} fn
 * @returns {Promise<T>}
 */
async function withBootstrappedEmulator(fn) {
  const emulator = await startEmulator();
  const home = tempDir('cdkd-bench-home-');
  const assembly = tempDir('cdkd-bench-assembly-');
  const env = cliEnv(emulator.url, home);
  const s3 = s3Client(emulator.url);
  try {
    expectSuccess(await runCdkd(['bootstrap'], { env }), 'cdkd bootstrap');
    return await fn({ emulator, env, s3, assembly });
  } finally {
    s3.destroy();
    await emulator.stop();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(assembly, { recursive: true, force: true });
  }
}

// ----------------------------------------------------------------------- cli

/**
 * The environment of a cdkd child: the emulator as endpoint, dummy
 * credentials, a region, and oclif/XDG folders of its own.
 * @param {string} url
 * @param {string} home
 */
function cliEnv(url, home) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_DATA_HOME: path.join(home, 'data'),
    XDG_CONFIG_HOME: path.join(home, 'config'),
    XDG_CACHE_HOME: path.join(home, 'cache'),
    AWS_ENDPOINT_URL: url,
    AWS_ACCESS_KEY_ID: CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: CREDENTIALS.secretAccessKey,
    AWS_REGION: REGION,
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_VERSION_CHECK: '1',
    CI: 'true',
  };
}

/**
 * @typedef {object} CliRun
 * @property {number | null} code
 * @property {string} stdout
 * @property {string} stderr
 * @property {Array<{ atMs: number, text: string }>} lines  stderr lines, with arrival time since the start
 * @property {number} wallMs  process wall time, as this script saw it
 * @property {number} maxRssKb  peak resident memory of the cdkd process (GNU time %M)
 * @property {number} cpuMs  user + system CPU of the cdkd process (GNU time %U + %S)
 */

/**
 * Runs `node bin/run.js <args>` (of the chosen cdkd install) under GNU time.
 * @param {string[]} args
 * @param {{ env: NodeJS.ProcessEnv, cwd?: string, nodeOptions?: string[] }} options
 * @returns {Promise<CliRun>}
 */
function runCdkd(args, options) {
  const timeFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-bench-time-')), 'time.txt');
  const child = spawn(
    GNU_TIME,
    ['-f', '%M %U %S', '-o', timeFile, process.execPath, ...(options.nodeOptions ?? []), cdkdBin(), ...args],
    {
      cwd: options.cwd ?? ROOT,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const started = process.hrtime.bigint();
  const sinceStart = () => Number(process.hrtime.bigint() - started) / 1e6;
  let stdout = '';
  let stderr = '';
  let partial = '';
  /** @type {CliRun['lines']} */
  const lines = [];
  child.stdout.on('data', (d) => (stdout += d.toString()));
  child.stderr.on('data', (d) => {
    const text = d.toString();
    stderr += text;
    const parts = (partial + text).split('\n');
    partial = parts.pop() ?? '';
    const at = sinceStart();
    for (const line of parts) lines.push({ atMs: at, text: line });
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = sinceStart();
      if (partial) lines.push({ atMs: wallMs, text: partial });
      const [rss, user, sys] = fs
        .readFileSync(timeFile, 'utf8')
        .trim()
        .split('\n')
        .pop()
        .split(' ')
        .map(Number);
      fs.rmSync(path.dirname(timeFile), { recursive: true, force: true });
      resolve({ code, stdout, stderr, lines, wallMs, maxRssKb: rss, cpuMs: Math.round((user + sys) * 1000) });
    });
  });
}

/**
 * Node options that write a V8 CPU profile of the cdkd process into
 * `profileDir` as `<name>.cpuprofile`; none without a folder.
 * @param {string | undefined} profileDir
 * @param {string} name
 */
function cpuProfileOptions(profileDir, name) {
  return profileDir
    ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${name}.cpuprofile`]
    : [];
}

/**
 * Fails with the CLI's output when it did not exit 0.
 * @param {CliRun} run
 * @param {string} what
 */
function expectSuccess(run, what) {
  if (run.code !== 0) {
    throw new Error(
      `${what} exited ${run.code}\n--- stdout\n${run.stdout.slice(-4000)}\n--- stderr\n${run.stderr.slice(-4000)}`,
    );
  }
}

/**
 * The `--json` payload of a deploy/destroy: the one stack's entry.
 * @param {CliRun} run
 */
function jsonStack(run) {
  const payload = JSON.parse(run.stdout);
  const stacks = payload.stacks ?? payload.result?.stacks;
  if (!Array.isArray(stacks) || stacks.length !== 1)
    throw new Error(`unexpected --json output: ${run.stdout.slice(0, 500)}`);
  return stacks[0];
}

/**
 * Synthesizes the synthetic app once into `outDir` with `cdkd synth`.
 * @param {{ size: number, shape: string, chains: number, types: string, stackName: string, outDir: string, env: NodeJS.ProcessEnv }} o
 */
async function synthesize(o) {
  const context = { size: o.size, shape: o.shape, chains: o.chains, types: o.types, stackName: o.stackName };
  const run = await runCdkd(
    [
      'synth',
      '--app',
      `node ${APP}`,
      '-o',
      o.outDir,
      '--json',
      ...Object.entries(context).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
    ],
    { env: o.env },
  );
  expectSuccess(run, `cdkd synth of ${o.stackName}`);
  return { template: JSON.parse(run.stdout), synthMs: Math.round(run.wallMs) };
}

// ------------------------------------------------------------------------ s3

/** @param {string} url */
function s3Client(url) {
  // This script's own client: its Node-version notice is noise in the report.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const { S3Client } = require('@aws-sdk/client-s3');
  return new S3Client({ region: REGION, endpoint: url, forcePathStyle: true, credentials: CREDENTIALS });
}

/** @param {string} stackName */
function stateKey(stackName) {
  return `cdkd/${stackName}/${REGION}/state.json`;
}

/**
 * The stack's state.json as stored now: its size in bytes and resource count.
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} stackName
 */
async function readState(s3, stackName) {
  const { GetObjectCommand } = require('@aws-sdk/client-s3');
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: STATE_BUCKET, Key: stateKey(stackName) }));
    const body = Buffer.from(await /** @type {any} */ (out.Body).transformToByteArray());
    return {
      bytes: body.length,
      resources: Object.keys(JSON.parse(body.toString('utf8')).resources ?? {}).length,
    };
  } catch (err) {
    if (/** @type {Error} */ (err).name === 'NoSuchKey') return undefined;
    throw err;
  }
}

/**
 * Every stored version of the stack's state.json (the state bucket is
 * versioned): one per successful write, with its size.
 * @param {import('@aws-sdk/client-s3').S3Client} s3
 * @param {string} stackName
 * @returns {Promise<number[]>} sizes, oldest first
 */
async function stateVersionSizes(s3, stackName) {
  const { ListObjectVersionsCommand } = require('@aws-sdk/client-s3');
  const key = stateKey(stackName);
  /** @type {Array<{ size: number, at: number }>} */
  const versions = [];
  let KeyMarker;
  let VersionIdMarker;
  for (;;) {
    const out = await s3.send(
      new ListObjectVersionsCommand({ Bucket: STATE_BUCKET, Prefix: key, KeyMarker, VersionIdMarker }),
    );
    for (const v of out.Versions ?? [])
      if (v.Key === key) versions.push({ size: v.Size ?? 0, at: v.LastModified?.getTime() ?? 0 });
    if (!out.IsTruncated) break;
    KeyMarker = out.NextKeyMarker;
    VersionIdMarker = out.NextVersionIdMarker;
  }
  return versions.sort((a, b) => a.at - b.at).map((v) => v.size);
}

// --------------------------------------------------------------------- graph

/**
 * The resource dependency graph of a template: Ref, Fn::GetAtt, Fn::Sub and
 * DependsOn between resources.
 * @param {{ Resources: Record<string, any> }} template
 * @returns {Map<string, { type: string, deps: string[] }>}
 */
function templateGraph(template) {
  const ids = new Set(Object.keys(template.Resources));
  /** @type {Map<string, { type: string, deps: string[] }>} */
  const graph = new Map();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type === 'AWS::CDK::Metadata') continue;
    const deps = new Set([].concat(resource.DependsOn ?? []));
    const walk = (/** @type {unknown} */ v) => {
      if (Array.isArray(v)) return v.forEach(walk);
      if (!v || typeof v !== 'object') return;
      for (const [k, inner] of Object.entries(v)) {
        if (k === 'Ref' && typeof inner === 'string') deps.add(inner);
        else if (k === 'Fn::GetAtt') deps.add(Array.isArray(inner) ? inner[0] : String(inner).split('.')[0]);
        else if (k === 'Fn::Sub') {
          const text = Array.isArray(inner) ? inner[0] : inner;
          for (const m of String(text).matchAll(/\$\{([^!}][^}.]*)/g)) deps.add(m[1]);
          if (Array.isArray(inner)) walk(inner[1]);
        } else walk(inner);
      }
    };
    walk(resource.Properties);
    graph.set(id, { type: resource.Type, deps: [...deps].filter((d) => ids.has(d) && d !== id) });
  }
  return graph;
}

/**
 * Longest path through the graph when node `id` takes `weight(id)` and
 * everything ready runs at once.
 * @param {Map<string, { type: string, deps: string[] }>} graph
 * @param {(id: string) => number} weight
 */
function criticalPath(graph, weight) {
  /** @type {Map<string, number>} */
  const finish = new Map();
  const visit = (/** @type {string} */ id) => {
    const known = finish.get(id);
    if (known !== undefined) return known;
    const node = /** @type {{ deps: string[] }} */ (graph.get(id));
    let start = 0;
    for (const d of node.deps) start = Math.max(start, visit(d));
    const end = start + weight(id);
    finish.set(id, end);
    return end;
  };
  let longest = 0;
  for (const id of graph.keys()) longest = Math.max(longest, visit(id));
  return longest;
}

/**
 * Makespan of an ideal executor with `concurrency` slots and zero overhead:
 * whenever a slot is free it starts the next ready node (template order).
 * Equals the critical path when the concurrency is at least the graph's width.
 * @param {Map<string, { type: string, deps: string[] }>} graph
 * @param {(id: string) => number} weight
 * @param {number} concurrency
 */
function idealSchedule(graph, weight, concurrency) {
  const waiting = new Map([...graph].map(([id, n]) => [id, n.deps.length]));
  /** @type {Map<string, string[]>} */
  const dependents = new Map();
  for (const [id, n] of graph) for (const d of n.deps) dependents.set(d, [...(dependents.get(d) ?? []), id]);
  const ready = [...graph.keys()].filter((id) => waiting.get(id) === 0);
  /** @type {Array<{ id: string, end: number }>} */
  let running = [];
  let now = 0;
  let done = 0;
  while (done < graph.size) {
    while (running.length < concurrency && ready.length) {
      const id = /** @type {string} */ (ready.shift());
      running.push({ id, end: now + weight(id) });
    }
    if (!running.length) throw new Error('the graph has a cycle');
    now = Math.min(...running.map((r) => r.end));
    const finished = running.filter((r) => r.end === now);
    running = running.filter((r) => r.end !== now);
    for (const f of finished) {
      done++;
      for (const d of dependents.get(f.id) ?? []) {
        const left = /** @type {number} */ (waiting.get(d)) - 1;
        waiting.set(d, left);
        if (left === 0) ready.push(d);
      }
    }
  }
  return now;
}

/**
 * Largest number of nodes ready at once (an antichain bound good enough for
 * chains and independent sets: the number of nodes without dependencies, or
 * the number of chains).
 * @param {Map<string, { type: string, deps: string[] }>} graph
 */
function sourceCount(graph) {
  return [...graph.values()].filter((n) => n.deps.length === 0).length;
}

// ---------------------------------------------------------------- reporting

/** @param {number} bytes */
function formatBytes(bytes) {
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(2)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/**
 * A Markdown table.
 * @param {string[]} headers
 * @param {Array<Array<string | number>>} rows
 */
function markdownTable(headers, rows) {
  return [
    `| ${headers.join(' | ')} |`,
    `| ${headers.map(() => '---').join(' | ')} |`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

/** A fresh folder under the OS temp dir. @param {string} prefix */
function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Runs one configuration per size and shape, in turn. Logs the machine and
 * options, then each result, as JSON lines on stderr, and writes them all to
 * `options.out` when that is set.
 * @template T
 * @param {Record<string, string>} options  the parsed options
 * @param {number[]} sizes
 * @param {string[]} shapeList
 * @param {(size: number, shape: string) => Promise<T>} run
 * @returns {Promise<T[]>}
 */
async function runEach(options, sizes, shapeList, run) {
  const results = [];
  console.error(JSON.stringify({ machine: machine(), options }));
  for (const size of sizes) {
    for (const shape of shapeList) {
      const result = await run(size, shape);
      console.error(JSON.stringify(result));
      results.push(result);
    }
  }
  if (options.out)
    fs.writeFileSync(options.out, `${JSON.stringify({ machine: machine(), options, results }, null, 2)}\n`);
  return results;
}

/** Machine facts for the report. */
function machine() {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    memGiB: Math.round(os.totalmem() / 2 ** 30),
  };
}

module.exports = {
  ROOT,
  APP,
  useCdkd,
  cdkdBin,
  ACCOUNT,
  REGION,
  STATE_BUCKET,
  ensureBuilt,
  parseOptions,
  list,
  positiveIntegers,
  wholeMilliseconds,
  shapes,
  outputDir,
  startEmulator,
  setLatencyProfile,
  emulatorCpuMs,
  withBootstrappedEmulator,
  cliEnv,
  runCdkd,
  cpuProfileOptions,
  expectSuccess,
  jsonStack,
  synthesize,
  s3Client,
  stateKey,
  readState,
  stateVersionSizes,
  templateGraph,
  criticalPath,
  idealSchedule,
  sourceCount,
  formatBytes,
  markdownTable,
  tempDir,
  runEach,
  machine,
};

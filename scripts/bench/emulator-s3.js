#!/usr/bin/env node
'use strict';
/* global fetch -- Node 20 has fetch built in */
/**
 * Throughput of small S3 PutObject / GetObject calls against the emulator,
 * with the real AWS SDK v3 client, at a given concurrency.
 *
 *   node scripts/bench/emulator-s3.js [--ops 5000] [--concurrency 32] [--size 1024] [--endpoint http://127.0.0.1:4566]
 *
 * Without --endpoint it starts the emulator's bin as a child process (so the
 * client and the emulator each have their own event loop, as when cdkd runs
 * against it) and reports the emulator's own CPU time per request, read from
 * GET /_emulator/stats: 1000 / that is what one core of emulator can serve.
 * Bounded: --ops calls per phase, and every phase stops after 120 s.
 */
const path = require('node:path');
const { spawn } = require('node:child_process');
const { S3Client, CreateBucketCommand, PutObjectCommand, GetObjectCommand } = require('@aws-sdk/client-s3');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const OPS = Number(option('ops', '5000'));
const CONCURRENCY = Number(option('concurrency', '32'));
const SIZE = Number(option('size', '1024'));
const ENDPOINT = option('endpoint', undefined);
const PHASE_LIMIT_MS = 120_000;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function emulatorStats(endpoint) {
  const res = await fetch(`${endpoint}/_emulator/stats`);
  return res.json();
}

/** Starts `aws-emulator --port 0` and resolves with its URL. */
function startChild() {
  const bin = path.join(__dirname, '../../test/emulator/bin/aws-emulator.js');
  const child = spawn(process.execPath, [bin, '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`aws-emulator exited with ${code}`)));
  });
}

/** Runs `OPS` calls of `op(i)` with `CONCURRENCY` in flight; returns timings. */
async function phase(name, op, endpoint) {
  const before = await emulatorStats(endpoint);
  const latencies = [];
  let next = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + PHASE_LIMIT_MS;
  async function worker() {
    while (next < OPS && Date.now() < deadline) {
      const i = next++;
      const t0 = process.hrtime.bigint();
      await op(i);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const after = await emulatorStats(endpoint);
  const emulatorCpuMs = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  const requests = after.requests - before.requests - 1;
  const result = {
    phase: name,
    ops: latencies.length,
    seconds: Number(seconds.toFixed(2)),
    opsPerSecond: Math.round(latencies.length / seconds),
    p50ms: Number(percentile(latencies, 50).toFixed(2)),
    p99ms: Number(percentile(latencies, 99).toFixed(2)),
    emulatorCpuMsPerRequest: Number((emulatorCpuMs / requests).toFixed(3)),
    emulatorCapacityPerCore: Math.round((requests * 1000) / emulatorCpuMs),
  };
  console.log(JSON.stringify(result));
  return result;
}

async function main() {
  let child;
  let endpoint = ENDPOINT;
  if (!endpoint) {
    ({ child, url: endpoint } = await startChild());
  }
  const s3 = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'AKIABENCHMARK0000001', secretAccessKey: 'bench' },
    maxAttempts: 1,
  });
  const bucket = `bench-${Date.now()}`;
  await s3.send(new CreateBucketCommand({ Bucket: bucket }));
  const body = Buffer.alloc(SIZE, 'x');
  console.log(
    JSON.stringify({
      endpoint: ENDPOINT ? endpoint : 'child process',
      ops: OPS,
      concurrency: CONCURRENCY,
      objectBytes: SIZE,
      node: process.version,
    }),
  );
  await phase(
    'PutObject',
    (i) => s3.send(new PutObjectCommand({ Bucket: bucket, Key: `objects/${i}.json`, Body: body })),
    endpoint,
  );
  await phase(
    'PutObject If-None-Match',
    (i) =>
      s3.send(new PutObjectCommand({ Bucket: bucket, Key: `locks/${i}.json`, Body: body, IfNoneMatch: '*' })),
    endpoint,
  );
  await phase(
    'GetObject',
    async (i) => {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: `objects/${i % OPS}.json` }));
      await out.Body.transformToByteArray();
    },
    endpoint,
  );
  s3.destroy();
  if (child) child.kill('SIGTERM');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

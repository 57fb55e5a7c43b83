/**
 * Reads an existing cloud assembly directory (`--app cdk.out`) without loading
 * @aws-cdk/toolkit-lib: the CDK's own assembly reader
 * (`@aws-cdk/cloud-assembly-api`, the class toolkit-lib uses for this) under the
 * same directory read lock as toolkit-lib and the CDK CLI take, so a `cdk synth`
 * or cdkd writing into the directory and this read exclude each other. Loading
 * toolkit-lib costs about 0.8 s of CPU on an idle machine (several seconds on a
 * loaded one) and every `--app <dir>` command paid it for nothing.
 *
 * The lock is toolkit-lib's file protocol (its `RWLock`): a writer holds
 * `synth.lock` holding its PID; each reader adds `read.<pid>.<n>.lock`. A lock
 * file whose process is gone is stale and removed. A reader refuses a live
 * writer; a writer refuses live readers.
 *
 * Not done here, as toolkit-lib does for this source: reading `tree.json` to
 * warn that an app's context overflow is unsupported by the CLI — that concerns
 * synthesis, which an existing assembly has already been through.
 */
import type * as CloudAssemblyApi from '@aws-cdk/cloud-assembly-api';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SynthesisError } from '../util/errors';
import type { CloudAssemblyLike } from './cloud-assembly';

const WRITER_FILE = 'synth.lock';
const READER_FILE = /^read\.(\d+)\.[^.]+\.lock$/;

/** Lock files this process wrote and has not released (a file with our PID not in here is a dead namesake's). */
const owned = new Set<string>();
let readers = 0;
let tmpFiles = 0;

/** A directory's read lock; release it once the assembly's files are no longer read. */
export interface AssemblyReadLock {
  release(): Promise<void>;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, owned by someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function stale(file: string, pid: number): boolean {
  return pid === process.pid ? !owned.has(file) : !processAlive(pid);
}

function removeQuietly(file: string): void {
  try {
    fs.unlinkSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

/** The PID of a live process writing into the directory, if any (a stale writer file is removed). */
export function liveWriter(directory: string): number | undefined {
  const file = path.join(directory, WRITER_FILE);
  let contents: string;
  try {
    contents = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  const pid = Number.parseInt(contents, 10);
  if (Number.isNaN(pid) || stale(file, pid)) {
    removeQuietly(file);
    return undefined;
  }
  return pid;
}

/** The PIDs of live readers of the directory (stale reader files are removed). */
export function liveReaders(directory: string): number[] {
  const pids: number[] = [];
  for (const name of fs.readdirSync(directory)) {
    const m = READER_FILE.exec(name);
    if (!m) continue;
    const file = path.join(directory, name);
    const pid = Number.parseInt(m[1], 10);
    if (stale(file, pid)) removeQuietly(file);
    else pids.push(pid);
  }
  return pids;
}

/** Takes a read lock on an assembly directory; refuses while another process writes into it. */
export function acquireReadLock(directory: string): AssemblyReadLock {
  const writer = liveWriter(directory);
  if (writer !== undefined) {
    throw new SynthesisError(
      `The cloud assembly directory ${directory} is in use by another process: another CLI (PID=${writer}) is currently synthesizing into it.`,
      {
        code: 'ASSEMBLY_DIRECTORY_BUSY',
        remedy: 'Wait for that command to finish (or stop it), then re-run.',
      },
    );
  }
  const file = path.join(directory, `read.${process.pid}.${++readers}.lock`);
  // Written atomically (temporary file, then rename), as toolkit-lib writes its lock files.
  const tmp = `${file}.${process.pid}_${++tmpFiles}`;
  fs.writeFileSync(tmp, String(process.pid));
  fs.renameSync(tmp, file);
  owned.add(file);
  let released = false;
  return {
    release: async () => {
      if (released) return;
      released = true;
      owned.delete(file);
      removeQuietly(file);
    },
  };
}

/** An assembly read from a directory, with its read lock. */
export interface DirectoryAssembly {
  assembly: CloudAssemblyLike;
  dispose(): Promise<void>;
}

/** Reads the cloud assembly in `directory` under a read lock (held until `dispose`). */
export function readAssemblyDirectory(directory: string): DirectoryAssembly {
  const lock = acquireReadLock(directory);
  try {
    const { CloudAssembly } = require('@aws-cdk/cloud-assembly-api') as typeof CloudAssemblyApi;
    // Stacks are ordered by cdkd's own planning, as toolkit-lib reads it (topoSort: false).
    const assembly = new CloudAssembly(directory, { topoSort: false });
    const missing = assembly.manifest.missing ?? [];
    if (missing.length > 0) {
      const keys = [...new Set(missing.map((m) => m.key))];
      throw new SynthesisError(
        `The cloud assembly in ${directory} was synthesized with context values missing: ${keys.join(', ')}.`,
        {
          code: 'ASSEMBLY_MISSING_CONTEXT',
          remedy:
            'Synthesize the app where its context lookups can run (or with the values in cdk.context.json), or pass the app command to --app so cdkd synthesizes it and performs the lookups.',
        },
      );
    }
    return { assembly: assembly as unknown as CloudAssemblyLike, dispose: () => lock.release() };
  } catch (err) {
    void lock.release();
    throw err;
  }
}

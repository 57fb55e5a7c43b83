import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { anySignal } from '../../../src/util/signals';

describe('anySignal', () => {
  it('aborts with the reason of the first input signal that aborts, and ignores the others', () => {
    const a = new AbortController();
    const b = new AbortController();
    const combined = anySignal(a.signal, undefined, b.signal);
    expect(combined.aborted).toBe(false);
    b.abort(new Error('second'));
    a.abort(new Error('first'));
    expect(combined.aborted).toBe(true);
    expect((combined.reason as Error).message).toBe('second');
  });

  it('is aborted at once when an input already is', () => {
    const a = new AbortController();
    a.abort('gone');
    expect(anySignal(a.signal).reason).toBe('gone');
  });

  it('takes many listeners with no MaxListenersExceeded warning (every operation in flight listens)', () => {
    // In a plain Node process: jest's realm has AbortSignals of its own, on which Node never warns.
    const source = fs.readFileSync(path.join(__dirname, '../../../src/util/signals.ts'), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS } }).outputText;
    const script = `const module = { exports: {} }; const exports = module.exports;
${js}
process.on('warning', (w) => console.log(w.name));
const combined = module.exports.anySignal(new AbortController().signal);
for (let i = 0; i < 50; i++) combined.addEventListener('abort', () => undefined);
setImmediate(() => console.log('done'));`;
    const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(out.stderr).toBe('');
    expect(out.stdout.trim().split('\n')).toEqual(['done']);
  });
});

import { Writable } from 'node:stream';
import { emitResourceEvent, emitStackEvent } from '../../../src/engine/events';
import { ProgressRenderer, chooseProgressMode } from '../../../src/ui/progress';
import { createLogger } from '../../../src/util/io-host';

function sink(): { stream: Writable & { rows?: number }; text: () => string } {
  let out = '';
  const stream = new Writable({
    write(chunk, _enc, done) {
      out += chunk.toString();
      done();
    },
  }) as Writable & { rows?: number };
  return { stream, text: () => out };
}

describe('ProgressRenderer', () => {
  it('prints one plain line per event without a terminal', () => {
    const out = sink();
    const r = new ProgressRenderer({ mode: 'events', stream: out.stream });
    emitResourceEvent(r, {
      stackName: 'S',
      logicalId: 'Q',
      resourceType: 'AWS::SQS::Queue',
      action: 'CREATE',
      status: 'started',
      route: 'sdk',
    });
    emitResourceEvent(r, {
      stackName: 'S',
      logicalId: 'Q',
      resourceType: 'AWS::SQS::Queue',
      action: 'CREATE',
      status: 'succeeded',
      elapsedMs: 1234,
    });
    emitResourceEvent(r, {
      stackName: 'S',
      logicalId: 'T',
      resourceType: 'AWS::SNS::Topic',
      action: 'UPDATE',
      status: 'failed',
      reason: 'AccessDenied',
    });
    createLogger(r).debug('hidden without --verbose');
    r.close();
    expect(out.text()).toBe(
      [
        '  … S: creating Q (AWS::SQS::Queue)',
        '  ✓ S: created Q (AWS::SQS::Queue) in 1.2s',
        '  ✗ S: failed to update T (AWS::SNS::Topic): AccessDenied',
        '',
      ].join('\n'),
    );
  });

  it('keeps running resources in a live area with elapsed time, a running count and the total time', () => {
    jest.useFakeTimers();
    try {
      let now = 0;
      const out = sink();
      out.stream.rows = 40;
      const r = new ProgressRenderer({ mode: 'live', stream: out.stream, refreshMs: 100, now: () => now });
      emitStackEvent(
        r,
        { stackName: 'S', region: 'us-east-1', operation: 'deploy', phase: 'planned', total: 2 },
        'S: deploying (2 changes)',
      );
      emitResourceEvent(r, {
        stackName: 'S',
        logicalId: 'A',
        resourceType: 'AWS::SNS::Topic',
        action: 'CREATE',
        status: 'started',
      });
      emitResourceEvent(r, {
        stackName: 'S',
        logicalId: 'B',
        resourceType: 'AWS::SNS::Topic',
        action: 'CREATE',
        status: 'started',
      });
      now = 1500;
      jest.advanceTimersByTime(100);
      const live = out.text();
      expect(live).toContain('creating A (AWS::SNS::Topic) (1.5s)');
      expect(live).toContain('[0/2 done, 2 in progress, 1.5s]');
      emitResourceEvent(r, {
        stackName: 'S',
        logicalId: 'A',
        resourceType: 'AWS::SNS::Topic',
        action: 'CREATE',
        status: 'succeeded',
        elapsedMs: 1500,
      });
      now = 2000;
      jest.advanceTimersByTime(100);
      expect(out.text()).toContain('  ✓ S: created A (AWS::SNS::Topic) in 1.5s\n');
      expect(out.text()).toContain('[1/2 done, 1 in progress, 2.0s]');
      // The live area is erased (cursor up + clear) before it is redrawn.
      expect(out.text()).toContain('\x1b[');
      r.close();
    } finally {
      jest.useRealTimers();
    }
  });

  it('prints only warnings and errors in errors-only mode', () => {
    const out = sink();
    const r = new ProgressRenderer({ mode: 'errors-only', stream: out.stream });
    const base = {
      stackName: 'S',
      logicalId: 'Q',
      resourceType: 'AWS::SQS::Queue',
      action: 'CREATE',
    } as const;
    emitResourceEvent(r, { ...base, status: 'started' });
    emitResourceEvent(r, { ...base, status: 'succeeded' });
    emitResourceEvent(r, { ...base, logicalId: 'T', status: 'failed', reason: 'AccessDenied' });
    createLogger(r).info('deployed');
    createLogger(r).warn('careful');
    r.close();
    expect(out.text()).toBe(
      ['  ✗ S: failed to create T (AWS::SQS::Queue): AccessDenied', 'warning: careful', ''].join('\n'),
    );
  });

  it('holds lines back while paused for a question, then prints them in order', async () => {
    const out = sink();
    const r = new ProgressRenderer({ mode: 'events', stream: out.stream });
    const log = createLogger(r);
    let release!: () => void;
    const answered = r.pause(
      () =>
        new Promise<string>((resolve) => {
          release = () => resolve('yes');
        }),
    );
    log.info('during the question');
    expect(out.text()).toBe('');
    release();
    expect(await answered).toBe('yes');
    log.info('after');
    expect(out.text()).toBe('during the question\nafter\n');
  });

  it('with batch, writes the lines of one event-loop turn in one write, and at once on pause and close', async () => {
    jest.useFakeTimers();
    try {
      const out = sink();
      const writes: string[] = [];
      const write = out.stream.write.bind(out.stream);
      out.stream.write = ((chunk: string) => {
        writes.push(chunk);
        return write(chunk);
      }) as typeof out.stream.write;
      const r = new ProgressRenderer({ mode: 'events', stream: out.stream, batch: true });
      const log = createLogger(r);
      log.info('one');
      log.info('two');
      expect(writes).toEqual([]);
      jest.runOnlyPendingTimers();
      expect(writes).toEqual(['one\ntwo\n']);
      log.info('three');
      // A question shows only after what was printed before it.
      const answered = r.pause(async () => {
        expect(out.text()).toBe('one\ntwo\nthree\n');
        log.info('during');
        return 'yes';
      });
      expect(await answered).toBe('yes');
      log.info('four');
      r.close();
      expect(out.text()).toBe('one\ntwo\nthree\nduring\nfour\n');
      // After close, every line is written at once.
      log.info('summary');
      expect(writes[writes.length - 1]).toBe('summary\n');
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      jest.useRealTimers();
    }
  });

  it('chooses live on a terminal outside CI unless events are asked for, as the CDK CLI does', () => {
    expect(chooseProgressMode(undefined, true)).toBe('live');
    expect(chooseProgressMode(undefined, false)).toBe('events');
    expect(chooseProgressMode('events', true)).toBe('events');
    expect(chooseProgressMode('bar', true)).toBe('live');
    expect(chooseProgressMode('live', true)).toBe('live');
    // No terminal, or CI: a live view cannot be drawn, whatever was asked.
    expect(chooseProgressMode('bar', false)).toBe('events');
    expect(chooseProgressMode(undefined, true, true)).toBe('events');
    expect(chooseProgressMode('errors-only', true)).toBe('errors-only');
  });
});

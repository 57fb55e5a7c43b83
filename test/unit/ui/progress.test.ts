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

  it('chooses live on a terminal unless events are asked for', () => {
    expect(chooseProgressMode(undefined, true)).toBe('live');
    expect(chooseProgressMode(undefined, false)).toBe('events');
    expect(chooseProgressMode('events', true)).toBe('events');
    expect(chooseProgressMode('live', false)).toBe('live');
  });
});

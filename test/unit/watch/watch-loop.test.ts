import { WatchLoop } from '../../../src/watch/watch-loop';
import type { Trigger } from '../../../src/watch/watch-loop';

/** A deploy that waits until the test finishes it. */
function controlledDeploys() {
  const calls: Trigger[] = [];
  const finishers: Array<(err?: Error) => void> = [];
  const deploy = (trigger: Trigger) =>
    new Promise<void>((resolve, reject) => {
      calls.push({ kind: trigger.kind, files: [...trigger.files] });
      finishers.push((err) => (err ? reject(err) : resolve()));
    });
  const finish = async (err?: Error) => {
    finishers.shift()!(err);
    for (let i = 0; i < 10; i++) await Promise.resolve();
  };
  return { calls, deploy, finish };
}

describe('WatchLoop', () => {
  it('deploys once when ready, ignores events of the initial scan, then deploys per change', async () => {
    const d = controlledDeploys();
    const errors: unknown[] = [];
    const loop = new WatchLoop({ deploy: d.deploy, onError: (e) => errors.push(e) });
    loop.changed('early.js');
    expect(d.calls).toEqual([]);
    loop.ready();
    expect(d.calls).toEqual([{ kind: 'initial', files: [] }]);
    await d.finish();
    loop.changed('handler/index.js');
    expect(d.calls[1]).toEqual({ kind: 'change', files: ['handler/index.js'] });
    await d.finish();
    await loop.settled();
    expect(errors).toEqual([]);
  });

  it('batches the changes made during a deploy into one more deploy after it', async () => {
    const d = controlledDeploys();
    const loop = new WatchLoop({ deploy: d.deploy, onError: () => undefined });
    loop.ready();
    loop.changed('a.js');
    loop.changed('b.js');
    loop.changed('a.js');
    expect(d.calls).toHaveLength(1);
    await d.finish();
    expect(d.calls[1]).toEqual({ kind: 'change', files: ['a.js', 'b.js'] });
    await d.finish();
    await loop.settled();
    expect(d.calls).toHaveLength(2);
  });

  it('keeps going after a failed deploy', async () => {
    const d = controlledDeploys();
    const errors: Array<{ err: unknown; trigger: Trigger }> = [];
    const loop = new WatchLoop({
      deploy: d.deploy,
      onError: (err, trigger) => errors.push({ err, trigger }),
    });
    loop.ready();
    await d.finish(new Error('bad template'));
    expect(errors.map((e) => (e.err as Error).message)).toEqual(['bad template']);
    loop.changed('app.js');
    expect(d.calls).toHaveLength(2);
    await d.finish();
    await loop.settled();
  });

  it('stops: waits for the deploy in progress, drops queued changes, ignores later events', async () => {
    const d = controlledDeploys();
    const loop = new WatchLoop({ deploy: d.deploy, onError: () => undefined });
    loop.ready();
    loop.changed('queued.js');
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    await d.finish();
    await stopping;
    expect(stopped).toBe(true);
    loop.changed('late.js');
    expect(d.calls).toHaveLength(1);
  });
});

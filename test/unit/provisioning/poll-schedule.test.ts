/**
 * The Cloud Control poll schedule, on a manual clock: when each status check
 * goes out, what requests learn from each other, and what a workload costs.
 */
import { PollSchedule, scheduleKey } from '../../../src/provisioning/poll-schedule';
import type { PollScheduleOptions } from '../../../src/provisioning/poll-schedule';
import { ManualClock } from '../support/manual-clock';

/** Round trip of one simulated status check. */
const RTT = 50;

/**
 * One simulated Cloud Control request, polled until done: the server sees a
 * check half a round trip after it is sent; the handler is done `durationMs`
 * after the request was accepted (half a round trip before `begin`).
 * Resolves with the times the checks were sent (ms after `begin`).
 */
async function poll(
  clock: ManualClock,
  schedule: PollSchedule,
  typeName: string,
  durationMs: number,
): Promise<{ checks: number[]; finishedMs: number }> {
  const ticket = schedule.begin(typeName, 'CREATE');
  const start = clock.now();
  const checks: number[] = [];
  try {
    for (;;) {
      await ticket.next();
      const sent = clock.now();
      checks.push(sent - start);
      await clock.sleep(RTT);
      const done = sent + RTT / 2 >= start - RTT / 2 + durationMs;
      ticket.answered(done ? 'SUCCESS' : 'IN_PROGRESS');
      if (done) return { checks, finishedMs: clock.now() - start };
    }
  } finally {
    ticket.end();
  }
}

function setup(options: PollScheduleOptions = {}) {
  const clock = new ManualClock();
  const schedule = new PollSchedule({ clock, ...options });
  return { clock, schedule };
}

describe('PollSchedule', () => {
  it('checks the first request of a type at once, then a growing fraction of its elapsed time apart', async () => {
    const { clock, schedule } = setup();
    const run = poll(clock, schedule, 'AWS::SNS::Topic', 2000);
    await clock.runAll();
    const { checks } = await run;
    expect(checks[0]).toBe(0);
    const gaps = checks.slice(1).map((c, i) => c - checks[i]);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(100);
    // 10 % of the elapsed time once that is more than the shortest delay.
    expect(gaps[gaps.length - 1]).toBeCloseTo(0.1 * checks[checks.length - 2], 0);
    expect(checks[checks.length - 1]).toBeGreaterThanOrEqual(2000 - RTT);
  });

  it('lets other requests of the type wait for the first one, then checks them when its result lands', async () => {
    const { clock, schedule } = setup();
    const scout = poll(clock, schedule, 'AWS::SNS::Topic', 2000);
    await clock.advance(10);
    const others = [1, 2, 3].map(() => poll(clock, schedule, 'AWS::SNS::Topic', 2000));
    await clock.runAll();
    const first = await scout;
    for (const other of await Promise.all(others)) {
      expect(other.checks).toHaveLength(1);
      // Checked within a round trip of the scout learning the answer.
      expect(other.checks[0] + 10).toBeLessThanOrEqual(first.finishedMs + RTT);
      expect(other.checks[0] + 10).toBeGreaterThanOrEqual(first.finishedMs - RTT);
    }
  });

  it('checks a later request of a known type once, so that the server sees it at the expected time', async () => {
    const { clock, schedule } = setup();
    for (let i = 0; i < 8; i++) {
      const run = poll(clock, schedule, 'AWS::Logs::LogGroup', 3000);
      await clock.runAll();
      await run;
    }
    const run = poll(clock, schedule, 'AWS::Logs::LogGroup', 3000);
    await clock.runAll();
    const { checks, finishedMs } = await run;
    expect(checks).toHaveLength(1);
    // Done at 3000 - RTT/2 after begin as the server sees it; noticed within the tolerance.
    expect(finishedMs - 3000).toBeGreaterThanOrEqual(0);
    expect(finishedMs - 3000).toBeLessThanOrEqual(Math.max(25, 0.015 * 3000) + 1);
  });

  it('narrows a wide estimate by bisection, one probing request at a time', async () => {
    const { clock, schedule } = setup();
    const widths: number[] = [];
    const key = scheduleKey('AWS::ECR::Repository', 'CREATE');
    for (let i = 0; i < 8; i++) {
      const run = poll(clock, schedule, 'AWS::ECR::Repository', 5000);
      await clock.runAll();
      await run;
      const samples = schedule.history()[key];
      const lo = Math.max(...samples.map((s) => s.lo ?? 0));
      const hi = Math.min(...samples.map((s) => s.hi));
      widths.push(hi - lo);
    }
    // The scout leaves an interval of about 10 % of the duration; probes halve it.
    expect(widths[0]).toBeGreaterThan(200);
    expect(widths[widths.length - 1]).toBeLessThanOrEqual(0.015 * 5000 + 1);
    for (let i = 1; i < widths.length; i++) expect(widths[i]).toBeLessThanOrEqual(widths[i - 1]);
  });

  it('backs off exponentially once a request takes longer than expected', async () => {
    const { clock, schedule } = setup();
    const learn = poll(clock, schedule, 'AWS::SNS::Topic', 1000);
    await clock.runAll();
    await learn;
    const slow = poll(clock, schedule, 'AWS::SNS::Topic', 4000);
    await clock.runAll();
    const { checks } = await slow;
    const late = checks.filter((c) => c > 1000);
    const gaps = late.slice(1).map((c, i) => c - late[i]);
    expect(gaps.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < gaps.length; i++) expect(gaps[i]).toBeGreaterThan(gaps[i - 1] * 1.5);
    expect(checks.length).toBeLessThan(10);
  });

  it('checks no earlier than the progress event asks (RetryAfter)', async () => {
    const { clock, schedule } = setup();
    const ticket = schedule.begin('AWS::SNS::Topic', 'CREATE');
    let sent = false;
    const waiting = ticket.next(new Date(clock.now() + 3000)).then(() => (sent = true));
    await clock.advance(2999);
    expect(sent).toBe(false);
    await clock.advance(1);
    await waiting;
    expect(sent).toBe(true);
    ticket.end();
  });

  it('spaces checks that got no answer further and further apart', async () => {
    const { clock, schedule } = setup();
    const ticket = schedule.begin('AWS::SNS::Topic', 'CREATE');
    const sentAt: number[] = [];
    for (let i = 0; i < 5; i++) {
      const next = ticket.next();
      await clock.runAll();
      await next;
      sentAt.push(clock.now());
      ticket.unanswered();
    }
    expect(ticket.consecutiveUnanswered).toBe(5);
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i]);
    expect(gaps).toEqual([200, 400, 800, 1600]);
    ticket.end();
    expect(schedule.stats()[0]).toEqual(expect.objectContaining({ checks: 5, unanswered: 5 }));
  });

  it('hands the first-request role on when that request ends without a result', async () => {
    const { clock, schedule } = setup();
    const first = schedule.begin('AWS::SNS::Topic', 'CREATE');
    await first.next();
    const second = schedule.begin('AWS::SNS::Topic', 'CREATE');
    let checked = false;
    const waiting = second.next().then(() => (checked = true));
    await clock.advance(1000);
    expect(checked).toBe(false); // waiting for the first request
    first.answered('FAILED');
    first.end();
    await clock.advance(0);
    await waiting;
    expect(checked).toBe(true); // took over at once
    second.end();
  });

  it('bounds the wait and the longest delay by the handler timeout of the schema', async () => {
    const { clock, schedule } = setup();
    const ticket = schedule.begin('AWS::Lambda::Function', 'UPDATE', 5);
    expect(ticket.timeoutMs).toBe(5 * 60_000);
    const sentAt: number[] = [];
    while (!ticket.timedOut()) {
      const next = ticket.next();
      await clock.runAll();
      await next;
      sentAt.push(clock.now() - ticket.startedAt);
      await clock.advance(RTT);
      ticket.answered('IN_PROGRESS');
    }
    ticket.end();
    const gaps = sentAt.slice(1).map((t, i) => t - sentAt[i] - RTT);
    expect(Math.max(...gaps)).toBeLessThanOrEqual((5 * 60_000) / 30);
    expect(schedule.begin('AWS::Lambda::Function', 'CREATE').timeoutMs).toBe(120 * 60_000);
  });

  it('rejects a wait when its signal is aborted', async () => {
    const { clock, schedule } = setup();
    const ticket = schedule.begin('AWS::SNS::Topic', 'CREATE');
    await ticket.next();
    const controller = new AbortController();
    const waiting = ticket.next(new Date(clock.now() + 60_000), controller.signal);
    controller.abort(new Error('interrupted'));
    await expect(waiting).rejects.toThrow('interrupted');
    ticket.end();
  });

  it('starts from the samples of earlier runs and returns them for the next one', async () => {
    const history = { [scheduleKey('AWS::SNS::Topic', 'DELETE')]: [{ lo: 1990, hi: 2010 }] };
    const { clock, schedule } = setup({ history });
    const ticket = schedule.begin('AWS::SNS::Topic', 'DELETE');
    const next = ticket.next();
    await clock.runAll();
    await next;
    // No first-request probing: the check goes out at the recorded time (no round trip measured yet).
    expect(clock.now() - ticket.startedAt).toBe(2010);
    ticket.end();
    expect(schedule.history()).toEqual(history);
    // Malformed entries from a damaged history file are ignored.
    expect(
      new PollSchedule({ history: { 'AWS::X::Y|CREATE': [{ hi: 'soon' } as never] } }).history(),
    ).toEqual({});
  });

  describe('request budget on whole workloads', () => {
    interface Node {
      type: string;
      durationMs: number;
      after?: number;
    }
    const TYPES = ['A', 'B', 'C', 'D', 'E'];

    /** Runs every node (after its predecessor), as the executor would with enough slots. */
    async function workload(nodes: Node[]) {
      const { clock, schedule } = setup();
      const results: Array<Promise<{ checks: number[]; finishedMs: number }>> = [];
      nodes.forEach((node, i) => {
        results[i] = (async () => {
          if (node.after !== undefined) await results[node.after];
          return poll(clock, schedule, node.type, node.durationMs);
        })();
      });
      await clock.runAll();
      const done = await Promise.all(results);
      const checks = done.reduce((n, r) => n + r.checks.length, 0);
      const lateness = done.map((r, i) => (r.finishedMs - nodes[i].durationMs) / nodes[i].durationMs);
      return {
        checksPerOperation: checks / nodes.length,
        meanLateness: lateness.reduce((a, b) => a + b, 0) / nodes.length,
      };
    }
    const wide = (n: number, types: string[]): Node[] =>
      Array.from({ length: n }, (_, i) => ({ type: types[i % types.length], durationMs: 2000 }));
    const deep = (n: number, chains: number): Node[] => {
      const nodes: Node[] = [];
      for (let k = 0; k < chains; k++)
        for (let j = 0; j < n / chains; j++) {
          const type = TYPES[(k + j) % TYPES.length];
          nodes.push({
            type,
            durationMs: 1000 * (TYPES.indexOf(type) + 1),
            after: j > 0 ? nodes.length - 1 : undefined,
          });
        }
      return nodes;
    };

    it('spends at most 4 checks per operation on wide stacks', async () => {
      for (const nodes of [wide(50, TYPES), wide(200, TYPES), wide(200, ['A'])]) {
        const { checksPerOperation } = await workload(nodes);
        expect(checksPerOperation).toBeLessThanOrEqual(4);
      }
    });

    it('notices completions within a few percent on deep stacks, with few checks', async () => {
      const { checksPerOperation, meanLateness } = await workload(deep(200, 10));
      expect(checksPerOperation).toBeLessThanOrEqual(3);
      expect(meanLateness).toBeLessThanOrEqual(0.03);
    });
  });
});

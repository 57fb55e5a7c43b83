/**
 * A few trials of the crash harness (scripts/crash-harness.js) in CI: the built
 * CLI deploying a 100-resource stack is killed with SIGKILL at a random moment
 * of its create and of its update; each plain re-run must converge with no
 * orphan and no duplicate, and destroy must leave nothing. The full figure
 * (`--trials 20`, and the fault runs) is in docs/benchmarks.md.
 */
const harness = require('../../scripts/crash-harness.js') as {
  runTrials(options: {
    mode?: 'kill' | 'faults';
    trials?: number;
    size?: number;
    seed?: number;
    log?: (line: string) => void;
  }): Promise<{
    summary: {
      trials: number;
      converged: number;
      orphans: number;
      duplicates: number;
      appResourcesLeftAfterDestroy: number;
    };
    records: unknown[];
  }>;
};

describe('crash harness (a few trials)', () => {
  it('converges after kill -9 at random moments of create and update deploys', async () => {
    const lines: string[] = [];
    const { summary, records } = await harness.runTrials({
      mode: 'kill',
      trials: 2,
      size: 100,
      // A fixed seed, so a failure's kill moments can be replayed with --seed 4242.
      seed: 4242,
      log: (l) => lines.push(l),
    });
    if (summary.converged !== summary.trials)
      throw new Error(`${lines.join('\n')}\n${JSON.stringify(records, null, 2)}`);
    expect(summary).toEqual(
      expect.objectContaining({
        trials: 2,
        converged: 2,
        orphans: 0,
        duplicates: 0,
        appResourcesLeftAfterDestroy: 0,
      }),
    );
  }, 900_000);
});

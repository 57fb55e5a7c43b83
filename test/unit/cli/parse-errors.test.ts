import { closestFlag, describeParseError } from '../../../src/cli/parse-errors';

describe('parse errors', () => {
  it('guesses the flag meant by a typo, and nothing for an unrelated word', () => {
    const names = ['require-approval', 'outputs-file', 'force', 'all'];
    expect(closestFlag('--requre-approval', names)).toBe('require-approval');
    expect(closestFlag('--output-file=x', names)).toBe('outputs-file');
    expect(closestFlag('--forse', names)).toBe('force');
    expect(closestFlag('--banana', names)).toBeUndefined();
  });

  it('is the error, a guess, and one line pointing to --help', () => {
    const err = Object.assign(new Error('Nonexistent flag: --requre-approval\nSee more help with --help'), {
      parse: {},
      flags: ['--requre-approval'],
    });
    expect(describeParseError(err, 'deploy', { 'require-approval': {}, force: {} })).toBe(
      "Nonexistent flag: --requre-approval Did you mean --require-approval?\nRun 'cdkd deploy --help' for the flags it takes.",
    );
    expect(describeParseError(err, 'state:show', {})).toContain("Run 'cdkd state show --help'");
  });
});

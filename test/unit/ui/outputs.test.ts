import { outputLines, presentOutputs } from '../../../src/ui/outputs';

describe('presentOutputs', () => {
  it('shows an exported output once, under its own name, with the export name beside it', () => {
    const bag = {
      QueueUrl: 'https://q',
      ParameterName: 'p',
      'App-QueueUrl': 'https://q',
      ExportsOutputRefQueue: 'q-ref',
      'App:ExportsOutputRefQueue': 'q-ref',
      SelfNamed: 's',
    };
    const presented = presentOutputs(bag, ['App-QueueUrl', 'App:ExportsOutputRefQueue', 'SelfNamed']);
    expect(presented.outputs).toEqual({
      QueueUrl: 'https://q',
      ParameterName: 'p',
      ExportsOutputRefQueue: 'q-ref',
      SelfNamed: 's',
    });
    expect(presented.exports).toEqual({
      'App-QueueUrl': 'QueueUrl',
      'App:ExportsOutputRefQueue': 'ExportsOutputRefQueue',
      SelfNamed: 'SelfNamed',
    });
    expect(outputLines(presented)).toEqual([
      '  ExportsOutputRefQueue = q-ref (exported as App:ExportsOutputRefQueue)',
      '  ParameterName = p',
      '  QueueUrl = https://q (exported as App-QueueUrl)',
      '  SelfNamed = s (exported as SelfNamed)',
    ]);
  });

  it('pairs an export with the output its name ends with when several hold the same value', () => {
    const presented = presentOutputs({ A: 'v', B: 'v', 'Stack:B': 'v' }, ['Stack:B']);
    expect(presented.exports).toEqual({ 'Stack:B': 'B' });
  });

  it('treats every key as an output for a record without export names (pre-v9)', () => {
    expect(presentOutputs({ A: [1, 2] }, undefined)).toEqual({ outputs: { A: [1, 2] }, exports: {} });
    expect(outputLines(presentOutputs({ A: [1, 2] }, undefined), ': ')).toEqual(['  A: [1,2]']);
  });
});

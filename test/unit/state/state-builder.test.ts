import { StackStateBuilder } from '../../../src/state/state-builder';
import type { BuildMode } from '../../../src/state/state-builder';

describe('StackStateBuilder: a nested-stack child', () => {
  const link = { parentStack: 'Parent', parentLogicalId: 'Child', parentRegion: 'us-east-1' };
  const modes: BuildMode[] = [
    { kind: 'progress' },
    { kind: 'destroy' },
    { kind: 'final', final: { outputs: {}, exportNames: [], imports: [], outputReads: [] } },
  ];

  it.each(modes)('writes its parent link from its first record on ($kind)', (mode) => {
    const builder = new StackStateBuilder('Parent~Child', 'us-east-1', undefined);
    builder.parent = link;
    expect(builder.build(mode)).toMatchObject(link);
  });

  it('keeps the link a record already has, and a top-level stack has none', () => {
    const child = new StackStateBuilder(
      'Parent~Child',
      'us-east-1',
      new StackStateBuilder('Parent~Child', 'us-east-1', undefined).build({ kind: 'progress' }),
    );
    expect(child.build({ kind: 'progress' }).parentStack).toBeUndefined();
    const first = new StackStateBuilder('Parent~Child', 'us-east-1', undefined);
    first.parent = link;
    const again = new StackStateBuilder('Parent~Child', 'us-east-1', first.build({ kind: 'progress' }));
    expect(again.parent).toEqual(link);
    expect(again.build({ kind: 'progress' })).toMatchObject(link);
  });
});

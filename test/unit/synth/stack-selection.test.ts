import { globToRegExp, patternMatches, selectStacks } from '../../../src/synth/stack-selection';
import type { SelectableStack } from '../../../src/synth/stack-selection';
import { StackSelectionError } from '../../../src/util/errors';

function stack(displayPath: string, opts: { name?: string; deps?: string[] } = {}): SelectableStack {
  const stackName = opts.name ?? displayPath.replace(/\//g, '-');
  const topLevel = !displayPath.includes('/');
  return {
    artifactId: displayPath.replace(/\//g, ''),
    stackName,
    displayPath,
    displayName: stackName === displayPath ? displayPath : `${displayPath} (${stackName})`,
    topLevel,
    dependencies: (opts.deps ?? []).map((d) => d.replace(/\//g, '')),
  };
}

// Assembly order: dependencies before dependents, stage stacks last.
const network = stack('Network');
const database = stack('Database', { deps: ['Network'] });
const api = stack('Api', { name: 'MyApi', deps: ['Database'] });
const prodApi = stack('Prod/Api', { deps: ['Prod/Data'] });
const prodData = stack('Prod/Data');
const devApi = stack('Dev/Api');
const app = [network, database, api, prodData, prodApi, devApi];

const ids = (stacks: SelectableStack[]): string[] => stacks.map((s) => s.displayPath);

function selectionError(fn: () => unknown): StackSelectionError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(StackSelectionError);
    return err as StackSelectionError;
  }
  throw new Error('expected a StackSelectionError');
}

describe('selectStacks', () => {
  test('a name selects the stack and, by default, the stacks it depends on, in assembly order', () => {
    const { stacks, addedDependencies } = selectStacks(app, { patterns: ['Api'] });
    expect(ids(stacks)).toEqual(['Network', 'Database', 'Api']);
    expect(ids(addedDependencies)).toEqual(['Network', 'Database']);
  });

  test('--exclusively selects only the named stacks', () => {
    const { stacks, addedDependencies } = selectStacks(app, { patterns: ['Api'], exclusively: true });
    expect(ids(stacks)).toEqual(['Api']);
    expect(addedDependencies).toEqual([]);
  });

  test('a stack is selected by its CloudFormation name and by CDK display name as well as by its path', () => {
    expect(ids(selectStacks(app, { patterns: ['MyApi'], exclusively: true }).stacks)).toEqual(['Api']);
    expect(ids(selectStacks(app, { patterns: ['Prod-Api'], exclusively: true }).stacks)).toEqual([
      'Prod/Api',
    ]);
    expect(ids(selectStacks(app, { patterns: ['Prod/Api (Prod-Api)'], exclusively: true }).stacks)).toEqual([
      'Prod/Api',
    ]);
  });

  test("'*' matches top-level stacks only, '**' and 'Stage/*' reach into stages", () => {
    expect(ids(selectStacks(app, { patterns: ['*'] }).stacks)).toEqual(['Network', 'Database', 'Api']);
    expect(ids(selectStacks(app, { patterns: ['**'] }).stacks)).toEqual(ids(app));
    expect(ids(selectStacks(app, { patterns: ['Prod/*'], exclusively: true }).stacks)).toEqual([
      'Prod/Data',
      'Prod/Api',
    ]);
    expect(ids(selectStacks(app, { patterns: ['*/Api'] }).stacks)).toEqual([
      'Prod/Data',
      'Prod/Api',
      'Dev/Api',
    ]);
  });

  test('a dependency inside a stage is added to a selected stage stack', () => {
    expect(ids(selectStacks(app, { patterns: ['Prod/Api'] }).stacks)).toEqual(['Prod/Data', 'Prod/Api']);
  });

  test('glob patterns are matched against paths only, so * never reaches into stages through a stack name', () => {
    expect(selectionError(() => selectStacks(app, { patterns: ['Prod-*'] })).code).toBe('UNKNOWN_STACK');
    expect(selectionError(() => selectStacks(app, { patterns: ['My*'] })).code).toBe('UNKNOWN_STACK');
  });

  test("'!' excludes; negations alone start from every stack", () => {
    expect(ids(selectStacks(app, { patterns: ['**', '!Dev/*'], exclusively: true }).stacks)).toEqual([
      'Network',
      'Database',
      'Api',
      'Prod/Data',
      'Prod/Api',
    ]);
    expect(ids(selectStacks(app, { patterns: ['!Network'], exclusively: true }).stacks)).toEqual(
      ids(app).filter((s) => s !== 'Network'),
    );
  });

  test('--all selects the top-level stacks (as cdk deploy --all does)', () => {
    expect(ids(selectStacks(app, { all: true }).stacks)).toEqual(['Network', 'Database', 'Api']);
  });

  test('--all on an app whose stacks all live in stages says how to select them', () => {
    const err = selectionError(() => selectStacks([prodData, prodApi], { all: true }));
    expect(err.message).toMatch(/inside stages/);
    expect(err.remedy).toContain("'Prod/*'");
  });

  test('no pattern and a single stack selects it', () => {
    expect(ids(selectStacks([network], {}).stacks)).toEqual(['Network']);
  });

  test('no pattern and several stacks is an error that lists the stacks and mentions --all and stage paths', () => {
    const err = selectionError(() => selectStacks(app, {}));
    expect(err.code).toBe('STACK_SELECTION');
    expect(err.message).toMatch(/--all/);
    expect(err.remedy).toContain(
      'Stacks in this app: Network, Database, Api (MyApi), Prod/Data (Prod-Data), Prod/Api (Prod-Api), Dev/Api (Dev-Api)',
    );
    expect(err.remedy).toContain("'Prod/*', 'Dev/*'");
  });

  test("whenEmpty 'all' makes an empty selection select every stack (cdkd list)", () => {
    expect(ids(selectStacks(app, { whenEmpty: 'all' }).stacks)).toEqual(ids(app));
  });

  test('an unknown name is an error naming it and listing the stacks that exist', () => {
    const err = selectionError(() => selectStacks(app, { patterns: ['Api', 'Nope'] }));
    expect(err.code).toBe('UNKNOWN_STACK');
    expect(err.message).toBe("No stack in this app matches 'Nope'.");
    expect(err.remedy).toContain('Stacks in this app: Network, Database, Api (MyApi)');
  });

  test('an app without stacks is an error', () => {
    expect(selectionError(() => selectStacks([], { all: true })).message).toMatch(/no stacks/);
  });
});

describe('globToRegExp / patternMatches', () => {
  test.each([
    ['Api', 'Api', true],
    ['Ap?', 'Api', true],
    ['A*', 'Api', true],
    ['A*', 'Prod/Api', false],
    ['**/Api', 'Api', true],
    ['**/Api', 'Prod/Api', true],
    ['Prod/**', 'Prod/Deep/Api', true],
    ['{Prod,Dev}/Api', 'Dev/Api', true],
    ['[PD]*/Api', 'Prod/Api', true],
    ['[!P]*/Api', 'Prod/Api', false],
    ['Api.v2', 'Apixv2', false],
  ])('%s against %s -> %s', (glob, path, expected) => {
    expect(globToRegExp(glob).test(path)).toBe(expected);
  });

  test('exact names match the CloudFormation name; globs only the path', () => {
    expect(patternMatches('MyApi', api)).toBe(true);
    expect(patternMatches('My*', api)).toBe(false);
  });
});

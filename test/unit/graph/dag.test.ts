import { Dag } from '../../../src/graph/dag';
import { DependencyCycleError } from '../../../src/util/errors';

function graph(edges: Array<[string, string]>, nodes: string[] = []): Dag {
  const dag = new Dag();
  for (const id of nodes) dag.addNode(id);
  for (const [a, b] of edges) {
    if (!dag.has(a)) dag.addNode(a);
    if (!dag.has(b)) dag.addNode(b);
    dag.addDependency(a, b);
  }
  return dag;
}

describe('Dag', () => {
  it('orders every node after its dependencies, earliest inserted ready node first', () => {
    const dag = graph([], ['Fn', 'Role', 'Bucket', 'Policy']);
    dag.addDependency('Fn', 'Role').addDependency('Policy', 'Role').addDependency('Policy', 'Bucket');
    expect(dag.topologicalOrder()).toEqual(['Role', 'Fn', 'Bucket', 'Policy']);
  });

  it('measures the longest chain of dependents behind every node', () => {
    // A <- B <- D, A <- C, E alone: A heads a chain of 3, B of 2, C, D and E of 1.
    const dag = new Dag()
      .addNode('A')
      .addNode('B')
      .addNode('C')
      .addNode('D')
      .addNode('E')
      .addDependency('B', 'A')
      .addDependency('C', 'A')
      .addDependency('D', 'B');
    expect(Object.fromEntries(dag.chainLengths())).toEqual({ A: 3, B: 2, C: 1, D: 1, E: 1 });
    const cyclic = new Dag().addNode('X').addNode('Y').addDependency('X', 'Y').addDependency('Y', 'X');
    expect(() => cyclic.chainLengths()).toThrow(DependencyCycleError);
  });

  it('reverses every edge for deletion', () => {
    const dag = graph([
      ['Fn', 'Role'],
      ['Role', 'Bucket'],
    ]);
    const reversed = dag.reversed();
    expect(reversed.topologicalOrder()).toEqual(['Fn', 'Role', 'Bucket']);
    expect(reversed.dependenciesOf('Bucket')).toEqual(['Role']);
    // the original is untouched
    expect(dag.topologicalOrder()).toEqual(['Bucket', 'Role', 'Fn']);
  });

  it('reports the ids on a cycle in order', () => {
    const dag = graph([
      ['A', 'B'],
      ['B', 'C'],
      ['C', 'A'],
      ['D', 'A'],
    ]);
    expect(dag.findCycle()).toEqual(['A', 'B', 'C', 'A']);
    expect(() => dag.topologicalOrder()).toThrow(DependencyCycleError);
    try {
      dag.assertAcyclic();
    } catch (err) {
      expect((err as DependencyCycleError).cycle).toEqual(['A', 'B', 'C', 'A']);
      expect((err as Error).message).toContain('A -> B -> C -> A');
    }
  });

  it('treats a self-dependency as a cycle', () => {
    expect(graph([['A', 'A']]).findCycle()).toEqual(['A', 'A']);
  });

  it('finds no cycle in a diamond', () => {
    const dag = graph([
      ['D', 'B'],
      ['D', 'C'],
      ['B', 'A'],
      ['C', 'A'],
    ]);
    expect(dag.findCycle()).toBeUndefined();
    expect(dag.transitiveDependentsOf('A').sort()).toEqual(['B', 'C', 'D']);
  });

  it('refuses duplicate nodes and edges to unknown nodes', () => {
    const dag = graph([], ['A']);
    expect(() => dag.addNode('A')).toThrow(/defined twice/);
    expect(() => dag.addDependency('A', 'Nope')).toThrow(/Nope does not exist/);
  });

  it('carries node data', () => {
    const dag = new Dag<{ type: string }>();
    dag.addNode('Q', { type: 'AWS::SQS::Queue' });
    expect(dag.data('Q')).toEqual({ type: 'AWS::SQS::Queue' });
    expect(dag.reversed().data('Q')).toEqual({ type: 'AWS::SQS::Queue' });
  });
});

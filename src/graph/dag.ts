/**
 * A generic directed acyclic graph of string ids. It knows nothing of
 * resources: an edge `addDependency(a, b)` only says "a must wait for b".
 */
import { DependencyCycleError, ValidationError } from '../util/errors';

interface DagNode<T> {
  data: T;
  dependencies: Set<string>;
  dependents: Set<string>;
}

export class Dag<T = undefined> {
  private readonly nodes = new Map<string, DagNode<T>>();

  /** Adds a node; an id may be added once. */
  addNode(id: string, ...data: T extends undefined ? [data?: T] : [data: T]): this {
    if (this.nodes.has(id)) throw new ValidationError(`Graph node ${id} is defined twice.`);
    this.nodes.set(id, { data: data[0] as T, dependencies: new Set(), dependents: new Set() });
    return this;
  }

  /** Records that `id` must wait for `dependsOn`. Both nodes must exist; adding an edge twice is a no-op. */
  addDependency(id: string, dependsOn: string): this {
    const node = this.node(id);
    const target = this.node(dependsOn);
    node.dependencies.add(dependsOn);
    target.dependents.add(id);
    return this;
  }

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  /** The data attached to a node. */
  data(id: string): T {
    return this.node(id).data;
  }

  /** Every id, in insertion order. */
  ids(): string[] {
    return [...this.nodes.keys()];
  }

  get size(): number {
    return this.nodes.size;
  }

  /** The ids `id` waits for, in the order the edges were added. */
  dependenciesOf(id: string): string[] {
    return [...this.node(id).dependencies];
  }

  /** The ids waiting for `id`. */
  dependentsOf(id: string): string[] {
    return [...this.node(id).dependents];
  }

  /** Every id that (transitively) waits for `id`, excluding `id`. */
  transitiveDependentsOf(id: string): string[] {
    const seen = new Set<string>();
    const stack = [...this.node(id).dependents];
    while (stack.length > 0) {
      const next = stack.pop()!;
      if (seen.has(next)) continue;
      seen.add(next);
      stack.push(...this.node(next).dependents);
    }
    return [...seen];
  }

  /**
   * A cycle, if there is one: the ids on it in dependency order with the first
   * repeated at the end (`['A', 'B', 'A']`: A waits for B, B waits for A).
   */
  findCycle(): string[] | undefined {
    const state = new Map<string, 'visiting' | 'done'>();
    const pathStack: string[] = [];
    const visit = (id: string): string[] | undefined => {
      state.set(id, 'visiting');
      pathStack.push(id);
      for (const dep of this.node(id).dependencies) {
        const s = state.get(dep);
        if (s === 'visiting') return [...pathStack.slice(pathStack.indexOf(dep)), dep];
        if (s === undefined) {
          const cycle = visit(dep);
          if (cycle) return cycle;
        }
      }
      pathStack.pop();
      state.set(id, 'done');
      return undefined;
    };
    for (const id of this.nodes.keys()) {
      if (state.get(id) === undefined) {
        const cycle = visit(id);
        if (cycle) return cycle;
      }
    }
    return undefined;
  }

  /** Throws a {@link DependencyCycleError} naming the ids on a cycle, if there is one. */
  assertAcyclic(): void {
    const cycle = this.findCycle();
    if (cycle) throw new DependencyCycleError(cycle);
  }

  /**
   * Every id, each after all its dependencies; among the ready ones the earliest
   * inserted comes first, so the result is deterministic. Throws a {@link DependencyCycleError} on a cycle.
   */
  topologicalOrder(): string[] {
    this.assertAcyclic();
    const remaining = new Map<string, number>();
    for (const [id, node] of this.nodes) remaining.set(id, node.dependencies.size);
    const order: string[] = [];
    const done = new Set<string>();
    // Always take the earliest-inserted node that is ready: deterministic, and
    // close to the template's own order. O(n^2), fine for template-sized graphs.
    while (order.length < this.nodes.size) {
      for (const [id, count] of remaining) {
        if (count === 0 && !done.has(id)) {
          done.add(id);
          order.push(id);
          for (const dependent of this.node(id).dependents)
            remaining.set(dependent, remaining.get(dependent)! - 1);
          break;
        }
      }
    }
    return order;
  }

  /**
   * For every id, the number of nodes on the longest chain that starts at it and
   * runs through its dependents (1 for a node nothing waits for): how much work
   * is still serialised behind it. Throws a {@link DependencyCycleError} on a cycle.
   */
  chainLengths(): Map<string, number> {
    // From the sinks back along the edges: a node is measured once every dependent is.
    const lengths = new Map<string, number>();
    const unmeasured = new Map<string, number>();
    const frontier: string[] = [];
    for (const [id, node] of this.nodes) {
      unmeasured.set(id, node.dependents.size);
      if (node.dependents.size === 0) frontier.push(id);
    }
    while (frontier.length > 0) {
      const id = frontier.pop()!;
      const node = this.node(id);
      let longest = 0;
      for (const dependent of node.dependents) longest = Math.max(longest, lengths.get(dependent)!);
      lengths.set(id, longest + 1);
      for (const dep of node.dependencies) {
        const left = unmeasured.get(dep)! - 1;
        unmeasured.set(dep, left);
        if (left === 0) frontier.push(dep);
      }
    }
    // A node on a cycle never has all its dependents measured: name the cycle.
    if (lengths.size < this.nodes.size) this.assertAcyclic();
    return lengths;
  }

  /** A copy with every edge flipped: what deletion needs (a dependent goes before what it depends on). */
  reversed(): Dag<T> {
    const out = new Dag<T>();
    for (const [id, node] of this.nodes)
      out.nodes.set(id, { data: node.data, dependencies: new Set(), dependents: new Set() });
    for (const [id, node] of this.nodes) {
      for (const dep of node.dependencies) out.addDependency(dep, id);
    }
    return out;
  }

  private node(id: string): DagNode<T> {
    const node = this.nodes.get(id);
    if (!node) throw new ValidationError(`Graph node ${id} does not exist.`);
    return node;
  }
}

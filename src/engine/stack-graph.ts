/**
 * The order stacks deploy and destroy in: the assembly manifest's dependencies,
 * plus the ones a template states with a cross-stack reference the CDK did not
 * turn into a manifest dependency (a hand-written `Fn::ImportValue` of a
 * sibling's export, a `Fn::GetStackOutput` of a sibling stack). A consumer
 * deploys after, and is destroyed before, the stack it reads.
 *
 * References are matched statically: an import name or a `Fn::GetStackOutput`
 * argument counts when it is a literal, or a `Fn::Sub` / `Fn::Join` of literals
 * and the stack's own pseudo parameters; anything else (a parameter, a
 * resource attribute) adds no edge and is resolved at deploy time as before.
 */
import { Dag } from '../graph/dag';
import type { SynthesizedStack } from '../synth/cloud-assembly';
import { UNKNOWN_ACCOUNT } from '../synth/cloud-assembly';
import { ValidationError } from '../util/errors';

/** Why one stack waits for another. */
export interface StackDependency {
  /** Artifact id of the stack depended on. */
  on: string;
  /** `assembly`, or the reference that implies it, e.g. `Fn::ImportValue of Producer-QueueArn`. */
  reason: string;
}

/**
 * Every stack's dependencies among `stacks` (by artifact id), with the reason
 * for each. `regionOf` gives the region a stack deploys to.
 */
export function stackDependencies(
  stacks: readonly SynthesizedStack[],
  regionOf: (stack: SynthesizedStack) => string,
): Map<string, StackDependency[]> {
  const ids = new Set(stacks.map((s) => s.artifactId));
  const exporters = new Map<string, SynthesizedStack>();
  for (const stack of stacks) {
    const outputs = (stack.template.Outputs ?? {}) as Record<string, { Export?: { Name?: unknown } }>;
    for (const output of Object.values(outputs)) {
      const name = staticString(output?.Export?.Name, stack, regionOf(stack));
      if (name !== undefined) exporters.set(`${regionOf(stack)}|${name}`, stack);
    }
  }
  const byId = new Map(stacks.map((s) => [s.artifactId, s]));
  const out = new Map<string, StackDependency[]>();
  for (const stack of stacks) {
    const deps: StackDependency[] = [];
    const add = (on: SynthesizedStack, reason: string): void => {
      if (on.artifactId !== stack.artifactId && !deps.some((d) => d.on === on.artifactId))
        deps.push({ on: on.artifactId, reason });
    };
    for (const dep of stack.dependencies) if (ids.has(dep)) add(byId.get(dep)!, 'assembly');
    const region = regionOf(stack);
    for (const ref of crossStackReferences(stack.template)) {
      if (ref.kind === 'import') {
        const name = staticString(ref.name, stack, region);
        const producer = name === undefined ? undefined : exporters.get(`${region}|${name}`);
        if (producer) add(producer, `Fn::ImportValue of ${name}`);
      } else {
        const name = staticString(ref.stackName, stack, region);
        const targetRegion = ref.region === undefined ? region : staticString(ref.region, stack, region);
        const producer = stacks.find((s) => s.stackName === name && regionOf(s) === targetRegion);
        if (producer) add(producer, `Fn::GetStackOutput of ${name}`);
      }
    }
    out.set(stack.artifactId, deps);
  }
  return out;
}

/**
 * The deploy graph of `stacks` (a stack waits for the stacks it depends on);
 * `reverse` gives the destroy graph. Throws when references form a cycle.
 */
export function stackGraph(
  stacks: readonly SynthesizedStack[],
  regionOf: (stack: SynthesizedStack) => string,
  options: { reverse?: boolean } = {},
): Dag<SynthesizedStack> {
  const deps = stackDependencies(stacks, regionOf);
  const dag = new Dag<SynthesizedStack>();
  for (const s of stacks) dag.addNode(s.artifactId, s);
  for (const s of stacks) {
    for (const d of deps.get(s.artifactId)!) {
      if (options.reverse) dag.addDependency(d.on, s.artifactId);
      else dag.addDependency(s.artifactId, d.on);
    }
  }
  const cycle = dag.findCycle();
  if (cycle) {
    const name = (id: string): string => dag.data(id).displayName;
    const steps = cycle.slice(0, -1).map((id, i) => {
      const from = options.reverse ? cycle[i + 1] : id;
      const to = options.reverse ? id : cycle[i + 1];
      const why = deps.get(from)!.find((d) => d.on === to)?.reason ?? 'assembly';
      return `${name(from)} depends on ${name(to)} (${why})`;
    });
    throw new ValidationError(`The stacks depend on each other in a cycle: ${steps.join('; ')}.`, {
      code: 'STACK_DEPENDENCY_CYCLE',
      remedy:
        'Break the cycle: move the shared resource into one stack, or pass one of the values as a stack parameter.',
    });
  }
  return dag;
}

/**
 * The selection plus every stack of `all` that depends on it, transitively, by
 * the same rule as {@link stackDependencies} (they must be destroyed first).
 */
export function withDependents(
  selected: readonly SynthesizedStack[],
  all: readonly SynthesizedStack[],
  regionOf: (stack: SynthesizedStack) => string,
): SynthesizedStack[] {
  const deps = stackDependencies(all, regionOf);
  const chosen = new Set(selected.map((s) => s.artifactId));
  let grew = true;
  while (grew) {
    grew = false;
    for (const s of all) {
      if (!chosen.has(s.artifactId) && deps.get(s.artifactId)!.some((d) => chosen.has(d.on))) {
        chosen.add(s.artifactId);
        grew = true;
      }
    }
  }
  return all.filter((s) => chosen.has(s.artifactId));
}

type CrossStackReference =
  { kind: 'import'; name: unknown } | { kind: 'output'; stackName: unknown; region?: unknown };

/** Every `Fn::ImportValue` and `Fn::GetStackOutput` in a template, anywhere. */
function crossStackReferences(template: Record<string, unknown>): CrossStackReference[] {
  const found: CrossStackReference[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(walk);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const entries = Object.entries(node);
    if (entries.length === 1) {
      const [key, arg] = entries[0];
      if (key === 'Fn::ImportValue') found.push({ kind: 'import', name: arg });
      if (key === 'Fn::GetStackOutput' && typeof arg === 'object' && arg !== null) {
        const a = arg as Record<string, unknown>;
        if (a.RoleArn === undefined) found.push({ kind: 'output', stackName: a.StackName, region: a.Region });
      }
    }
    for (const [, v] of entries) walk(v);
  };
  walk(template.Resources);
  walk(template.Outputs);
  return found;
}

/** A string expression's value when it is made of literals and the stack's pseudo parameters. */
function staticString(expr: unknown, stack: SynthesizedStack, region: string): string | undefined {
  if (typeof expr === 'string') return expr;
  if (typeof expr !== 'object' || expr === null || Array.isArray(expr)) return undefined;
  const entries = Object.entries(expr);
  if (entries.length !== 1) return undefined;
  const [fn, arg] = entries[0];
  const pseudo = (name: string): string | undefined => {
    switch (name) {
      case 'AWS::StackName':
        return stack.stackName;
      case 'AWS::Region':
        return region;
      case 'AWS::AccountId':
        return stack.environment.account === UNKNOWN_ACCOUNT ? undefined : stack.environment.account;
      default:
        return undefined;
    }
  };
  if (fn === 'Ref' && typeof arg === 'string') return pseudo(arg);
  if (fn === 'Fn::Join' && Array.isArray(arg) && arg.length === 2 && typeof arg[0] === 'string') {
    if (!Array.isArray(arg[1])) return undefined;
    const parts = arg[1].map((p) => staticString(p, stack, region));
    return parts.every((p): p is string => p !== undefined) ? parts.join(arg[0]) : undefined;
  }
  if (fn === 'Fn::Sub') {
    const [text, vars] = typeof arg === 'string' ? [arg, {}] : Array.isArray(arg) ? arg : [undefined, {}];
    if (typeof text !== 'string' || typeof vars !== 'object' || vars === null) return undefined;
    let ok = true;
    const value = text.replace(/\$\{([^}!][^}]*)\}/g, (_, name: string) => {
      const v = Object.prototype.hasOwnProperty.call(vars, name)
        ? staticString((vars as Record<string, unknown>)[name], stack, region)
        : pseudo(name);
      if (v === undefined) ok = false;
      return v ?? '';
    });
    return ok ? value.replace(/\$\{!/g, '${') : undefined;
  }
  return undefined;
}

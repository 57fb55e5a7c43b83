/**
 * Walks a stack plan and the plans of its nested stacks' children
 * ({@link ResourcePlan.nested}), so every check made on a plan before anything
 * changes (preflight, `--require-approval`, diff) is made inside them too.
 */
import type { StackState } from '../state/types';
import type { StackPlan } from './types';

export interface PlanLevel {
  plan: StackPlan;
  /** The level's state record (the top level's is the caller's). */
  state: StackState | undefined;
  /** Logical ids of the nested stacks from the top plan down to this one; empty for the top. */
  nestedPath: string[];
}

/** The plan, then each nested child's plan, depth first. */
export function* planLevels(plan: StackPlan, state: StackState | undefined): Generator<PlanLevel> {
  yield* walk(plan, state, []);
}

function* walk(plan: StackPlan, state: StackState | undefined, nestedPath: string[]): Generator<PlanLevel> {
  yield { plan, state, nestedPath };
  for (const r of plan.resources) {
    if (r.nested) yield* walk(r.nested.plan, r.nested.state, [...nestedPath, r.logicalId]);
  }
}

/**
 * How a resource of a level is named in a message: its logical id at the top,
 * `Parent > Child > Resource` inside a nested stack.
 */
export function nestedResourceName(
  topStack: string,
  level: Pick<PlanLevel, 'nestedPath'>,
  logicalId: string,
): string {
  return level.nestedPath.length === 0 ? logicalId : [topStack, ...level.nestedPath, logicalId].join(' > ');
}

/** The plan as data to print (`--json`): nested children's plans kept, their state records left out. */
export function planForOutput(plan: StackPlan): StackPlan {
  return {
    ...plan,
    resources: plan.resources.map((r) =>
      r.nested ? { ...r, nested: { plan: planForOutput(r.nested.plan), state: undefined } } : r,
    ),
  };
}

/**
 * A stack's warnings and those its nested stacks passed up, each line named by
 * the stack that warned (`Parent > Child: ...`): the deploy, destroy and
 * rollback reports all read them this one way.
 */
import type { NestedStackWarning } from '../engine/deploy-stack';
import { displayStackName } from '../state/keys';

export interface WarnedStack {
  stackName: string;
  warnings: readonly string[];
  nestedWarnings?: readonly NestedStackWarning[];
}

export function namedWarnings(s: WarnedStack): string[] {
  return [
    ...s.warnings.map((w) => `${displayStackName(s.stackName)}: ${w}`),
    ...(s.nestedWarnings ?? []).map((n) => `${displayStackName(n.stackName)}: ${n.warning}`),
  ];
}

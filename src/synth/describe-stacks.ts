/**
 * What `cdkd list` shows about a stack: the CDK CLI's display name, the stack
 * name, its environment and the stacks it depends on.
 */
import type * as YamlModule from 'yaml';
import type { SynthesizedStack } from './cloud-assembly';

export interface StackDescription {
  /** CDK's display name: the stack's path, followed by ` (name)` when the name differs. */
  id: string;
  /** Hierarchical path, e.g. `Stage/Stack`. */
  path: string;
  /** CloudFormation stack name (the name cdkd's state uses). */
  name: string;
  environment: { account: string; region: string; name: string };
  /** Display names of the stacks this one depends on. */
  dependencies: string[];
}

export function describeStacks(
  stacks: readonly SynthesizedStack[],
  all: readonly SynthesizedStack[] = stacks,
): StackDescription[] {
  const byId = new Map(all.map((s) => [s.artifactId, s]));
  return stacks.map((s) => ({
    id: s.displayName,
    path: s.displayPath,
    name: s.stackName,
    environment: { account: s.environment.account, region: s.environment.region, name: s.environment.name },
    dependencies: s.dependencies.map((d) => byId.get(d)?.displayName ?? d),
  }));
}

/** One display name per line; with `long`, a YAML list of the descriptions. */
export function formatStackList(stacks: readonly StackDescription[], long: boolean): string {
  if (!long) return stacks.map((s) => s.id).join('\n');
  const YAML = require('yaml') as typeof YamlModule;
  return YAML.stringify(stacks, { lineWidth: 0 }).trimEnd();
}

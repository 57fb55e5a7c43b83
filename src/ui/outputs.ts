/**
 * A stack's outputs as a person (and `--json`, `--outputs-file`) sees them: each
 * output once, under its own name, with the export name beside it — the state's
 * output bag also holds every export under its export name (the spec's shared
 * namespace), which is for `Fn::ImportValue`, not a second output.
 * Non-scalar values are shown as JSON, so an array output is not mistaken for a
 * comma-separated string.
 */
import { jsonEqual } from '../util/json-patch';

export interface PresentedOutputs {
  /** Output name -> value, each output once. */
  outputs: Record<string, unknown>;
  /** Export name -> the output it exports. */
  exports: Record<string, string>;
}

/**
 * Splits a state output bag into outputs and exports. An export alias is paired
 * with the output holding the same value (preferring the one whose name ends
 * the export name, as CDK's `Stack:ExportsOutput…` names do); an alias that
 * matches no output is an output exporting under its own name.
 */
export function presentOutputs(
  bag: Record<string, unknown>,
  exportNames: readonly string[] | undefined,
): PresentedOutputs {
  const aliases = new Set(exportNames ?? []);
  const outputs: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(bag)) if (!aliases.has(key)) outputs[key] = value;
  const plain = Object.keys(outputs);
  const exports: Record<string, string> = {};
  for (const name of exportNames ?? []) {
    if (!Object.prototype.hasOwnProperty.call(bag, name)) continue;
    const same = plain.filter((o) => jsonEqual(outputs[o], bag[name]));
    const owner = same.find((o) => name.endsWith(`:${o}`) || name.endsWith(`-${o}`)) ?? same[0];
    if (owner !== undefined) {
      exports[name] = owner;
    } else {
      outputs[name] = bag[name];
      exports[name] = name;
    }
  }
  return { outputs, exports };
}

export function formatOutputValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** `Key = value` lines (or `Key: value`), an exported output followed by its export name. */
export function outputLines(presented: PresentedOutputs, separator = ' = ', indent = '  '): string[] {
  const exportOf = new Map<string, string[]>();
  for (const [exportName, output] of Object.entries(presented.exports))
    exportOf.set(output, [...(exportOf.get(output) ?? []), exportName]);
  return Object.keys(presented.outputs)
    .sort()
    .map((key) => {
      const names = exportOf.get(key);
      const exported = names ? ` (exported as ${names.join(', ')})` : '';
      return `${indent}${key}${separator}${formatOutputValue(presented.outputs[key])}${exported}`;
    });
}

export function renderOutputs(stackName: string, presented: PresentedOutputs): string {
  return [`Outputs of ${stackName}:`, ...outputLines(presented)].join('\n');
}

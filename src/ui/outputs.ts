/**
 * Renders a stack's outputs for the terminal. Non-scalar values are shown as
 * JSON, so an array output is not mistaken for a comma-separated string.
 */
export function formatOutputValue(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

export function renderOutputs(stackName: string, outputs: Record<string, unknown>): string {
  const lines = [`Outputs of ${stackName}:`];
  for (const key of Object.keys(outputs).sort()) lines.push(`  ${key} = ${formatOutputValue(outputs[key])}`);
  return lines.join('\n');
}

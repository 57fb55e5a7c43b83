/**
 * Renders a {@link StackPlan} for the terminal, in the shape `cdk diff` users
 * know: one line per changed resource with an action symbol (`[+]` create,
 * `[~]` update, `[-/+]` replace, `[-]` delete), its property changes as a tree,
 * then the output changes.
 */
import { Writable } from 'node:stream';
import type * as CloudFormationDiff from '@aws-cdk/cloudformation-diff';
import type { PropertyViolation } from '../plan/property-validation';
import type { SecurityChanges } from '../plan/security-changes';
import type { OutputChange, PropertyChange, ResourcePlan, StackPlan } from '../plan/types';
import { isUnknown } from '../template/unknown';

export interface DiffRenderOptions {
  /** ANSI colours (green additions, yellow updates, red removals and replacements). Default false. */
  color?: boolean;
  /** Values longer than this are cut. Default 120. */
  maxValueLength?: number;
}

const SYMBOL: Record<ResourcePlan['action'], string> = {
  CREATE: '[+]',
  UPDATE: '[~]',
  REPLACE: '[-/+]',
  DELETE: '[-]',
  NO_CHANGE: '[ ]',
};

type Paint = (text: string) => string;

function painter(color: boolean) {
  const code =
    (open: number, close: number): Paint =>
    (text) =>
      color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    green: code(32, 39),
    yellow: code(33, 39),
    red: code(31, 39),
    gray: code(90, 39),
    bold: code(1, 22),
  };
}

/** One-line summary: `2 to create, 1 to update, 1 to replace, 1 to delete`, or `no changes`. */
export function summarizePlan(plan: StackPlan): string {
  const count = (action: ResourcePlan['action']): number =>
    plan.resources.filter((r) => r.action === action).length;
  const parts = [
    [count('CREATE'), 'to create'],
    [count('UPDATE'), 'to update'],
    [count('REPLACE'), 'to replace'],
    [count('DELETE'), 'to delete'],
  ]
    .filter(([n]) => (n as number) > 0)
    .map(([n, what]) => `${n} ${what}`);
  const outputs = plan.outputs.filter((o) => o.action !== 'NO_CHANGE').length;
  if (outputs > 0) parts.push(`${outputs} output change${outputs === 1 ? '' : 's'}`);
  return parts.length > 0 ? parts.join(', ') : 'no changes';
}

/** The plan as text, ending with a newline. */
export function renderStackPlan(plan: StackPlan, options: DiffRenderOptions = {}): string {
  const p = painter(options.color ?? false);
  const max = options.maxValueLength ?? 120;
  const lines: string[] = [p.bold(`Stack ${plan.stackName}`)];
  if (!plan.hasChanges) {
    lines.push('There were no differences', '');
    return lines.join('\n');
  }

  const changed = plan.resources.filter((r) => r.action !== 'NO_CHANGE');
  if (changed.length > 0) {
    lines.push('Resources');
    for (const r of changed) lines.push(...renderResource(r, p, max));
    lines.push('');
  }

  const outputs = plan.outputs.filter((o) => o.action !== 'NO_CHANGE');
  if (outputs.length > 0) {
    lines.push('Outputs');
    for (const o of outputs) lines.push(renderOutput(o, p, max));
    lines.push('');
  }
  lines.push(summarizePlan(plan), '');
  return lines.join('\n');
}

function renderResource(r: ResourcePlan, p: ReturnType<typeof painter>, max: number): string[] {
  const colorOf: Record<ResourcePlan['action'], Paint> = {
    CREATE: p.green,
    UPDATE: p.yellow,
    REPLACE: p.red,
    DELETE: p.red,
    NO_CHANGE: p.gray,
  };
  let note = '';
  if (r.action === 'REPLACE')
    note = r.mayReplace
      ? ` ${p.yellow('may be replaced')}: ${r.replacementReason}`
      : ` ${p.red('replace')}: ${r.replacementReason}`;
  if (r.policyOnly)
    note = ` ${p.gray('(DeletionPolicy / UpdateReplacePolicy only: the state record is updated, no AWS call)')}`;
  if (r.action === 'DELETE' && r.retain)
    note = ` ${p.yellow(`(${r.deletionPolicy}: removed from state, kept in AWS)`)}`;
  const which = r.action === 'REPLACE' ? 'the original' : 'it';
  if (r.action === 'REPLACE' && r.removal === 'retain')
    note += ` ${p.yellow('(UpdateReplacePolicy: the original is kept in AWS)')}`;
  if (r.removal === 'snapshot') note += ` ${p.yellow(`(final snapshot of ${which}, then deleted)`)}`;
  if (r.removal === 'refuse')
    note += ` ${p.red(`(Snapshot: no installed provider can snapshot ${which}; the deploy will refuse)`)}`;
  const head = `${colorOf[r.action](SYMBOL[r.action])} ${r.resourceType} ${r.logicalId}${note}`;
  const lines = [head];
  r.propertyChanges.forEach((c, i) =>
    lines.push(...renderChange(c, i === r.propertyChanges.length - 1, p, max)),
  );
  if (r.nested) lines.push(...renderNested(r.nested.plan, p, max).map((line) => `    ${line}`));
  return lines;
}

/** A nested stack's child plan, shown indented under the nested-stack resource. */
function renderNested(plan: StackPlan, p: ReturnType<typeof painter>, max: number): string[] {
  if (!plan.hasChanges) return [p.gray(`Nested stack ${plan.stackName}: no changes`)];
  const lines = [p.bold(`Nested stack ${plan.stackName}`)];
  for (const r of plan.resources) if (r.action !== 'NO_CHANGE') lines.push(...renderResource(r, p, max));
  for (const o of plan.outputs) if (o.action !== 'NO_CHANGE') lines.push(renderOutput(o, p, max));
  lines.push(p.gray(summarizePlan(plan)));
  return lines;
}

function renderChange(
  c: PropertyChange,
  last: boolean,
  p: ReturnType<typeof painter>,
  max: number,
): string[] {
  const branch = last ? ' └─' : ' ├─';
  const indent = last ? '    ' : ' │  ';
  const symbol =
    c.before === undefined ? p.green('[+]') : c.after === undefined ? p.red('[-]') : p.yellow('[~]');
  const path = c.path.startsWith('Properties.') ? c.path.slice('Properties.'.length) : c.path;
  const mark = c.causesReplacement
    ? ` ${p.red('(requires replacement)')}`
    : c.mayCauseReplacement
      ? ` ${p.yellow('(may cause replacement)')}`
      : '';
  const lines = [`${branch} ${symbol} ${path}${mark}`];
  if (c.before !== undefined && c.after !== undefined) {
    lines.push(`${indent}├─ ${p.red('[-]')} ${formatValue(c.before, max)}`);
    lines.push(`${indent}└─ ${p.green('[+]')} ${formatValue(c.after, max)}`);
  } else if (c.after !== undefined) {
    lines.push(`${indent}└─ ${formatValue(c.after, max)}`);
  } else {
    lines.push(`${indent}└─ ${formatValue(c.before, max)}`);
  }
  return lines;
}

function renderOutput(o: OutputChange, p: ReturnType<typeof painter>, max: number): string {
  const exportNote = typeof o.exportName === 'string' ? ` (export ${o.exportName})` : '';
  switch (o.action) {
    case 'ADD':
      return `${p.green('[+]')} Output ${o.name}${exportNote}: ${formatValue(o.after, max)}`;
    case 'REMOVE':
      return `${p.red('[-]')} Output ${o.name}: ${formatValue(o.before, max)}`;
    default:
      return `${p.yellow('[~]')} Output ${o.name}${exportNote}: ${formatValue(o.before, max)} -> ${formatValue(o.after, max)}`;
  }
}

/** A value on one line: strings as they are, an `Unknown` as `(known after deploy)`, the rest as JSON. */
export function formatValue(value: unknown, max = 120): string {
  let text: string;
  if (isUnknown(value)) text = '(known after deploy)';
  else if (typeof value === 'string') text = value;
  else text = JSON.stringify(value) ?? String(value); // a nested Unknown writes itself as `(known after deploy: X.Arn)`
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * The security changes of a plan as the CDK CLI prints them (IAM statement,
 * managed policy and security group tables), ending with a newline; empty
 * when there are none.
 */
export function renderSecurityChanges(changes: SecurityChanges, options: { color?: boolean } = {}): string {
  if (changes.change === 'none' || !changes.diff) return '';
  const { formatSecurityChanges } = require('@aws-cdk/cloudformation-diff') as typeof CloudFormationDiff;
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  formatSecurityChanges(sink, changes.diff);
  // The tables colour themselves for the process's terminal; the caller decides.
  // eslint-disable-next-line no-control-regex
  return options.color ? text : text.replace(/\u001b\[[0-9;]*m/g, '');
}

/**
 * The schema violations deploy's preflight refuses a stack for, grouped by
 * resource (`[!] Queue (AWS::SQS::Queue)` then one line per property), so a
 * diff shows them before anything is deployed. Empty when there are none.
 */
export function renderPropertyViolations(violations: readonly PropertyViolation[]): string {
  if (violations.length === 0) return '';
  const byResource = new Map<string, PropertyViolation[]>();
  for (const v of violations) {
    const key = `${v.logicalId} (${v.resourceType})`;
    byResource.set(key, [...(byResource.get(key) ?? []), v]);
  }
  const lines = ['Schema violations (cdkd deploy refuses the stack for these before changing anything):'];
  for (const [resource, list] of byResource) {
    lines.push(`[!] ${resource}`);
    for (const v of list) lines.push(`    ${v.path}: ${v.message} [${v.rule}]`);
  }
  return lines.join('\n');
}

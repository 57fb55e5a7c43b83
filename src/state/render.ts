/**
 * Text views of state for the `cdkd state` commands. Pure functions returning
 * lines; the commands print them. Non-scalar values are rendered with
 * `JSON.stringify` so an array output never reads like a comma-joined string.
 */
import type { BootstrapResult, DestroyBootstrapResult } from './bootstrap';
import type {
  LockSummary,
  StackSummary,
  StackTreeNode,
  StackView,
  StackViewMeta,
  StateInfo,
} from './inspect';
import { outputLines, presentOutputs } from '../ui/outputs';
import type { ResourceState } from './types';

/** A value as one line: strings as they are, everything else as JSON. */
export function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined) return '(undefined)';
  return JSON.stringify(value);
}

/** How `ProvisionedBy` is shown: an absent field is the pre-v7 SDK default. */
export function formatProvisionedBy(resource: Pick<ResourceState, 'provisionedBy'>): string {
  return resource.provisionedBy ?? '(sdk, legacy default)';
}

/** The pack that provisioned a resource, with its version: `@cdkd/provider-sqs@0.1.0`, or `-`. */
export function formatProviderPack(
  resource: Pick<ResourceState, 'providerPack' | 'providerPackVersion'>,
): string {
  if (!resource.providerPack) return '-';
  return resource.providerPackVersion
    ? `${resource.providerPack}@${resource.providerPackVersion}`
    : resource.providerPack;
}

function iso(ms: number | undefined): string {
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : '-';
}

export function formatLock(lock: LockSummary | null | undefined): string {
  if (!lock) return 'unlocked';
  const what = lock.operation ? ` (${lock.operation})` : '';
  if (lock.expired)
    return `expired lock of ${lock.owner ?? 'unknown owner'}${what}, expired ${iso(lock.expiresAt)}`;
  return `locked by ${lock.owner ?? 'unknown owner'}${what} since ${iso(lock.timestamp)}, expires ${iso(lock.expiresAt)}`;
}

/** `Stack (region)`, the default `state list` line. */
export function stackRefLine(s: { stackName: string; region: string }): string {
  return `${s.stackName} (${s.region})`;
}

/** Columns padded to their widest cell. */
export function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)];
}

export function renderStackListLong(stacks: StackSummary[]): string[] {
  return table(
    ['STACK', 'REGION', 'RESOURCES', 'LAST MODIFIED', 'LOCK'],
    stacks.map((s) => [
      s.stackName,
      s.region,
      s.error ? 'unreadable' : String(s.resourceCount ?? '-'),
      iso(s.lastModified),
      s.error ? s.error : formatLock(s.lock),
    ]),
  );
}

/** `tree(1)`-style lines of a stack tree. */
export function renderStackTree(roots: StackTreeNode[]): string[] {
  const lines: string[] = [];
  const walk = (node: StackTreeNode, indent: string, last: boolean, root: boolean): void => {
    lines.push(root ? stackRefLine(node) : `${indent}${last ? '└── ' : '├── '}${stackRefLine(node)}`);
    const childIndent = root ? '' : indent + (last ? '    ' : '│   ');
    node.children.forEach((c, i) => walk(c, childIndent, i === node.children.length - 1, false));
  };
  for (const r of roots) walk(r, '', true, true);
  return lines;
}

function indentBlock(lines: string[], by: string): string[] {
  return lines.map((l) => by + l);
}

function renderRecord(title: string, record: Record<string, unknown> | undefined, indent: string): string[] {
  const entries = Object.entries(record ?? {});
  if (entries.length === 0) return [];
  return [`${indent}${title}:`, ...entries.map(([k, v]) => `${indent}  ${k}: ${formatValue(v)}`)];
}

export function renderResource(logicalId: string, r: ResourceState): string[] {
  const lines = [
    logicalId,
    `  Type: ${r.resourceType}`,
    `  PhysicalId: ${r.physicalId}`,
    `  ProvisionedBy: ${formatProvisionedBy(r)}`,
  ];
  if (r.providerPack) lines.push(`  ProviderPack: ${formatProviderPack(r)}`);
  if (r.deletionPolicy) lines.push(`  DeletionPolicy: ${r.deletionPolicy}`);
  if (r.updateReplacePolicy) lines.push(`  UpdateReplacePolicy: ${r.updateReplacePolicy}`);
  if (r.dependencies?.length) lines.push(`  Dependencies: ${r.dependencies.join(', ')}`);
  lines.push(...renderRecord('Properties', r.properties, '  '));
  lines.push(...renderRecord('ObservedProperties', r.observedProperties, '  '));
  lines.push(...renderRecord('Attributes', r.attributes, '  '));
  lines.push(...renderRecord('Metadata', r.metadata, '  '));
  return lines;
}

/** The full human view of one stack (and, when loaded, its nested children). */
export function renderStackView(view: StackView, meta?: Map<StackView, StackViewMeta>): string[] {
  const s = view.state;
  const m = meta?.get(view);
  const lines = [`Stack: ${s.stackName}`, `Region: ${s.region ?? '-'}`];
  if (m) {
    lines.push(`Key: ${m.key}${m.legacy ? ' (legacy layout; moved on the next write)' : ''}`);
    lines.push(
      `Schema version: ${m.sourceVersion}${m.sourceVersion < s.version ? ` (read as ${s.version}; upgraded on the next write)` : ''}`,
    );
  }
  lines.push(`Last modified: ${iso(s.lastModified)}`);
  lines.push(`Lock: ${formatLock(view.lock)}`);
  if (s.parentStack)
    lines.push(
      `Parent: ${s.parentStack} (${s.parentRegion ?? s.region}), logical id ${s.parentLogicalId ?? '-'}`,
    );
  const outputs = outputLines(presentOutputs(s.outputs ?? {}, s.exportNames), ': ');
  lines.push(...(outputs.length ? ['Outputs:', ...outputs] : ['Outputs: (none)']));
  lines.push(
    `Exports: ${s.exportNames === undefined ? '(not recorded; every output is importable)' : s.exportNames.length ? s.exportNames.join(', ') : '(none)'}`,
  );
  if (s.imports?.length) {
    lines.push(
      'Imports:',
      ...s.imports.map((i) => `  ${i.exportName} from ${i.sourceStack} (${i.sourceRegion})`),
    );
  }
  if (s.outputReads?.length) {
    lines.push(
      'Output reads:',
      ...s.outputReads.map((o) => `  ${o.outputName} from ${o.sourceStack} (${o.sourceRegion})`),
    );
  }
  const resources = Object.entries(s.resources);
  lines.push(`Resources (${resources.length}):`);
  for (const [id, r] of resources) lines.push(...indentBlock(renderResource(id, r), '  '));
  for (const child of view.children ?? []) {
    lines.push('', `Nested stack: ${child.state.stackName}`, ...renderStackView(child, meta));
  }
  return lines;
}

export function renderResourceTable(resources: Record<string, ResourceState>): string[] {
  return table(
    ['LOGICAL ID', 'TYPE', 'PROVISIONED BY', 'PACK', 'PHYSICAL ID'],
    Object.entries(resources).map(([id, r]) => [
      id,
      r.resourceType,
      formatProvisionedBy(r),
      formatProviderPack(r),
      r.physicalId,
    ]),
  );
}

export function renderStateInfo(info: StateInfo): string[] {
  return [
    `State bucket: ${info.bucket}`,
    `Bucket region: ${info.bucketRegion}${info.bucketRegionResolved ? '' : ' (lookup failed; best guess)'}`,
    `Name source: ${info.source}`,
    `Prefix: ${info.prefix || '(none)'}`,
    `Schema version: ${info.schemaVersion}`,
    `Stacks: ${info.stackCount}`,
    `Asset storage regions: ${info.bootstrappedRegions.length ? info.bootstrappedRegions.join(', ') : '(none)'}`,
  ];
}

export function renderBootstrapResult(r: BootstrapResult): string[] {
  const bucketLines = (label: string, b: BootstrapResult['stateBucket']): string[] => {
    if (b.created) return [`${label} ${b.name} (${b.region}): created (${b.changes.join(', ')})`];
    if (b.changes.length) return [`${label} ${b.name} (${b.region}): updated (${b.changes.join(', ')})`];
    return [`${label} ${b.name} (${b.region}): already bootstrapped, unchanged`];
  };
  const lines = bucketLines('State bucket', r.stateBucket);
  if (r.assetBucket) lines.push(...bucketLines('Asset bucket', r.assetBucket));
  if (r.marker) {
    lines.push(`Bootstrap marker ${r.marker.key}: ${r.marker.written ? 'written' : 'unchanged'}`);
  }
  lines.push(
    r.changed
      ? 'Bootstrap complete.'
      : 'Nothing to do: everything was already bootstrapped; no changes made.',
  );
  return lines;
}

export function renderDestroyBootstrapResult(r: DestroyBootstrapResult, stateBucket: string): string[] {
  const lines: string[] = [];
  lines.push(
    r.assetBucket ? `Deleted asset bucket ${r.assetBucket.name}.` : `No asset bucket for ${r.region}.`,
  );
  lines.push(
    r.markerDeleted ? `Deleted the bootstrap marker of ${r.region}.` : `No bootstrap marker for ${r.region}.`,
  );
  if (r.containerRepository) {
    lines.push(
      `The ECR repository ${r.containerRepository} is not managed by cdkd; delete it yourself if you created it.`,
    );
  }
  if (r.stateBucketDeleted) lines.push(`Deleted state bucket ${stateBucket}.`);
  return lines;
}

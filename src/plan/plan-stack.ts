/**
 * Plans a stack deploy: resolves the template against the state record (in
 * plan mode, so references to resources being created or replaced are
 * `Unknown`), classifies every resource, lists deletions and output changes.
 */
import { buildDeletionGraph, buildResourceGraph } from '../graph/template-graph';
import type { ResourceState, StackState } from '../state/types';
import type { ResolverEnvironment, ResourceSchemaInfo, ResourceSchemaLookup } from '../template/environment';
import { TemplateResolver } from '../template/resolver';
import type { ResolverOptions } from '../template/resolver';
import type { CfnTemplate } from '../template/types';
import { redactSecrets } from '../template/redaction';
import { containsUnknown } from '../template/unknown';
import { classifyResourceChange } from './classify';
import { withSecretChanges } from './secret-digest';
import { valuesEqual } from './property-diff';
import { decideRemoval, removalSubject } from './removal-policy';
import type { RemovalCause, RemovalSubject } from './removal-policy';
import type { OutputChange, ResourcePlan, StackPlan } from './types';

export interface PlanStackInput {
  template: CfnTemplate;
  /** The stack's state record; undefined for a stack never deployed. */
  state: StackState | undefined;
  schemas: ResourceSchemaLookup;
  /** Everything the resolver needs except the resource lookup, which the plan provides from `state`. */
  resolverEnv: Omit<ResolverEnvironment, 'resources' | 'schemas'>;
  /**
   * How dynamic references are handled; default `preserve-secrets`: secrets are
   * compared as written (the form state stores), plain SSM values are read.
   */
  dynamicReferences?: ResolverOptions['dynamicReferences'];
  /** `--force`: every resource is re-applied (unchanged ones become forced UPDATEs). */
  force?: boolean;
  /**
   * Reads the secret references of a resource whose record carries a secret
   * digest, so a changed secret is an UPDATE (the deploy passes it). Without it
   * secrets compare as written, and nothing is read (`cdkd diff`).
   */
  resolveSecrets?: (properties: Record<string, unknown>) => Promise<Record<string, unknown>>;
  /** Whether the provider that would delete a record can snapshot it (`Snapshot` policies); default no. */
  canSnapshot?: (record: ResourceState) => boolean;
}

export function schemaOf(schemas: ResourceSchemaLookup, type: string): ResourceSchemaInfo | undefined {
  return schemas.has(type) ? schemas.get(type) : undefined;
}

export async function planStack(input: PlanStackInput): Promise<StackPlan> {
  const { template, state, schemas } = input;
  const records: Record<string, ResourceState> = state?.resources ?? {};
  // Resources being created or replaced: their id and attributes are not known yet.
  const pending = new Set<string>();
  const resolver = new TemplateResolver(
    template,
    {
      ...input.resolverEnv,
      schemas,
      resources: (id) =>
        pending.has(id) || !Object.prototype.hasOwnProperty.call(records, id) ? undefined : records[id],
    },
    { mode: 'plan', dynamicReferences: input.dynamicReferences ?? 'preserve-secrets' },
  );

  const graph = await buildResourceGraph(template, resolver);
  const resources: ResourcePlan[] = [];
  for (const id of graph.topologicalOrder()) {
    const resolved = await resolver.resolveResource(id);
    const desired = {
      properties: resolved.properties,
      ...(resolved.deletionPolicy ? { deletionPolicy: resolved.deletionPolicy } : {}),
      ...(resolved.updateReplacePolicy ? { updateReplacePolicy: resolved.updateReplacePolicy } : {}),
    };
    const recorded = Object.prototype.hasOwnProperty.call(records, id) ? records[id] : undefined;
    let change = classifyResourceChange(
      resolved.resourceType,
      desired,
      recorded,
      schemaOf(schemas, resolved.resourceType),
      { force: input.force },
    );
    if (input.resolveSecrets)
      change = await withSecretChanges(change, desired, recorded, input.resolveSecrets);
    if (change.action === 'CREATE' || change.action === 'REPLACE') pending.add(id);
    const removal =
      change.action === 'REPLACE' && recorded
        ? removalOf(
            {
              logicalId: id,
              resourceType: recorded.resourceType,
              ...(resolved.updateReplacePolicy ? { updateReplacePolicy: resolved.updateReplacePolicy } : {}),
            },
            'replaced',
            recorded,
            input,
          )
        : undefined;
    resources.push({
      logicalId: id,
      resourceType: resolved.resourceType,
      ...(recorded && recorded.resourceType !== resolved.resourceType
        ? { previousResourceType: recorded.resourceType }
        : {}),
      ...change,
      desired,
      ...(removal ? { removal } : {}),
    });
  }

  // Recorded resources the template no longer creates, dependents first.
  const removed: Record<string, ResourceState> = {};
  for (const [id, record] of Object.entries(records)) if (!graph.has(id)) removed[id] = record;
  for (const id of buildDeletionGraph(removed).topologicalOrder()) {
    const record = removed[id];
    const removal = removalOf(removalSubject(id, record), 'removed', record, input);
    resources.push({
      logicalId: id,
      resourceType: record.resourceType,
      action: 'DELETE',
      propertyChanges: [],
      ...(record.deletionPolicy ? { deletionPolicy: record.deletionPolicy } : {}),
      ...(removal === 'retain' ? { retain: true } : {}),
      ...(removal ? { removal } : {}),
    });
  }

  const outputs = await planOutputs(resolver, state);
  return {
    stackName: input.resolverEnv.stackName,
    resources,
    outputs,
    hasChanges:
      resources.some((r) => r.action !== 'NO_CHANGE') || outputs.some((o) => o.action !== 'NO_CHANGE'),
  };
}

/** What the removal rule does with a record leaving the stack; undefined for a plain delete. */
function removalOf(
  subject: RemovalSubject,
  cause: RemovalCause,
  record: ResourceState,
  input: PlanStackInput,
): ResourcePlan['removal'] {
  const { action } = decideRemoval(subject, cause, { canSnapshot: input.canSnapshot?.(record) ?? false });
  return action === 'delete' ? undefined : action;
}

async function planOutputs(
  resolver: TemplateResolver,
  state: StackState | undefined,
): Promise<OutputChange[]> {
  const recorded = state?.outputs ?? {};
  const has = (key: string): boolean => Object.prototype.hasOwnProperty.call(recorded, key);
  const resolved = await resolver.resolveOutputs();
  const changes: OutputChange[] = [];
  const names = new Set<string>();
  const exportAliases = new Set<string>();
  for (const out of resolved) {
    names.add(out.name);
    if (typeof out.exportName === 'string') exportAliases.add(out.exportName);
    const unknown = containsUnknown(out.value);
    // Compared (and shown) as stored: a secret is masked on both sides.
    const after = redactSecrets(out.value);
    const base = {
      name: out.name,
      after,
      ...(out.exportName !== undefined ? { exportName: out.exportName } : {}),
    };
    if (!has(out.name)) {
      changes.push({ ...base, action: 'ADD', ...(unknown ? { unknown: true } : {}) });
    } else if (!unknown && valuesEqual(redactSecrets(recorded[out.name]), after)) {
      changes.push({ ...base, action: 'NO_CHANGE', before: recorded[out.name] });
    } else {
      changes.push({
        ...base,
        action: 'UPDATE',
        before: recorded[out.name],
        ...(unknown ? { unknown: true } : {}),
      });
    }
  }
  for (const key of Object.keys(recorded)) {
    // The bag also holds export aliases (spec: export names share one namespace with output
    // names): a current one is not an output of its own; a former one is a removed export.
    if (names.has(key) || exportAliases.has(key)) continue;
    changes.push({ name: key, action: 'REMOVE', before: recorded[key] });
  }
  return changes;
}

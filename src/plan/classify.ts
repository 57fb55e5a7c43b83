/**
 * The per-resource decision: CREATE, UPDATE, REPLACE or NO_CHANGE, from the
 * resolved desired state, the state record and the type's schema. The plan
 * calls it with values that may be unknown; the deploy engine calls it again at
 * dispatch time with fully resolved values.
 *
 * Rules:
 * - no record -> CREATE;
 * - the type changed, or a create-only property (top-level or nested pointer)
 *   changed -> REPLACE;
 * - a create-only property whose new value is unknown -> REPLACE with
 *   `mayReplace` ("may be replaced");
 * - a conditionally create-only property changed -> UPDATE, the change marked
 *   `mayCauseReplacement`: the engine updates in place (as CloudFormation first
 *   tries), and a provider that cannot will fail with the reason;
 * - other property changes -> UPDATE;
 * - only `DeletionPolicy` / `UpdateReplacePolicy` differ from the record ->
 *   UPDATE with `policyOnly` (the state record is refreshed, no provider call);
 * - otherwise NO_CHANGE (a secret's value is compared by its digest: {@link ./secret-digest});
 * - with `force` (`cdkd deploy --force`), NO_CHANGE and policy-only changes are
 *   UPDATEs marked `forced`: the resource is re-applied with its desired
 *   properties ({@link reappliedFrom} gives the "previous" side of that update).
 */
import type { ResourceState } from '../state/types';
import { redactSecrets } from '../template/redaction';
import type { ResourceSchemaInfo } from '../template/environment';
import { formatPath, diffValues, pathOverlaps, pointerChange, pointerSegments } from './property-diff';
import type { DesiredResourceState, PropertyChange, ResourceChange } from './types';

export function classifyResourceChange(
  resourceType: string,
  desired: DesiredResourceState,
  recorded: ResourceState | undefined,
  schema: ResourceSchemaInfo | undefined,
  options: { force?: boolean } = {},
): ResourceChange {
  const change = classify(resourceType, desired, recorded, schema);
  if (options.force && (change.action === 'NO_CHANGE' || change.policyOnly))
    return { action: 'UPDATE', propertyChanges: change.propertyChanges, forced: true };
  return change;
}

/**
 * The "previous properties" of a forced re-apply: only the recorded create-only
 * ones, so the update sets every other property to its desired value (an SDK
 * provider applies them all; Cloud Control gets a patch adding each) and never
 * touches what cannot change in place.
 */
export function reappliedFrom(
  recorded: Record<string, unknown>,
  schema: ResourceSchemaInfo | undefined,
): Record<string, unknown> {
  const createOnly = new Set(
    (schema?.createOnlyProperties ?? [])
      .map((p) => pointerSegments(p))
      .filter((s) => s.length === 1)
      .map((s) => s[0]),
  );
  return Object.fromEntries(Object.entries(recorded).filter(([k]) => createOnly.has(k)));
}

function classify(
  resourceType: string,
  desired: DesiredResourceState,
  recorded: ResourceState | undefined,
  schema: ResourceSchemaInfo | undefined,
): ResourceChange {
  if (!recorded) return { action: 'CREATE', propertyChanges: [] };

  // Compared as stored: a secret is masked on both sides (the record may come from S3, where it is).
  const before = redactSecrets(recorded.properties ?? {});
  const after = redactSecrets(desired.properties);
  const raw = diffValues(before, after);
  const changes: PropertyChange[] = raw.map((c) => ({
    path: formatPath(['Properties', ...c.segments]),
    before: c.before,
    after: c.after,
    ...(c.unknown ? { unknown: true } : {}),
  }));

  const replacedBy: string[] = [];
  const mayReplaceBy: string[] = [];
  const typeChanged = recorded.resourceType !== resourceType;
  if (!typeChanged) {
    for (const pointer of schema?.createOnlyProperties ?? []) {
      const pattern = pointerSegments(pointer);
      const how = pointerChange(before, after, pattern);
      if (how === 'none') continue;
      (how === 'changed' ? replacedBy : mayReplaceBy).push(pattern.join('.'));
      raw.forEach((c, i) => {
        if (!pathOverlaps(c.segments, pattern)) return;
        if (how === 'changed' && !c.unknown) changes[i].causesReplacement = true;
        else changes[i].mayCauseReplacement = true;
      });
    }
    for (const pointer of schema?.conditionalCreateOnlyProperties ?? []) {
      const pattern = pointerSegments(pointer);
      raw.forEach((c, i) => {
        if (pathOverlaps(c.segments, pattern) && !changes[i].causesReplacement)
          changes[i].mayCauseReplacement = true;
      });
    }
  }

  const policyChanges: PropertyChange[] = [];
  if (desired.deletionPolicy !== recorded.deletionPolicy) {
    policyChanges.push({
      path: 'DeletionPolicy',
      before: recorded.deletionPolicy,
      after: desired.deletionPolicy,
    });
  }
  if (desired.updateReplacePolicy !== recorded.updateReplacePolicy) {
    policyChanges.push({
      path: 'UpdateReplacePolicy',
      before: recorded.updateReplacePolicy,
      after: desired.updateReplacePolicy,
    });
  }

  if (typeChanged) {
    return {
      action: 'REPLACE',
      propertyChanges: [
        { path: 'Type', before: recorded.resourceType, after: resourceType, causesReplacement: true },
        ...changes,
        ...policyChanges,
      ],
      replacementReason: `type changed from ${recorded.resourceType} to ${resourceType}`,
    };
  }
  if (replacedBy.length > 0) {
    return {
      action: 'REPLACE',
      propertyChanges: [...changes, ...policyChanges],
      replacementReason: `create-only ${plural(replacedBy, 'property', 'properties')} ${replacedBy.join(', ')} changed`,
    };
  }
  if (mayReplaceBy.length > 0) {
    return {
      action: 'REPLACE',
      mayReplace: true,
      propertyChanges: [...changes, ...policyChanges],
      replacementReason: `create-only ${plural(mayReplaceBy, 'property', 'properties')} ${mayReplaceBy.join(', ')} may change (known after deploy)`,
    };
  }
  if (changes.length > 0) return { action: 'UPDATE', propertyChanges: [...changes, ...policyChanges] };
  if (policyChanges.length > 0) return { action: 'UPDATE', propertyChanges: policyChanges, policyOnly: true };
  return { action: 'NO_CHANGE', propertyChanges: [] };
}

function plural(items: string[], one: string, many: string): string {
  return items.length === 1 ? one : many;
}

/**
 * Stack tags onto the stack's resources, as CloudFormation propagates them:
 * every resource of a taggable type (its schema names the tag property and its
 * shape) gets each stack tag its template does not set itself — a tag the
 * template sets for the same key wins. The shapes: `standard` `[{Key, Value}]`,
 * `map` `{key: value}`, `asg` `[{Key, Value, PropagateAtLaunch}]`.
 *
 * A tag property given as an intrinsic (not a literal list or map) cannot be
 * merged before deploy; such resources are listed in `skipped`.
 */

/** How a type is tagged; `undefined` for a type that is not taggable. */
export interface TaggingInfo {
  tagPropertyName: string;
  variant: 'standard' | 'map' | 'asg';
}

export interface StackTagResult {
  /** The template with the tags merged in (the input is not modified). */
  template: Record<string, unknown>;
  /** Resources that received at least one stack tag. */
  tagged: string[];
  /** Taggable resources whose tag property is an intrinsic, left as they are. */
  skipped: string[];
}

export function applyStackTags(
  template: Record<string, unknown>,
  tags: Readonly<Record<string, string>>,
  taggingOf: (resourceType: string) => TaggingInfo | undefined,
): StackTagResult {
  const entries = Object.entries(tags);
  const result: StackTagResult = { template, tagged: [], skipped: [] };
  const resources = template.Resources as Record<string, Record<string, unknown>> | undefined;
  if (entries.length === 0 || !resources) return result;
  const merged: Record<string, unknown> = {};
  for (const [id, resource] of Object.entries(resources)) {
    merged[id] = resource;
    const tagging = typeof resource?.Type === 'string' ? taggingOf(resource.Type) : undefined;
    if (!tagging) continue;
    const properties = (resource.Properties ?? {}) as Record<string, unknown>;
    const current = properties[tagging.tagPropertyName];
    const next =
      tagging.variant === 'map' ? mergeMap(current, entries) : mergeList(current, entries, tagging);
    if (next === undefined) {
      result.skipped.push(id);
      continue;
    }
    if (next === current) continue;
    merged[id] = { ...resource, Properties: { ...properties, [tagging.tagPropertyName]: next } };
    result.tagged.push(id);
  }
  result.template = { ...template, Resources: merged };
  return result;
}

/** A literal list with the missing keys appended; the same list when none is missing; undefined for an intrinsic. */
function mergeList(current: unknown, tags: Array<[string, string]>, tagging: TaggingInfo): unknown {
  if (current !== undefined && !Array.isArray(current)) return undefined;
  const list = (current ?? []) as Array<Record<string, unknown>>;
  const keys = new Set(list.map((t) => t?.Key));
  const missing = tags.filter(([key]) => !keys.has(key));
  if (missing.length === 0) return current;
  const added = missing.map(([Key, Value]) =>
    tagging.variant === 'asg' ? { Key, Value, PropagateAtLaunch: true } : { Key, Value },
  );
  return [...list, ...added];
}

/** A literal map with the missing keys added; the same map when none is missing; undefined for an intrinsic. */
function mergeMap(current: unknown, tags: Array<[string, string]>): unknown {
  if (current !== undefined && (typeof current !== 'object' || current === null || Array.isArray(current)))
    return undefined;
  const map = (current ?? {}) as Record<string, unknown>;
  const keys = Object.keys(map);
  if (keys.length === 1 && (keys[0] === 'Ref' || keys[0].startsWith('Fn::'))) return undefined;
  const missing = tags.filter(([key]) => !Object.prototype.hasOwnProperty.call(map, key));
  if (missing.length === 0) return current;
  return { ...map, ...Object.fromEntries(missing) };
}

/**
 * The rules of `cdkd scrub`: finding the secrets an EARLIER binary stored in
 * clear in a stack's state, from the template alone (scrub takes no
 * parameters), and rewriting every value that holds one.
 *
 * The redaction source is rebuilt in two layers:
 * - POSITION: each persisted leaf is lined up with its own unresolved template
 *   value. Where the template holds a secret dynamic reference or a `Ref` to a
 *   NoEcho parameter (alone, or inside an `Fn::Join` / `Fn::Sub` / a longer
 *   string), the span of the stored leaf at that place IS the secret. A span is
 *   learned only when literal text fixes both its ends; a span next to another
 *   unknown part is unsafe and left to the value match.
 * - VALUE: every learned value (plus the NoEcho parameters' defaults and the
 *   references' current values, when the caller could read them) is matched in
 *   every stored value, with the registry's length bound (a secret of three
 *   characters or fewer only as a whole value).
 *
 * What a match becomes is what a deploy of today stores at that place: a secret
 * reference's value becomes the reference itself in properties and outputs
 * (where the template wrote it) and the mask elsewhere; a NoEcho value becomes
 * the mask. So the next deploy sees no change.
 *
 * Outputs follow the spec's collision rule for an earlier binary's state: an
 * Export.Name equal to another DECLARED output's name (conditions ignored) drops
 * the position source of that key entirely; an intrinsic Export.Name that does
 * not fully resolve (an error, a non-string, a `${...}` left) puts the whole
 * output bag on value match. Keys are never rewritten: a key holding plaintext
 * is reported separately.
 */
import { SECRET_MASK, MIN_NEEDLE_LENGTH } from '../template/redaction';
import { findDynamicReferences, isSecretReference } from '../template/dynamic-references';
import type { CfnTemplate } from '../template/types';
import type { ResourceState, StackState } from './types';

/** One secret value found, and what it is stored as. */
export interface ScrubSecret {
  /** What a property or output holding it stores: the reference as written, or the mask. */
  replacement: string;
  /** Where it came from, for messages (never the value). */
  origin: 'reference' | 'noecho' | 'attribute';
}

/** Secret value -> how it is stored. */
export type ScrubSecrets = Map<string, ScrubSecret>;

/** What the template says about its secrets, independent of any state. */
export interface TemplateSecrets {
  /** NoEcho parameter names. */
  noEcho: Set<string>;
  /** Every secret dynamic reference (`ssm-secure`, `secretsmanager`) the template holds, as written. */
  references: string[];
  /** NoEcho parameters' default values. */
  defaults: string[];
}

export function templateSecrets(template: CfnTemplate): TemplateSecrets {
  const noEcho = new Set<string>();
  const defaults: string[] = [];
  for (const [name, p] of Object.entries(template.Parameters ?? {})) {
    if (p.NoEcho !== true && String(p.NoEcho).toLowerCase() !== 'true') continue;
    noEcho.add(name);
    if (p.Default !== undefined && p.Default !== '') defaults.push(String(p.Default));
  }
  const references = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const ref of findDynamicReferences(v)) if (isSecretReference(ref)) references.add(ref.text);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v !== null && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(template.Resources);
  visit(template.Outputs);
  return { noEcho, references: [...references], defaults };
}

// ------------------------------------------------------------ positions

type Piece =
  | { kind: 'literal'; text: string }
  | { kind: 'secret'; secret: ScrubSecret }
  /** A part whose value this run cannot know (another intrinsic, a plain `ssm` reference). */
  | { kind: 'unknown' };

const REFERENCE = /\{\{resolve:[^:}]*:[^}]*\}\}/g;

function stringPieces(text: string): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(REFERENCE)) {
    if (m.index! > last) pieces.push({ kind: 'literal', text: text.slice(last, m.index) });
    const [ref] = findDynamicReferences(m[0]);
    pieces.push(
      ref && isSecretReference(ref)
        ? { kind: 'secret', secret: { replacement: m[0], origin: 'reference' } }
        : { kind: 'unknown' },
    );
    last = m.index! + m[0].length;
  }
  if (last < text.length) pieces.push({ kind: 'literal', text: text.slice(last) });
  return pieces;
}

const NOECHO_SECRET: ScrubSecret = { replacement: SECRET_MASK, origin: 'noecho' };

/** The parts a template value's resolved string is made of; undefined when it is not a string-valued shape. */
function templatePieces(value: unknown, noEcho: Set<string>, depth = 0): Piece[] | undefined {
  if (depth > 16) return [{ kind: 'unknown' }];
  if (typeof value === 'string') return stringPieces(value);
  if (typeof value === 'number' || typeof value === 'boolean')
    return [{ kind: 'literal', text: String(value) }];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const [fn] = keys;
  const arg = (value as Record<string, unknown>)[fn];
  if (fn === 'Ref')
    return [
      typeof arg === 'string' && noEcho.has(arg)
        ? { kind: 'secret', secret: NOECHO_SECRET }
        : { kind: 'unknown' },
    ];
  if (fn === 'Fn::Join') {
    if (!Array.isArray(arg) || typeof arg[0] !== 'string' || !Array.isArray(arg[1]))
      return [{ kind: 'unknown' }];
    const out: Piece[] = [];
    (arg[1] as unknown[]).forEach((part, i) => {
      if (i > 0 && arg[0] !== '') out.push({ kind: 'literal', text: arg[0] as string });
      out.push(...(templatePieces(part, noEcho, depth + 1) ?? [{ kind: 'unknown' }]));
    });
    return out;
  }
  if (fn === 'Fn::Sub') {
    const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
    if (typeof text !== 'string') return [{ kind: 'unknown' }];
    return subPieces(text, (vars ?? {}) as Record<string, unknown>, noEcho, depth);
  }
  return [{ kind: 'unknown' }];
}

function subPieces(text: string, vars: Record<string, unknown>, noEcho: Set<string>, depth: number): Piece[] {
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(/\$\{([^}]*)\}/g)) {
    if (m.index! > last) out.push(...stringPieces(text.slice(last, m.index)));
    const name = m[1];
    if (name.startsWith('!')) out.push({ kind: 'literal', text: `\${${name.slice(1)}}` });
    else if (name in vars)
      out.push(...(templatePieces(vars[name], noEcho, depth + 1) ?? [{ kind: 'unknown' }]));
    else if (noEcho.has(name)) out.push({ kind: 'secret', secret: NOECHO_SECRET });
    else out.push({ kind: 'unknown' });
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push(...stringPieces(text.slice(last)));
  return out;
}

/** Adjacent literals merged, empty ones dropped. */
function normalize(pieces: Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const p of pieces) {
    const prev = out[out.length - 1];
    if (p.kind === 'literal' && p.text === '') continue;
    if (p.kind === 'literal' && prev?.kind === 'literal') prev.text += p.text;
    else out.push({ ...p });
  }
  return out;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The secret spans of `stored` at the places `pieces` mark, or nothing when the
 * position is unsafe (a secret span not fixed by literal text on both sides) or
 * the stored value does not have the template's shape.
 */
function spansOf(pieces: Piece[], stored: string): Array<{ value: string; secret: ScrubSecret }> {
  const parts = normalize(pieces);
  if (!parts.some((p) => p.kind === 'secret')) return [];
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].kind === 'literal') continue;
    const unsafe = (j: number) => j >= 0 && j < parts.length && parts[j].kind !== 'literal';
    if (parts[i].kind === 'secret' && (unsafe(i - 1) || unsafe(i + 1))) return [];
  }
  const source = parts
    .map((p) =>
      p.kind === 'literal' ? escapeRegex(p.text) : p.kind === 'secret' ? '([\\s\\S]*?)' : '[\\s\\S]*?',
    )
    .join('');
  const m = new RegExp(`^${source}$`).exec(stored);
  if (!m) return [];
  const secrets = parts.filter((p): p is Extract<Piece, { kind: 'secret' }> => p.kind === 'secret');
  return secrets
    .map((p, i) => ({ value: m[i + 1], secret: p.secret }))
    .filter((s) => s.value !== '' && s.value !== SECRET_MASK && s.value !== s.secret.replacement);
}

/** Learns the secrets `stored` holds where `template` positions them (walking objects and lists in step). */
export function learnFromPosition(
  template: unknown,
  stored: unknown,
  noEcho: Set<string>,
  into: ScrubSecrets,
  depth = 0,
): void {
  if (depth > 64 || stored === undefined || stored === null) return;
  if (typeof stored === 'string') {
    const pieces = templatePieces(template, noEcho);
    if (!pieces) return;
    for (const { value, secret } of spansOf(pieces, stored)) if (!into.has(value)) into.set(value, secret);
    return;
  }
  if (template === null || typeof template !== 'object' || typeof stored !== 'object') return;
  if (Array.isArray(template) && Array.isArray(stored)) {
    // A list element removed by AWS::NoValue would shift positions: only lists of one length line up.
    if (template.length !== stored.length) return;
    template.forEach((t, i) => learnFromPosition(t, stored[i], noEcho, into, depth + 1));
    return;
  }
  if (Array.isArray(template) || Array.isArray(stored)) return;
  for (const [k, v] of Object.entries(stored as Record<string, unknown>)) {
    const t = (template as Record<string, unknown>)[k];
    if (t !== undefined) learnFromPosition(t, v, noEcho, into, depth + 1);
  }
}

// -------------------------------------------------------------- outputs

/** How scrub positions a stack's output bag. */
export interface OutputSources {
  /** Output-bag key -> the template value that positions it. */
  byKey: Map<string, unknown>;
  /** True when the whole bag is matched by value only (an Export.Name did not fully resolve). */
  valueOnly: boolean;
  warnings: string[];
}

/** A best-effort Export.Name: literal strings, pseudo parameters, parameter defaults, Fn::Sub, Fn::Join. */
export function resolveExportName(
  value: unknown,
  env: { stackName: string; region: string; template: CfnTemplate },
): unknown {
  const ref = (name: string): string => {
    if (name === 'AWS::StackName') return env.stackName;
    if (name === 'AWS::Region') return env.region;
    const p = env.template.Parameters?.[name];
    if (p?.Default !== undefined) return String(p.Default);
    throw new Error(`cannot resolve ${name}`);
  };
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const [fn, arg] = Object.entries(value)[0] ?? [];
  if (fn === 'Ref' && typeof arg === 'string') return ref(arg);
  if (fn === 'Fn::Join' && Array.isArray(arg) && Array.isArray(arg[1])) {
    return (arg[1] as unknown[])
      .map((p) => {
        const r = resolveExportName(p, env);
        if (typeof r !== 'string') throw new Error('non-string part');
        return r;
      })
      .join(String(arg[0]));
  }
  if (fn === 'Fn::Sub') {
    const [text, vars] = Array.isArray(arg) ? arg : [arg, {}];
    if (typeof text !== 'string') throw new Error('non-string Fn::Sub');
    return text.replace(/\$\{([^}!]*)\}/g, (whole, name: string) => {
      const v = (vars as Record<string, unknown>)?.[name];
      if (v !== undefined) {
        const r = resolveExportName(v, env);
        return typeof r === 'string' ? r : whole;
      }
      try {
        return ref(name);
      } catch {
        // Fn::Sub keeps a placeholder it cannot fill: "not fully resolved", decided by the caller.
        return whole;
      }
    });
  }
  throw new Error(`${fn} is not evaluated by scrub`);
}

/** The position sources of the output bag, by the spec's collision and intrinsic rules for scrub. */
export function outputSources(template: CfnTemplate, stackName: string, region: string): OutputSources {
  const outputs = Object.entries(template.Outputs ?? {});
  const declared = new Set(outputs.map(([name]) => name));
  const byKey = new Map<string, unknown>();
  const colliding = new Set<string>();
  const warnings: string[] = [];
  let valueOnly = false;
  for (const [name, out] of outputs) byKey.set(name, out.Value);
  for (const [name, out] of outputs) {
    if (out.Export?.Name === undefined) continue;
    let exportName: unknown;
    try {
      exportName = resolveExportName(out.Export.Name, { stackName, region, template });
    } catch {
      exportName = undefined;
    }
    if (typeof exportName !== 'string' || /\$\{[^}]*\}/.test(exportName)) {
      valueOnly = true;
      warnings.push(
        `Output ${name}: its Export.Name does not fully resolve without parameters, so every output of the stack is scrubbed by value match only.`,
      );
      continue;
    }
    if (exportName === name) continue;
    if (declared.has(exportName)) {
      // The alias may have won the key in the earlier binary's state: neither template value positions it.
      colliding.add(exportName);
      warnings.push(
        `Output ${name} exports the name ${exportName}, which is also an output's name: that key is scrubbed by value match only.`,
      );
      continue;
    }
    if (byKey.has(exportName) && byKey.get(exportName) !== out.Value) colliding.add(exportName);
    else byKey.set(exportName, out.Value);
  }
  for (const key of colliding) byKey.delete(key);
  return { byKey: valueOnly ? new Map() : byKey, valueOnly, warnings };
}

// ---------------------------------------------------------- value match

/** A secret's forms as stored: verbatim, and escaped inside a JSON string (a policy document). */
function forms(value: string): string[] {
  const escaped = JSON.stringify(value).slice(1, -1);
  return escaped === value ? [value] : [value, escaped];
}

/** Matches the scrub's secrets in text, longest first; `asReference` picks the reference form over the mask. */
export class SecretMatcher {
  private readonly needles: Array<{ needle: string; secret: ScrubSecret }>;

  constructor(readonly secrets: ScrubSecrets) {
    this.needles = [...secrets]
      .filter(([v]) => v.length >= MIN_NEEDLE_LENGTH)
      .flatMap(([v, secret]) => forms(v).map((needle) => ({ needle, secret })))
      .sort((a, b) => b.needle.length - a.needle.length);
  }

  /** `text` with every secret replaced (undefined when it holds none). */
  rewrite(text: string, asReference: boolean): string | undefined {
    const whole = this.secrets.get(text);
    if (whole) return asReference ? whole.replacement : SECRET_MASK;
    let out = text;
    for (const { needle, secret } of this.needles) {
      if (out.includes(needle)) out = out.split(needle).join(asReference ? secret.replacement : SECRET_MASK);
    }
    return out === text ? undefined : out;
  }

  /** True when a key holds a secret: a short secret only as the whole key, a longer one anywhere in it. */
  keyHoldsSecret(key: string): boolean {
    return this.secrets.has(key) || this.needles.some((n) => key.includes(n.needle));
  }
}

/**
 * `value` with every secret leaf rewritten, and the paths it changed pushed to
 * `sites`. Keys are never touched. Returns the same object when nothing changed.
 */
export function rewriteValue(
  value: unknown,
  matcher: SecretMatcher,
  asReference: boolean,
  path: string,
  sites: string[],
  depth = 0,
): unknown {
  if (typeof value === 'string') {
    const out = matcher.rewrite(value, asReference);
    if (out === undefined) return value;
    sites.push(path);
    return out;
  }
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v, i) => {
      const r = rewriteValue(v, matcher, asReference, `${path}[${i}]`, sites, depth + 1);
      if (r !== v) changed = true;
      return r;
    });
    return changed ? out : value;
  }
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const r = rewriteValue(v, matcher, asReference, path ? `${path}.${k}` : k, sites, depth + 1);
    if (r !== v) changed = true;
    out[k] = r;
  }
  return changed ? out : value;
}

// ------------------------------------------------------------ the stack

export interface ScrubStackInput {
  template: CfnTemplate;
  state: StackState;
  region: string;
  /** Secrets known from elsewhere: the references' current values, other versions of the record. */
  known?: ScrubSecrets;
  /** Top-level write-only property names of a resource type (its schema's `writeOnlyProperties`). */
  writeOnly?: (resourceType: string) => readonly string[];
  /** Attribute names a resource type always holds a secret in (plugin API `secretAttributes`). */
  secretAttributes?: (resourceType: string) => readonly string[];
}

export interface ScrubStackResult {
  /** The record with every secret rewritten (the same object when nothing changed). */
  state: StackState;
  /** Every value rewritten, as a path in the record (`resources.Db.properties.Password`). */
  sites: string[];
  /** Output keys (and export names) that hold a secret: reported, never rewritten. Already masked. */
  plaintextKeys: string[];
  /** Every secret this record and the template revealed (for the other sites and versions). */
  secrets: ScrubSecrets;
  warnings: string[];
}

const ATTRIBUTE_SECRET: ScrubSecret = { replacement: SECRET_MASK, origin: 'attribute' };

/**
 * Learns the secrets a stored record holds by the template's positions, and at
 * the attributes its resource types declare always secret (no rewrite).
 */
export function learnSecrets(
  template: CfnTemplate,
  state: StackState,
  region: string,
  into: ScrubSecrets = new Map(),
  secretAttributes?: (resourceType: string) => readonly string[],
): { secrets: ScrubSecrets; warnings: string[] } {
  const { noEcho, defaults } = templateSecrets(template);
  for (const d of defaults) if (!into.has(d)) into.set(d, NOECHO_SECRET);
  // A value a provider minted has no template position: the type's declaration is what names it.
  for (const r of [...Object.values(state.resources ?? {}), ...(state.deposed ?? [])]) {
    for (const name of secretAttributes?.(r.resourceType) ?? []) {
      const v = r.attributes?.[name];
      if (typeof v === 'string' && v !== '' && v !== SECRET_MASK && !into.has(v))
        into.set(v, ATTRIBUTE_SECRET);
    }
  }
  for (const [id, resource] of Object.entries(template.Resources ?? {})) {
    const record = state.resources[id];
    if (!record || !resource.Properties) continue;
    learnFromPosition(resource.Properties, record.properties, noEcho, into);
  }
  const sources = outputSources(template, state.stackName, region);
  for (const [key, source] of sources.byKey) learnFromPosition(source, state.outputs?.[key], noEcho, into);
  return { secrets: into, warnings: sources.warnings };
}

function withoutWriteOnly(
  bag: Record<string, unknown> | undefined,
  names: readonly string[],
  path: string,
  sites: string[],
): Record<string, unknown> | undefined {
  if (!bag || names.length === 0) return bag;
  const present = names.filter((n) => n in bag && bag[n] !== SECRET_MASK);
  if (present.length === 0) return bag;
  const out = { ...bag };
  for (const n of present) {
    delete out[n];
    sites.push(`${path}.${n}`);
  }
  return out;
}

function scrubRecord<T extends ResourceState>(
  record: T,
  matcher: SecretMatcher,
  writeOnly: readonly string[],
  path: string,
  sites: string[],
): T {
  const before = sites.length;
  const rewrite = (v: unknown, where: string, asReference: boolean) =>
    rewriteValue(v, matcher, asReference, `${path}.${where}`, sites);
  const out: T = { ...record, properties: rewrite(record.properties, 'properties', true) as T['properties'] };
  const observed = withoutWriteOnly(
    record.observedProperties,
    writeOnly,
    `${path}.observedProperties`,
    sites,
  );
  if (observed)
    out.observedProperties = rewrite(observed, 'observedProperties', false) as Record<string, unknown>;
  const attributes = withoutWriteOnly(record.attributes, writeOnly, `${path}.attributes`, sites);
  if (attributes) out.attributes = rewrite(attributes, 'attributes', false) as Record<string, unknown>;
  if (record.metadata) out.metadata = rewrite(record.metadata, 'metadata', false) as T['metadata'];
  return sites.length === before ? record : out;
}

/**
 * Rewrites a stack's record: learns its secrets by position, adds the known
 * ones, and matches all of them in every value. Pure: nothing is read or written.
 */
export function scrubStackState(input: ScrubStackInput): ScrubStackResult {
  const { template, state, region } = input;
  const secrets: ScrubSecrets = new Map(input.known ?? []);
  const { warnings } = learnSecrets(template, state, region, secrets, input.secretAttributes);
  const matcher = new SecretMatcher(secrets);
  const sites: string[] = [];
  const writeOnlyOf = (type: string) => input.writeOnly?.(type) ?? [];
  const resources: Record<string, ResourceState> = {};
  for (const [id, r] of Object.entries(state.resources))
    resources[id] = scrubRecord(r, matcher, writeOnlyOf(r.resourceType), `resources.${id}`, sites);
  const outputs = rewriteValue(state.outputs ?? {}, matcher, true, 'outputs', sites) as Record<
    string,
    unknown
  >;
  const deposed = state.deposed?.map((d, i) =>
    scrubRecord(d, matcher, writeOnlyOf(d.resourceType), `deposed[${i}]`, sites),
  );
  const plaintextKeys = [...new Set([...Object.keys(state.outputs ?? {}), ...(state.exportNames ?? [])])]
    .filter((k) => matcher.keyHoldsSecret(k))
    .map((k) => `outputs[${JSON.stringify(maskKey(k, matcher))}]`);
  const changed = sites.length > 0;
  return {
    state: changed ? { ...state, resources, outputs, ...(deposed ? { deposed } : {}) } : state,
    sites,
    plaintextKeys,
    secrets,
    warnings,
  };
}

/** A key as it may be printed: each secret in it masked (a whole short key too). */
export function maskKey(key: string, matcher: SecretMatcher): string {
  return matcher.rewrite(key, false) ?? key;
}

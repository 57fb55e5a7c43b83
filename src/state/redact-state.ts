/**
 * What reaches the state bucket with every registered secret masked
 * (src/template/redaction.ts): state.json, the write-ahead log's segments, the
 * exports index. Only VALUES are rewritten — properties, observed properties,
 * attributes, metadata, outputs, failure messages — never keys, logical or
 * physical ids, so a record stays addressable whatever a secret happens to equal.
 */
import { hasSecrets, redactSecrets, redactSecretsInText } from '../template/redaction';
import { digestMaskedLeaves } from './intent-secrets';
import type { WalRecord } from './write-ahead-log';
import type { DeposedResource, IntentRecord, ResourceState, StackState, StateMutation } from './types';

/** A resource record with its value-bearing fields masked. */
export function redactResourceState<T extends ResourceState>(record: T): T {
  if (!hasSecrets()) return record;
  const out = { ...record, properties: redactSecrets(record.properties) };
  if (record.observedProperties) out.observedProperties = redactSecrets(record.observedProperties);
  if (record.attributes) out.attributes = redactSecrets(record.attributes);
  if (record.metadata) out.metadata = redactSecrets(record.metadata);
  return out;
}

/** An intent with the properties it announces masked. */
export function redactIntent(intent: IntentRecord): IntentRecord {
  if (!hasSecrets()) return intent;
  const properties = intent.properties ? redactSecrets(intent.properties) : undefined;
  // What the mask hides is kept as a digest, so a run settling the intent can restore it.
  const digests =
    intent.properties && properties !== intent.properties ? digestMaskedLeaves(intent.properties) : undefined;
  return {
    ...intent,
    ...(properties ? { properties } : {}),
    ...(digests ? { maskedDigests: { ...intent.maskedDigests, ...digests } } : {}),
    ...(intent.previousProperties ? { previousProperties: redactSecrets(intent.previousProperties) } : {}),
    ...(intent.recordBase?.metadata
      ? { recordBase: { ...intent.recordBase, metadata: redactSecrets(intent.recordBase.metadata) } }
      : {}),
  };
}

function redactMutation(m: StateMutation): StateMutation {
  if (m.op === 'set') return { ...m, record: redactResourceState(m.record) };
  if (m.op === 'depose') return { ...m, entry: redactResourceState<DeposedResource>(m.entry) };
  return m;
}

/** A write-ahead log record as it may be stored. */
export function redactWalRecord(record: WalRecord): WalRecord {
  if (!hasSecrets()) return record;
  if (record.t === 'intent') return { ...record, intent: redactIntent(record.intent) };
  if (record.t === 'outcome') {
    return {
      ...record,
      effects: record.effects.map(redactMutation),
      ...(record.failed
        ? { failed: { ...record.failed, message: redactSecretsInText(record.failed.message) } }
        : {}),
    };
  }
  return record;
}

/** A stack's record as it may be stored. */
export function redactStackState(state: StackState): StackState {
  if (!hasSecrets()) return state;
  const resources: Record<string, ResourceState> = {};
  for (const [id, r] of Object.entries(state.resources)) resources[id] = redactResourceState(r);
  return {
    ...state,
    resources,
    outputs: redactSecrets(state.outputs),
    ...(state.pendingIntents ? { pendingIntents: state.pendingIntents.map(redactIntent) } : {}),
    ...(state.deposed ? { deposed: state.deposed.map((d) => redactResourceState(d)) } : {}),
  };
}

/** True when a stack's record holds a registered secret in clear (written before cdkd masked them). */
export function holdsSecretInClear(state: StackState): boolean {
  if (!hasSecrets()) return false;
  const records = [...Object.values(state.resources), ...(state.deposed ?? [])];
  const parts: unknown[] = [
    state.outputs,
    ...records.flatMap((r) => [r.properties, r.observedProperties, r.attributes, r.metadata]),
    ...(state.pendingIntents ?? []).flatMap((i) => [i.properties, i.previousProperties]),
  ];
  return parts.some((p) => p !== undefined && redactSecrets(p) !== p);
}

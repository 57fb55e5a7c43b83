/**
 * Dynamic references inside template strings: `{{resolve:ssm:name}}`,
 * `{{resolve:ssm:name:version}}`, `{{resolve:ssm-secure:name[:version]}}` and
 * `{{resolve:secretsmanager:id:SecretString:json-key:version-stage:version-id}}`,
 * read through the injected SSM / Secrets Manager functions.
 */
import { ValidationError } from '../util/errors';
import { isPlainData } from '../util/objects';
import { registerSecret } from './redaction';
import type { SecretReader, SsmParameterReader } from './environment';

const DYNAMIC_REFERENCE_SOURCE = '\\{\\{resolve:([^:}]*):([^}]*)\\}\\}';

/** A fresh regex each time: a shared global regex carries `lastIndex` between calls. */
function pattern(): RegExp {
  return new RegExp(DYNAMIC_REFERENCE_SOURCE, 'g');
}

export type DynamicReference =
  | { service: 'ssm' | 'ssm-secure'; text: string; name: string; version?: string }
  | {
      service: 'secretsmanager';
      text: string;
      secretId: string;
      jsonKey?: string;
      versionStage?: string;
      versionId?: string;
    };

/** True when the string holds at least one `{{resolve:...}}`. */
export function hasDynamicReference(text: string): boolean {
  return pattern().test(text);
}

function invalid(text: string, why: string): ValidationError {
  return new ValidationError(`Invalid dynamic reference ${text}: ${why}`, {
    code: 'INVALID_DYNAMIC_REFERENCE',
    remedy:
      'Write {{resolve:ssm:name[:version]}}, {{resolve:ssm-secure:name[:version]}} or ' +
      '{{resolve:secretsmanager:secret-id[:SecretString[:json-key[:version-stage[:version-id]]]]}}.',
  });
}

/** Parses one `{{resolve:service:body}}`. */
export function parseDynamicReference(text: string, service: string, body: string): DynamicReference {
  if (service === 'ssm' || service === 'ssm-secure') {
    // A parameter ARN contains colons; a trailing all-digit segment is a version.
    const m = /^(.+?)(?::(\d+))?$/.exec(body);
    if (!m || m[1] === '') throw invalid(text, 'the parameter name is missing');
    return { service, text, name: m[1], ...(m[2] ? { version: m[2] } : {}) };
  }
  if (service === 'secretsmanager') {
    const parts = body.split(':');
    // A secret ARN is arn:partition:secretsmanager:region:account:secret:name (7 parts).
    const idParts = parts[0] === 'arn' ? 7 : 1;
    if (parts.length < idParts) throw invalid(text, 'the secret ARN is incomplete');
    const secretId = parts.slice(0, idParts).join(':');
    const [secretString, jsonKey, versionStage, versionId, ...extra] = parts.slice(idParts);
    if (secretId === '') throw invalid(text, 'the secret id is missing');
    if (extra.length > 0) throw invalid(text, 'too many segments');
    if (secretString && secretString !== 'SecretString')
      throw invalid(text, `the second segment must be SecretString, not ${secretString}`);
    if (versionStage && versionId) throw invalid(text, 'give a version stage or a version id, not both');
    return {
      service,
      text,
      secretId,
      ...(jsonKey ? { jsonKey } : {}),
      ...(versionStage ? { versionStage } : {}),
      ...(versionId ? { versionId } : {}),
    };
  }
  throw invalid(
    text,
    `unknown service ${JSON.stringify(service)} (cdkd supports ssm, ssm-secure and secretsmanager)`,
  );
}

/** Every dynamic reference in a string, in order. */
export function findDynamicReferences(text: string): DynamicReference[] {
  return [...text.matchAll(pattern())].map((m) => parseDynamicReference(m[0], m[1], m[2]));
}

export interface DynamicReferenceReaders {
  ssmParameter?: SsmParameterReader;
  secretValue?: SecretReader;
  /** Told about every resolved secret (ssm-secure, secretsmanager), so it can be redacted before anything is stored. */
  onSecret?: (reference: string, value: string) => void;
}

/** Reads one reference's value. */
export async function readDynamicReference(
  ref: DynamicReference,
  readers: DynamicReferenceReaders,
): Promise<string> {
  if (ref.service === 'secretsmanager') return readSecret(ref, readers);
  const read = readers.ssmParameter;
  if (!read) throw missingReader(ref.text, 'SSM');
  const options = {
    ...(ref.version ? { version: ref.version } : {}),
    ...(ref.service === 'ssm-secure' ? { withDecryption: true } : {}),
  };
  const value = await wrap(ref.text, () => read(ref.name, options));
  if (ref.service === 'ssm-secure') noteSecret(ref.text, value, readers);
  return value;
}

async function readSecret(
  ref: Extract<DynamicReference, { service: 'secretsmanager' }>,
  readers: DynamicReferenceReaders,
): Promise<string> {
  if (!readers.secretValue) throw missingReader(ref.text, 'Secrets Manager');
  const secretString = await wrap(ref.text, () =>
    readers.secretValue!({
      secretId: ref.secretId,
      ...(ref.versionStage ? { versionStage: ref.versionStage } : {}),
      ...(ref.versionId ? { versionId: ref.versionId } : {}),
    }),
  );
  let value = secretString;
  if (ref.jsonKey !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(secretString);
    } catch {
      throw new ValidationError(
        `Dynamic reference ${ref.text} names JSON key ${ref.jsonKey}, but the secret's value is not a JSON object.`,
      );
    }
    const field =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as Record<string, unknown>)[ref.jsonKey]
        : undefined;
    if (field === undefined)
      throw new ValidationError(`Dynamic reference ${ref.text}: the secret has no JSON key ${ref.jsonKey}.`);
    value = typeof field === 'string' ? field : JSON.stringify(field);
  }
  noteSecret(ref.text, value, readers);
  return value;
}

/** Every resolved secret is registered for redaction, then the caller's hook is told. */
function noteSecret(reference: string, value: string, readers: DynamicReferenceReaders): void {
  registerSecret(value);
  readers.onSecret?.(reference, value);
}

/** True for a reference to a secret (`ssm-secure`, `secretsmanager`): state keeps those as written. */
export function isSecretReference(ref: DynamicReference): boolean {
  return ref.service !== 'ssm';
}

/**
 * Replaces the `{{resolve:...}}` references in `text` with their values; with
 * `only`, just the references it accepts (the others stay as written).
 */
export async function resolveDynamicReferences(
  text: string,
  readers: DynamicReferenceReaders,
  only?: (ref: DynamicReference) => boolean,
  read: (ref: DynamicReference, readers: DynamicReferenceReaders) => Promise<string> = readDynamicReference,
): Promise<string> {
  const refs = findDynamicReferences(text);
  if (refs.length === 0) return text;
  const values = await Promise.all(refs.map((r) => (only && !only(r) ? r.text : read(r, readers))));
  let i = 0;
  return text.replace(pattern(), () => values[i++]);
}

/** {@link resolveDynamicReferences} over every string inside a resolved value (objects and lists are copied). */
export async function resolveDynamicReferencesIn(
  value: unknown,
  readers: DynamicReferenceReaders,
  only?: (ref: DynamicReference) => boolean,
  read?: (ref: DynamicReference, readers: DynamicReferenceReaders) => Promise<string>,
): Promise<unknown> {
  if (typeof value === 'string')
    return hasDynamicReference(value) ? resolveDynamicReferences(value, readers, only, read) : value;
  if (Array.isArray(value))
    return Promise.all(value.map((v) => resolveDynamicReferencesIn(v, readers, only, read)));
  if (isPlainData(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = await resolveDynamicReferencesIn(v, readers, only, read);
    return out;
  }
  return value;
}

/** `value` with every secret reference (ssm-secure, secretsmanager) replaced by `mask`; nothing is read. */
export async function maskSecretReferencesIn(value: unknown, mask: string): Promise<unknown> {
  return resolveDynamicReferencesIn(value, {}, isSecretReference, async () => mask);
}

function missingReader(text: string, service: string): ValidationError {
  return new ValidationError(
    `Dynamic reference ${text} cannot be resolved: no ${service} reader is available.`,
    {
      code: 'INVALID_DYNAMIC_REFERENCE',
      remedy: 'This is a cdkd bug: the engine must provide the reader for this service.',
    },
  );
}

async function wrap(text: string, read: () => Promise<string>): Promise<string> {
  try {
    return await read();
  } catch (cause) {
    throw new ValidationError(
      `Dynamic reference ${text} could not be resolved: ${cause instanceof Error ? cause.message : String(cause)}`,
      {
        code: 'INVALID_DYNAMIC_REFERENCE',
        remedy:
          'Check that the parameter or secret exists in this account and region and that you may read it.',
        cause,
      },
    );
  }
}

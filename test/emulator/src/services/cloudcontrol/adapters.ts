/**
 * Where Cloud Control resources live. Buckets, queues, parameters and bucket
 * policies live in their service's own store (so S3/SQS/SSM see what Cloud
 * Control made, and the reverse); every other type is a generic record.
 */
import { AwsError } from '../../core/errors';
import { upperAlnum, uuid } from '../../core/ids';
import { applyBucketProperties, bucketProperties } from '../s3/resource';
import type { S3Store } from '../s3/store';
import { attributesFromProperties, queueProperties, tagsFromProperties } from '../sqs/resource';
import { parseQueueUrl, queueUrl, type Queue, type SqsStore } from '../sqs/store';
import { parameterProperties } from '../ssm/resource';
import type { ParameterType, PutParameterInput, SsmStore } from '../ssm/store';
import { generatePassword, type Secret, type SecretsStore } from '../secretsmanager/store';
import { completeModel, generatedName, identifierOf, type Scope } from './generate';
import { pointerPath, type ResourceSchema } from './schemas';

/** A failure as a resource handler reports it: a handler error code and a message. */
export class HandlerError extends Error {
  constructor(
    /** `AlreadyExists`, `NotFound`, `InvalidRequest`, `NotUpdatable`, `GeneralServiceException`, ... */
    readonly errorCode: string,
    message: string,
  ) {
    super(message);
  }
}

export interface StoredResource {
  identifier: string;
  /** Every property, read-only ones included. */
  model: Record<string, unknown>;
}

export interface ResourceAdapter {
  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource;
  read(scope: Scope, schema: ResourceSchema, identifier: string): StoredResource | undefined;
  /** `desired` is the full new model (writable properties). */
  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource;
  delete(scope: Scope, schema: ResourceSchema, identifier: string): void;
  list(scope: Scope, schema: ResourceSchema): StoredResource[];
}

export function alreadyExists(typeName: string, identifier: string): HandlerError {
  return new HandlerError(
    'AlreadyExists',
    `Resource of type '${typeName}' with identifier '${identifier}' already exists.`,
  );
}

export function notFound(typeName: string, identifier: string): HandlerError {
  return new HandlerError(
    'NotFound',
    `Resource of type '${typeName}' with identifier '${identifier}' was not found.`,
  );
}

/** A service error as handlers surface it ("<message> (Service: Sqs, Status Code: 400, Request ID: ...)"). */
function serviceFailure(err: unknown, service: string): HandlerError {
  if (!(err instanceof AwsError)) throw err;
  const code = /InvalidAttribute|InvalidParameter|Validation|MalformedPolicy|InvalidBucketName/.test(err.code)
    ? 'InvalidRequest'
    : 'GeneralServiceException';
  return new HandlerError(
    code,
    `${err.message} (Service: ${service}, Status Code: ${err.status}, Request ID: ${uuid()})`,
  );
}

/** Top-level writable properties (read-only ones removed). */
function writable(schema: ResourceSchema, model: Record<string, unknown>): Record<string, unknown> {
  const readOnly = new Set(
    (schema.readOnlyProperties ?? [])
      .map((p) => pointerPath(p))
      .filter((s) => s.length === 1)
      .map((s) => s[0]!),
  );
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(model)) if (!readOnly.has(k)) out[k] = v;
  return out;
}

// ------------------------------------------------------------------ generic

export interface GenericRecord {
  account: string;
  region: string;
  type: string;
  identifier: string;
  model: Record<string, unknown>;
}

/** Generic records of every type without a service of its own. */
export class GenericStore {
  readonly records = new Map<string, GenericRecord>();

  static key(account: string, region: string, type: string, identifier: string): string {
    return `${account}|${region}|${type}|${identifier}`;
  }

  clear(): void {
    this.records.clear();
  }
}

export class GenericAdapter implements ResourceAdapter {
  constructor(private readonly store: GenericStore) {}

  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const model = completeModel(schema, desired, scope);
    const identifier = identifierOf(schema, model);
    if (!identifier)
      throw new HandlerError(
        'InvalidRequest',
        `Model validation failed (#: primary identifier ${schema.primaryIdentifier.join(', ')} could not be determined)`,
      );
    const key = GenericStore.key(scope.account, scope.region, schema.typeName, identifier);
    if (this.store.records.has(key)) throw alreadyExists(schema.typeName, identifier);
    this.store.records.set(key, {
      account: scope.account,
      region: scope.region,
      type: schema.typeName,
      identifier,
      model,
    });
    return { identifier, model };
  }

  read(scope: Scope, schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const record = this.store.records.get(
      GenericStore.key(scope.account, scope.region, schema.typeName, identifier),
    );
    return record ? { identifier, model: record.model } : undefined;
  }

  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const record = this.store.records.get(
      GenericStore.key(scope.account, scope.region, schema.typeName, identifier),
    );
    if (!record) throw notFound(schema.typeName, identifier);
    // Read-only attributes keep the values generated at creation.
    const writableNow = writable(schema, record.model);
    const generated = Object.fromEntries(Object.entries(record.model).filter(([k]) => !(k in writableNow)));
    record.model = completeModel(schema, { ...desired, ...generated }, scope);
    return { identifier, model: record.model };
  }

  delete(scope: Scope, schema: ResourceSchema, identifier: string): void {
    if (
      !this.store.records.delete(GenericStore.key(scope.account, scope.region, schema.typeName, identifier))
    )
      throw notFound(schema.typeName, identifier);
  }

  list(scope: Scope, schema: ResourceSchema): StoredResource[] {
    return [...this.store.records.values()]
      .filter((r) => r.account === scope.account && r.region === scope.region && r.type === schema.typeName)
      .map((r) => ({ identifier: r.identifier, model: r.model }));
  }
}

// ---------------------------------------------------------------------- S3

export class BucketAdapter implements ResourceAdapter {
  constructor(private readonly s3: S3Store) {}

  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name =
      typeof desired.BucketName === 'string' ? desired.BucketName : `bucket-${upperAlnum(12).toLowerCase()}`;
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(name) || name.includes('..')) {
      throw new HandlerError(
        'InvalidRequest',
        `Bucket name should not contain uppercase characters or be shorter than 3 or longer than 63 characters (Bucket: ${name})`,
      );
    }
    const existing = this.s3.buckets.get(name);
    if (existing) {
      if (existing.account === scope.account) throw alreadyExists(schema.typeName, name);
      throw new HandlerError(
        'AlreadyExists',
        `${name} already exists in another account (Service: S3, Status Code: 409, Error Code: BucketAlreadyExists)`,
      );
    }
    const bucket = this.s3.createBucket(name, scope.account, scope.region);
    applyBucketProperties(bucket, writable(schema, desired));
    return { identifier: name, model: bucketProperties(bucket) };
  }

  private bucket(scope: Scope, name: string) {
    const bucket = this.s3.buckets.get(name);
    return bucket && bucket.account === scope.account && bucket.region === scope.region ? bucket : undefined;
  }

  read(scope: Scope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const bucket = this.bucket(scope, identifier);
    return bucket ? { identifier, model: bucketProperties(bucket) } : undefined;
  }

  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const bucket = this.bucket(scope, identifier);
    if (!bucket) throw notFound(schema.typeName, identifier);
    const props = writable(schema, desired);
    if (!('Tags' in props)) bucket.tags = undefined;
    if (!('VersioningConfiguration' in props) && bucket.versioning) bucket.versioning = 'Suspended';
    applyBucketProperties(bucket, props);
    return { identifier, model: bucketProperties(bucket) };
  }

  delete(scope: Scope, schema: ResourceSchema, identifier: string): void {
    const bucket = this.bucket(scope, identifier);
    if (!bucket) throw notFound(schema.typeName, identifier);
    if (bucket.objects.size) {
      throw new HandlerError(
        'GeneralServiceException',
        `The bucket you tried to delete is not empty (Service: S3, Status Code: 409, Request ID: ${uuid()})`,
      );
    }
    this.s3.buckets.delete(identifier);
  }

  list(scope: Scope): StoredResource[] {
    return [...this.s3.buckets.values()]
      .filter((b) => b.account === scope.account && b.region === scope.region)
      .map((b) => ({ identifier: b.name, model: bucketProperties(b) }));
  }
}

/** A policy document as S3 keeps it: a template's string as it is, an object as JSON. */
function policyText(document: unknown): string {
  return typeof document === 'string' ? document : JSON.stringify(document);
}

export class BucketPolicyAdapter implements ResourceAdapter {
  constructor(private readonly s3: S3Store) {}

  private bucket(scope: Scope, schema: ResourceSchema, name: string) {
    const bucket = this.s3.buckets.get(name);
    if (!bucket || bucket.account !== scope.account) throw notFound(schema.typeName, name);
    return bucket;
  }

  private model(name: string, policy: string): StoredResource {
    return { identifier: name, model: { Bucket: name, PolicyDocument: JSON.parse(policy) as unknown } };
  }

  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = String(desired.Bucket);
    const bucket = this.s3.buckets.get(name);
    if (!bucket || bucket.account !== scope.account) {
      throw new HandlerError(
        'NotFound',
        `The specified bucket does not exist (Service: S3, Status Code: 404, Request ID: ${uuid()})`,
      );
    }
    if (bucket.policy) throw alreadyExists(schema.typeName, name);
    bucket.policy = policyText(desired.PolicyDocument);
    return this.model(name, bucket.policy);
  }

  read(scope: Scope, schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const bucket = this.s3.buckets.get(identifier);
    if (!bucket || bucket.account !== scope.account || !bucket.policy) return undefined;
    void schema;
    return this.model(identifier, bucket.policy);
  }

  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const bucket = this.bucket(scope, schema, identifier);
    if (!bucket.policy) throw notFound(schema.typeName, identifier);
    bucket.policy = policyText(desired.PolicyDocument);
    return this.model(identifier, bucket.policy);
  }

  delete(scope: Scope, schema: ResourceSchema, identifier: string): void {
    const bucket = this.bucket(scope, schema, identifier);
    if (!bucket.policy) throw notFound(schema.typeName, identifier);
    bucket.policy = undefined;
  }

  list(scope: Scope): StoredResource[] {
    return [...this.s3.buckets.values()]
      .filter((b) => b.account === scope.account && b.region === scope.region && b.policy)
      .map((b) => this.model(b.name, b.policy!));
  }
}

// --------------------------------------------------------------------- SQS

/** A queue as Cloud Control names it: by its URL. */
function queueResource(scope: Scope, queue: Queue): StoredResource {
  return { identifier: queueUrl(scope.baseUrl, queue), model: queueProperties(queue, scope.baseUrl) };
}

export class QueueAdapter implements ResourceAdapter {
  constructor(private readonly sqs: SqsStore) {}

  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const fifo = desired.FifoQueue === true;
    const name =
      typeof desired.QueueName === 'string'
        ? desired.QueueName
        : `Queue-${upperAlnum(12)}${fifo ? '.fifo' : ''}`;
    if (this.sqs.get(scope.account, scope.region, name))
      throw alreadyExists(schema.typeName, `${scope.baseUrl}/${scope.account}/${name}`);
    let queue;
    try {
      queue = this.sqs.create(
        scope.account,
        scope.region,
        name,
        attributesFromProperties(writable(schema, desired)),
        tagsFromProperties(desired),
      ).queue;
    } catch (err) {
      throw serviceFailure(err, 'Sqs');
    }
    return queueResource(scope, queue);
  }

  private queue(scope: Scope, identifier: string) {
    const parsed = parseQueueUrl(identifier);
    if (!parsed || parsed.account !== scope.account) return undefined;
    return this.sqs.get(parsed.account, scope.region, parsed.name);
  }

  read(scope: Scope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const queue = this.queue(scope, identifier);
    return queue ? queueResource(scope, queue) : undefined;
  }

  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const queue = this.queue(scope, identifier);
    if (!queue) throw notFound(schema.typeName, identifier);
    const attributes = attributesFromProperties(writable(schema, desired));
    delete attributes.FifoQueue;
    // Attributes the new model leaves out go back to their defaults, as the handler does.
    const resets: Record<string, string> = {
      DelaySeconds: '0',
      MaximumMessageSize: '262144',
      MessageRetentionPeriod: '345600',
      ReceiveMessageWaitTimeSeconds: '0',
      VisibilityTimeout: '30',
    };
    for (const [name, value] of Object.entries(resets)) attributes[name] ??= value;
    if (queue.attributes.RedrivePolicy && !('RedrivePolicy' in attributes)) attributes.RedrivePolicy = '';
    try {
      this.sqs.setAttributes(queue, attributes);
    } catch (err) {
      throw serviceFailure(err, 'Sqs');
    }
    queue.tags = tagsFromProperties(desired);
    return queueResource(scope, queue);
  }

  delete(scope: Scope, schema: ResourceSchema, identifier: string): void {
    const queue = this.queue(scope, identifier);
    if (!queue) throw notFound(schema.typeName, identifier);
    this.sqs.delete(queue);
  }

  list(scope: Scope): StoredResource[] {
    return [...this.sqs.queues.values()]
      .filter((q) => q.account === scope.account && q.region === scope.region)
      .map((q) => queueResource(scope, q));
  }
}

// --------------------------------------------------------------------- SSM

export class ParameterAdapter implements ResourceAdapter {
  constructor(private readonly ssm: SsmStore) {}

  /** The PutParameter input for a template's properties, put by the account's root as the handler does. */
  private putInput(scope: Scope, name: string, desired: Record<string, unknown>): PutParameterInput {
    return {
      name,
      value: String(desired.Value ?? ''),
      type: desired.Type as ParameterType,
      description: desired.Description as string | undefined,
      allowedPattern: desired.AllowedPattern as string | undefined,
      tier: desired.Tier as string | undefined,
      dataType: desired.DataType as string | undefined,
      user: `arn:aws:iam::${scope.account}:root`,
    };
  }

  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = typeof desired.Name === 'string' ? desired.Name : `CFN-Parameter-${upperAlnum(12)}`;
    if (this.ssm.get(scope.account, scope.region, name)) throw alreadyExists(schema.typeName, name);
    if (desired.Type === 'SecureString') {
      throw new HandlerError(
        'InvalidRequest',
        'SecureString parameters are not supported by AWS::SSM::Parameter; use String or StringList.',
      );
    }
    try {
      const parameter = this.ssm.put(scope.account, scope.region, {
        ...this.putInput(scope, name, desired),
        tags: (desired.Tags as Record<string, string> | undefined) ?? {},
      });
      return { identifier: parameter.name, model: parameterProperties(parameter) };
    } catch (err) {
      throw serviceFailure(err, 'Ssm');
    }
  }

  read(scope: Scope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const parameter = this.ssm.get(scope.account, scope.region, identifier);
    return parameter ? { identifier, model: parameterProperties(parameter) } : undefined;
  }

  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const parameter = this.ssm.get(scope.account, scope.region, identifier);
    if (!parameter) throw notFound(schema.typeName, identifier);
    try {
      this.ssm.put(scope.account, scope.region, {
        ...this.putInput(scope, identifier, desired),
        overwrite: true,
      });
    } catch (err) {
      throw serviceFailure(err, 'Ssm');
    }
    parameter.tags = { ...((desired.Tags as Record<string, string> | undefined) ?? {}) };
    return { identifier, model: parameterProperties(parameter) };
  }

  delete(scope: Scope, schema: ResourceSchema, identifier: string): void {
    if (!this.ssm.delete(scope.account, scope.region, identifier))
      throw notFound(schema.typeName, identifier);
  }

  list(scope: Scope): StoredResource[] {
    return this.ssm
      .list(scope.account, scope.region)
      .map((p) => ({ identifier: p.name, model: parameterProperties(p) }));
  }
}

// ---------------------------------------------------------- Secrets Manager

/** A secret's CloudFormation properties (SecretString and GenerateSecretString are write-only). */
export function secretProperties(secret: Secret): Record<string, unknown> {
  const props: Record<string, unknown> = { Id: secret.arn, Name: secret.name };
  if (secret.description !== undefined) props.Description = secret.description;
  if (secret.kmsKeyId !== undefined) props.KmsKeyId = secret.kmsKeyId;
  if (secret.tags.length) props.Tags = secret.tags.map((t) => ({ ...t }));
  return props;
}

/** The secret value a template asks for: SecretString, or one generated from GenerateSecretString. */
function secretValue(desired: Record<string, unknown>): string | undefined {
  const generate = desired.GenerateSecretString as Record<string, unknown> | undefined;
  if (typeof desired.SecretString === 'string') {
    if (generate)
      throw new HandlerError(
        'InvalidRequest',
        "You can't specify both SecretString and GenerateSecretString.",
      );
    return desired.SecretString;
  }
  if (!generate) return undefined;
  const password = generatePassword(generate);
  if (typeof generate.SecretStringTemplate !== 'string') return password;
  let template: Record<string, unknown>;
  try {
    template = JSON.parse(generate.SecretStringTemplate) as Record<string, unknown>;
  } catch {
    throw new HandlerError('InvalidRequest', 'SecretStringTemplate must be a valid JSON object.');
  }
  if (typeof generate.GenerateStringKey !== 'string') {
    throw new HandlerError('InvalidRequest', 'GenerateStringKey is required with SecretStringTemplate.');
  }
  return JSON.stringify({ ...template, [generate.GenerateStringKey]: password });
}

export class SecretAdapter implements ResourceAdapter {
  constructor(private readonly secrets: SecretsStore) {}

  create(scope: Scope, schema: ResourceSchema, desired: Record<string, unknown>): StoredResource {
    const name = typeof desired.Name === 'string' ? desired.Name : generatedName(schema.typeName);
    if (this.secrets.find(scope.account, scope.region, name)) throw alreadyExists(schema.typeName, name);
    try {
      const secret = this.secrets.create(scope.account, scope.region, {
        name,
        description: desired.Description as string | undefined,
        kmsKeyId: desired.KmsKeyId as string | undefined,
        secretString: secretValue(desired),
        tags: desired.Tags as Array<{ Key: string; Value: string }> | undefined,
      });
      return { identifier: secret.arn, model: secretProperties(secret) };
    } catch (err) {
      if (err instanceof HandlerError) throw err;
      throw serviceFailure(err, 'SecretsManager');
    }
  }

  private secret(scope: Scope, identifier: string): Secret | undefined {
    const secret = this.secrets.find(scope.account, scope.region, identifier);
    return secret && !secret.deletedDate ? secret : undefined;
  }

  read(scope: Scope, _schema: ResourceSchema, identifier: string): StoredResource | undefined {
    const secret = this.secret(scope, identifier);
    return secret ? { identifier: secret.arn, model: secretProperties(secret) } : undefined;
  }

  update(
    scope: Scope,
    schema: ResourceSchema,
    identifier: string,
    desired: Record<string, unknown>,
  ): StoredResource {
    const secret = this.secret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    secret.description = desired.Description as string | undefined;
    secret.kmsKeyId = desired.KmsKeyId as string | undefined;
    secret.tags = ((desired.Tags as Array<{ Key: string; Value: string }> | undefined) ?? []).map((t) => ({
      ...t,
    }));
    const value = secretValue(desired);
    if (value !== undefined) this.secrets.putValue(secret, { secretString: value });
    secret.lastChanged = new Date();
    return { identifier: secret.arn, model: secretProperties(secret) };
  }

  delete(scope: Scope, schema: ResourceSchema, identifier: string): void {
    const secret = this.secret(scope, identifier);
    if (!secret) throw notFound(schema.typeName, identifier);
    this.secrets.remove(secret);
  }

  list(scope: Scope): StoredResource[] {
    return [...this.secrets.secrets.values()]
      .filter((s) => s.account === scope.account && s.region === scope.region && !s.deletedDate)
      .map((s) => ({ identifier: s.arn, model: secretProperties(s) }));
  }
}

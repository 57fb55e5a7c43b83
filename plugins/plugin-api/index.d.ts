/**
 * `@cdkd/plugin-api`: the public, versioned contract between cdkd and provider packs.
 *
 * A provider pack is an oclif plugin whose `package.json` declares a hook for
 * the event `cdkd:providers`. The hook returns a {@link ProviderPack}. Everything
 * a provider needs at run time arrives through {@link ProviderContext}, so a
 * pack depends on this package for types only (a `devDependency`) and on
 * nothing of cdkd at run time — a pack written in plain JavaScript against the
 * same shapes loads just as well.
 *
 * This package has no runtime code and no dependencies: the hook types are
 * stated structurally instead of through `@oclif/core`. Its major version is the
 * plugin API version ({@link PluginApiVersion}); a minor version adds optional
 * members only, so a pack built against 1.x loads in every cdkd that speaks 1.
 *
 * @packageDocumentation
 */

/** The plugin API version this package describes; a pack puts it in {@link ProviderPack.apiVersion}. */
export type PluginApiVersion = 1;

// ---------------------------------------------------------------------------
// Provider results

/** What a successful `create` returns. */
export interface ResourceCreateResult {
  /** The id the provider needs to address the resource again (name, ARN, URL, or `a|b` composite). */
  physicalId: string;
  /** Values `Fn::GetAtt` resolves to, by attribute name. Omit a key rather than storing `''`. */
  attributes?: Record<string, unknown>;
  /**
   * The complete property bag actually sent to AWS, when the provider deliberately
   * narrowed what the template asked for. Recorded in state instead of the desired
   * properties. Rarely needed; leave absent to record the desired properties.
   */
  effectiveProperties?: Record<string, unknown>;
  /** Every string value in `attributes` is sensitive: state stores `***` in its place. */
  noEchoAttributes?: boolean;
  /**
   * Only these attribute names are sensitive. Names that are sensitive in every resource of
   * the type belong in {@link ProviderRegistration.secretAttributes} as well.
   */
  noEchoAttributeNames?: readonly string[];
}

/** What a successful `update` returns. */
export interface ResourceUpdateResult {
  /** Physical id after the update (may differ if the provider replaced the resource itself). */
  physicalId: string;
  /**
   * True when the provider replaced the resource rather than updating it in place. A
   * rollback of the deploy reverses what this says: `false` is updated back in place even
   * when `physicalId` changed (a policy resource whose id follows its first target), `true`
   * is reversed as a replacement even under an unchanged `physicalId`.
   */
  wasReplaced: boolean;
  /**
   * The update made a new resource in place of the old one (its `physicalId` differs) and the
   * old one still exists: cdkd deletes it (the state record's physical id and properties) once
   * the deploy has finished, as CloudFormation's cleanup phase does for a custom resource that
   * answers an Update with a new PhysicalResourceId. Ignored by cdkd versions before it was added.
   */
  deletePrevious?: boolean;
  /** Attributes after the update. */
  attributes?: Record<string, unknown>;
  /** See {@link ResourceCreateResult.effectiveProperties}. */
  effectiveProperties?: Record<string, unknown>;
  /** See {@link ResourceCreateResult.noEchoAttributes}. */
  noEchoAttributes?: boolean;
  /** See {@link ResourceCreateResult.noEchoAttributeNames}. */
  noEchoAttributeNames?: readonly string[];
}

/**
 * Returned by `delete` when the provider made NO AWS call and the resource may
 * still exist (it could not be addressed). The engine keeps the state record,
 * reports the skip and exits non-zero. Return nothing when the resource is gone.
 */
export interface ResourceDeleteResult {
  outcome: 'skipped';
  /** Why the delete was skipped; shown to the user. */
  reason: string;
}

// ---------------------------------------------------------------------------
// Call contexts

/**
 * Options of {@link CreateContext.generatePhysicalName}: the naming rules of the
 * type's name property, so the generated name is valid as it is.
 */
export interface PhysicalNameOptions {
  /** Longest name the type accepts, `suffix` included. */
  maxLength: number;
  /** Generate lower case only (S3 bucket names). Default false. */
  lowercase?: boolean;
  /**
   * Characters allowed besides ASCII letters and digits; everything else in the
   * stack name and logical id is dropped. Default `-`.
   */
  extraCharacters?: string;
  /** Appended verbatim after the generated part, e.g. `.fifo` for a FIFO queue. */
  suffix?: string;
}

/**
 * The ownership marker of a create: tags a provider attaches to the resource it
 * makes so that a later run, even in another process, can tell its own resource
 * from one that merely has the same name.
 */
export interface ResourceOwnership {
  /**
   * Tags to attach at create (keys `cdkd:stack-name`, `cdkd:logical-id`,
   * `cdkd:token`), merged with the template's own tags. An update must keep them.
   */
  readonly tags: Readonly<Record<string, string>>;
  /**
   * Classifies the tags read from an existing resource:
   * `same-intent` — made by this very create (an earlier attempt whose reply was lost): adopt it;
   * `same-resource` — made by cdkd for this stack and logical id, but by another create (a replaced
   * original, say): do not adopt, throw {@link ProviderErrors.ResourceExistsError};
   * `foreign` — not made by cdkd for this resource: never adopt, throw `ResourceExistsError`.
   * Accepts a tag map or the `[{ Key, Value }]` list most AWS APIs return.
   */
  classify(
    tags: Readonly<Record<string, string>> | ReadonlyArray<{ Key?: string; Value?: string }> | undefined,
  ): 'same-intent' | 'same-resource' | 'foreign';
}

/**
 * What identifies the resource a create made beyond its physical id: values AWS
 * assigns that no later resource of the same name gets (a DynamoDB table's
 * `TableId`, an S3 bucket's region and `CreationDate`, a stream's ARN and
 * creation time, an RDS resource id). Flat string values, compared key by key
 * for exact equality; what the keys are is the provider's own business. Since 1.3.
 */
export type ResourceIdentity = Readonly<Record<string, string>>;

/** Context of {@link ResourceProvider.readIdentity}. Since 1.3. */
export interface IdentityReadContext {
  /**
   * The region the resource was recorded in. Confirm the client's region equals it
   * before answering "gone" (see {@link ProviderContext.assertRegionMatch}).
   */
  expectedRegion?: string;
  /** See {@link CreateContext.signal}. */
  signal?: AbortSignal;
}

/** Context of a `create` call. */
export interface CreateContext {
  /** The stack the resource belongs to. */
  stackName: string;
  /** The region the resource is being created in. */
  region: string;
  /**
   * The token of this create's intent. cdkd records the intent durably before the call and
   * derives the token from it, so the token is the same for every retry of this create in
   * this process AND in a later process that settles an interrupted deploy. Pass it as the
   * API's `ClientToken` / idempotency token, or derive deterministic names from it
   * ({@link generatePhysicalName}). A create called again with the same token must return
   * the same resource, or throw {@link ProviderErrors.ResourceExistsError}; never a second
   * resource. A new intent (a replacement, a re-create after a delete) gets a new token.
   * At most 64 characters of `[A-Za-z0-9-]`.
   */
  idempotencyToken: string;
  /**
   * The attempt of this create (0 for the first). cdkd retries a create only after a
   * failure the provider marked `retryable`, and records each attempt durably before it is
   * sent. A provider whose API settles a request under its token for good (Cloud Control
   * answers a reused `ClientToken` with the same failed request) derives a per-attempt request
   * token from `idempotencyToken` and `attempt`; names and ownership stay tied to the token
   * alone. Absent in cdkd versions before it was added (treat as 0).
   */
  attempt?: number;
  /**
   * True when an earlier send of this create may have taken effect without cdkd hearing of
   * it: cdkd is settling a create an interrupted run left in flight, or retrying one (then
   * {@link attempt} is above 0 as well). A provider whose create API takes no idempotency
   * token (KMS `CreateKey`, say) looks for the resource that send made — by its
   * {@link ownership} tags — before making one. Absent (false) on a first send, and in cdkd
   * versions before it was added (1.2): there, treat `attempt > 0` as in doubt. Since 1.2.
   */
  inDoubt?: boolean;
  /**
   * Aborted when the operation must stop: Ctrl-C, or the stack lock was lost. Pass it to
   * SDK calls (`client.send(command, { abortSignal })`) and to waiters. Absent in cdkd
   * versions before it was added.
   */
  signal?: AbortSignal;
  /**
   * A name for a resource whose template leaves its name property unset, in CloudFormation's
   * style (`<stack>-<logicalId>-<suffix>`, shortened to fit), where the suffix is derived from
   * {@link idempotencyToken}: the same intent always gets the same name, so a repeated create
   * finds the resource an earlier attempt made. Absent in cdkd versions before it was added.
   */
  generatePhysicalName?(options: PhysicalNameOptions): string;
  /** The ownership marker to attach and check. Absent in cdkd versions before it was added. */
  ownership?: ResourceOwnership;
}

/** Context of an `update` call. */
export interface UpdateContext {
  stackName?: string;
  /** The region the state record being updated belongs to. */
  expectedRegion?: string;
  /** See {@link CreateContext.signal}. */
  signal?: AbortSignal;
  /**
   * A token stable across retries and processes for this update intent (for APIs that take a
   * `ClientToken` on updates, such as Cloud Control's `UpdateResource`).
   */
  idempotencyToken?: string;
  /** See {@link CreateContext.attempt}. */
  attempt?: number;
}

/** Context of a `delete` call. */
export interface DeleteContext {
  stackName?: string;
  /**
   * The region recorded in state when the resource was created. A provider must
   * confirm its client's region equals it before treating `*NotFound` as "already deleted"
   * (see {@link ProviderContext.assertRegionMatch}).
   */
  expectedRegion?: string;
  /** See {@link CreateContext.signal}. */
  signal?: AbortSignal;
  /** A token stable across retries and processes for this delete intent. */
  idempotencyToken?: string;
  /** See {@link CreateContext.attempt}. */
  attempt?: number;
}

/** Input of `import`: adopt an existing AWS resource into cdkd state. */
export interface ResourceImportInput {
  logicalId: string;
  resourceType: string;
  stackName: string;
  region: string;
  /** The resource's properties in the template. */
  properties: Record<string, unknown>;
  /** The physical id the user named, if any. */
  knownPhysicalId?: string;
  /** The construct path from CDK metadata, if known. */
  cdkPath?: string;
}

/** Result of `import`: same shape as a create. */
export type ResourceImportResult = Pick<ResourceCreateResult, 'physicalId' | 'attributes'>;

// ---------------------------------------------------------------------------
// The provider

/**
 * Creates, updates and deletes resources of one or more CloudFormation types
 * through AWS APIs. Optional methods add live attribute reads, drift read-back
 * and import.
 */
export interface ResourceProvider {
  /**
   * Create the resource. Must be safe to call again with the same `context.idempotencyToken`,
   * from this process or another: return the resource the earlier call made, or throw
   * `ctx.errors.ResourceExistsError` when what exists is not provably this create's.
   */
  create(
    logicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: CreateContext,
  ): Promise<ResourceCreateResult>;

  /**
   * Update the resource in place. A property removed from the template must be
   * reset to its default (CloudFormation semantics), not left as it was.
   */
  update(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    previousProperties: Record<string, unknown>,
    context?: UpdateContext,
  ): Promise<ResourceUpdateResult>;

  /**
   * Delete the resource. Returning normally means it is gone (deleted now, or
   * already absent in the expected region). Return {@link ResourceDeleteResult}
   * when nothing was done and the resource may still exist.
   */
  delete(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
    context?: DeleteContext,
  ): Promise<void | ResourceDeleteResult>;

  /**
   * Read one `Fn::GetAtt` attribute live. Return `undefined` for an unknown
   * attribute or a missing resource; do not throw for those.
   */
  getAttribute?(physicalId: string, resourceType: string, attributeName: string): Promise<unknown>;

  /**
   * The resource's current properties in AWS (for drift detection), with every
   * user-controllable top-level property present. `undefined` when it does not exist.
   */
  readCurrentState?(
    physicalId: string,
    logicalId: string,
    resourceType: string,
    properties?: Record<string, unknown>,
  ): Promise<Record<string, unknown> | undefined>;

  /**
   * The identity ({@link ResourceIdentity}) of whatever resource answers to
   * `physicalId` now, in the same shape as the `createdIdentity` this provider
   * reports on a failed create; `undefined` when no such resource exists (in the
   * expected region). Throw when the read fails: cdkd then keeps its record and
   * asks again on the next run.
   *
   * cdkd calls it before a later command (a deploy's cleanup, `cdkd destroy`,
   * `cdkd rollback`) deletes what a failed create left behind
   * ({@link ProvisioningErrorOptions.createdPhysicalId}) of a type whose physical
   * id is a name another resource may take meanwhile: it deletes only when the
   * identity read matches the one recorded, drops its record when the resource is
   * gone, and otherwise leaves the resource alone with a warning. Without this
   * method (and unless the registration sets
   * {@link ProviderRegistration.physicalIdNeverReused}) such a leftover is never
   * deleted by a later command. Since 1.3.
   */
  readIdentity?(
    physicalId: string,
    resourceType: string,
    context: IdentityReadContext,
  ): Promise<ResourceIdentity | undefined>;

  /** Find an existing resource and adopt it. `null` when there is none. */
  import?(input: ResourceImportInput): Promise<ResourceImportResult | null>;

  /**
   * Take the final snapshot of a resource whose `DeletionPolicy` (or, for the
   * original of a replacement, `UpdateReplacePolicy`) is `Snapshot`. cdkd calls it
   * only for types whose registration sets {@link ProviderRegistration.canSnapshot},
   * right before {@link delete}, and deletes only after it returned; a throw stops
   * the delete and the resource stays in state. It may be called again for the same
   * resource (a re-run after an interrupt): name snapshots so a second call does not
   * fail on the first one's, e.g. from `context.idempotencyToken`. Since 1.2.
   */
  snapshot?(
    logicalId: string,
    physicalId: string,
    resourceType: string,
    properties: Record<string, unknown>,
    context: DeleteContext,
  ): Promise<ResourceSnapshotResult>;
}

/** Result of {@link ResourceProvider.snapshot}. Since 1.2. */
export interface ResourceSnapshotResult {
  /** The snapshot's id or ARN, reported to the user so they can find it. */
  snapshotId: string;
}

// ---------------------------------------------------------------------------
// What cdkd hands a provider

/** Logger handed to providers. Messages go to cdkd's output (stderr), debug only with `--verbose`. */
export interface ProviderLogger {
  debug(message: string, data?: unknown): void;
  info(message: string, data?: unknown): void;
  warn(message: string, data?: unknown): void;
  error(message: string, data?: unknown): void;
}

/** Any AWS SDK v3 client class, e.g. `SQSClient`. */
export type AwsClientConstructor<C> = new (config: Record<string, unknown>) => C;

/** Builds AWS SDK v3 clients configured by cdkd (region, credentials, retries, endpoint overrides). */
export interface ProviderClients {
  /**
   * The cached client of this class. Pass the client class from the pack's own
   * `@aws-sdk/client-*` dependency.
   */
  get<C>(ClientClass: AwsClientConstructor<C>, options?: { region?: string }): C;
}

/** Options of {@link ProviderContext.retry}. */
export interface ProviderRetryOptions {
  /** Total attempts including the first. Default 5. */
  maxAttempts?: number;
  /** First backoff delay in ms. Default 500. */
  baseDelayMs?: number;
  /** Largest backoff delay in ms. Default 20 000. */
  maxDelayMs?: number;
  /** Which errors are retried. Default: transient AWS errors (throttling, 5xx, network). */
  isRetryable?: (err: unknown) => boolean;
}

/** Context of an error about one resource. */
export interface ProviderErrorResource {
  logicalId?: string;
  resourceType?: string;
  physicalId?: string;
}

/** Options of a provisioning error. */
export interface ProvisioningErrorOptions {
  /** The underlying AWS error. */
  cause?: unknown;
  /** What the user should do. */
  remedy?: string;
  resource?: ProviderErrorResource;
  /**
   * Whether the engine may retry the operation. Default false. Set it only for outcomes the
   * AWS SDK does not retry by itself (a handler-level failure such as an eventually consistent
   * dependency not visible yet): the SDK already retries throttling, 5xx answers and lost
   * connections of every call, and cdkd does not add a second retry layer for those.
   */
  retryable?: boolean;
  /**
   * The create made this resource (its physical id) and then failed, e.g. a follow-up call
   * AWS rejected. cdkd records it so it is deleted, never left untracked. Ignored by cdkd
   * versions before it was added.
   */
  createdPhysicalId?: string;
  /**
   * With {@link createdPhysicalId}: the identity of what the create made (read from its
   * create call's reply, or right after it), so that a later command deletes it only while
   * the resource under that id is still this one (see {@link ResourceProvider.readIdentity}).
   * Omit it when it could not be read; cdkd then never deletes the leftover on a later
   * command of a type whose physical id is a name. Since 1.3; ignored before.
   */
  createdIdentity?: ResourceIdentity;
  /**
   * The operation may have taken effect (the provider cannot tell, e.g. it timed out waiting).
   * cdkd keeps the intent pending and the next run re-sends it with the same idempotency token.
   * Transport errors of the AWS SDK count as in doubt without this flag.
   */
  inDoubt?: boolean;
}

/** A provisioning error instance, as thrown by providers. */
export interface ProvisioningErrorInstance extends Error {
  readonly code: string;
  readonly remedy?: string;
  readonly resource: ProviderErrorResource;
  readonly retryable: boolean;
  /** See {@link ProvisioningErrorOptions.createdPhysicalId}. */
  readonly createdPhysicalId?: string;
  /** See {@link ProvisioningErrorOptions.createdIdentity}. */
  readonly createdIdentity?: ResourceIdentity;
  /** See {@link ProvisioningErrorOptions.inDoubt}. */
  readonly inDoubt?: boolean;
}

/** Error constructors and guards, shared with the core so it recognises what providers throw. */
export interface ProviderErrors {
  /** Throw for a failure the user must act on; name the AWS error and the remedy. */
  ProvisioningError: new (message: string, options?: ProvisioningErrorOptions) => ProvisioningErrorInstance;
  /** True for any cdkd error (checked by brand, not `instanceof`). */
  isCdkdError(err: unknown): boolean;
  /**
   * Throw from `create` when a resource with the requested name or identity exists and
   * {@link ResourceOwnership.classify} (or an equivalent check) does not show it was made by
   * this very create. The core never adopts it; it reports the collision with its remedy
   * (rename, delete the other resource, or import it) and, for a replacement whose fixed
   * name collides with the original, deletes the original first. Absent in cdkd versions
   * before it was added: fall back to `ProvisioningError`.
   */
  ResourceExistsError?: new (
    message: string,
    options?: ProvisioningErrorOptions,
  ) => ProvisioningErrorInstance;
}

/** Phase of a region check; only changes the wording of the refusal. */
export type RegionCheckPhase = 'not-found' | 'pre-delete' | 'pre-update';

/** Everything a provider gets from cdkd at run time. */
export interface ProviderContext {
  /** The region resources are deployed to. */
  readonly region: string;
  /** AWS clients configured by cdkd. */
  readonly clients: ProviderClients;
  readonly logger: ProviderLogger;
  readonly errors: ProviderErrors;
  /** The AWS account id of the caller (STS, fetched once). */
  accountId(): Promise<string>;
  /** The AWS partition (`aws`, `aws-cn`, ...). */
  readonly partition: string;
  /** Retries an operation on transient AWS errors with exponential backoff. */
  retry<T>(operation: (attempt: number) => Promise<T>, options?: ProviderRetryOptions): Promise<T>;
  /** True for throttling, 5xx, timeouts and network errors. */
  isTransientError(err: unknown): boolean;
  /**
   * Throws a provisioning error when `clientRegion` differs from `expectedRegion`.
   * A no-op when `expectedRegion` is undefined. Call before treating `*NotFound` as deleted.
   */
  assertRegionMatch(
    clientRegion: string,
    expectedRegion: string | undefined,
    resourceType: string,
    logicalId: string,
    physicalId: string,
    phase?: RegionCheckPhase,
  ): void;
}

// ---------------------------------------------------------------------------
// Registration

/**
 * The resource schema of a type outside AWS's CloudFormation catalogue (an
 * org-internal type such as `Acme::Billing::Account`), in the CloudFormation
 * registry schema format: a JSON Schema (draft-07) of the resource's
 * `Properties`, plus the registry's keywords. cdkd validates it, validates the
 * registration and every template against it, plans replacements from it and
 * resolves `Ref` / `Fn::GetAtt` with it; the type is provisioned only by the
 * pack that brings it (Cloud Control does not know it). Since 1.1.
 */
export interface ResourceTypeSchema {
  /** Equal to the registration's `resourceType`; three `::`-separated parts, not in the `AWS`, `Alexa` or `Custom` namespaces. */
  typeName: string;
  description?: string;
  /** Every property, writable and read-only. */
  properties: Record<string, unknown>;
  /** Reusable sub-schemas, referenced as `#/definitions/<Name>`. */
  definitions?: Record<string, unknown>;
  /** Properties a template must set. */
  required?: string[];
  /** Must be `false`: a template setting any other property is refused. */
  additionalProperties: boolean;
  /**
   * JSON pointers (`/properties/AccountName`) of the properties that identify a
   * resource; `Ref` returns them (joined with `|` when there are several).
   */
  primaryIdentifier: string[];
  /** Values the provider reports after create (its `Fn::GetAtt` attributes); a template must not set them. */
  readOnlyProperties?: string[];
  /** Changing one of these replaces the resource. */
  createOnlyProperties?: string[];
  /** Changing one of these may replace the resource. */
  conditionalCreateOnlyProperties?: string[];
  /** Properties the provider accepts but never reads back. */
  writeOnlyProperties?: string[];
  /** Other registry keywords (`handlers`, `tagging`, `sourceUrl`, ...) are accepted and not used. */
  [keyword: string]: unknown;
}

/** One resource type a pack provides. */
export interface ProviderRegistration {
  /**
   * CloudFormation type, e.g. `AWS::SQS::Queue`: one cdkd knows (its committed schemas,
   * generated from AWS's catalogue), or the `typeName` of {@link schema}.
   */
  resourceType: string;
  /**
   * Template properties the provider wires to AWS. A resource whose template sets a
   * property outside this list (and outside `unhandledByDesign`) goes to Cloud Control
   * (or, for a type with its own {@link schema}, is refused before anything changes).
   */
  handledProperties: string[];
  /**
   * Properties deliberately not wired, each with a one-line rationale. A resource setting one
   * stays with this provider, and the property is not sent to AWS.
   */
  unhandledByDesign?: Record<string, string>;
  /**
   * Properties this provider leaves to Cloud Control by design, each with a one-line rationale
   * (say, `"replication: not wired; Cloud Control applies it"`). A resource whose template sets
   * one is provisioned through Cloud Control, with the rationale as the route's reason (shown
   * by the provisioning summary, `cdkd diff` and `cdkd providers`), so nothing the template
   * asks for is dropped; `cdkd providers check` counts them as accounted for. A property may
   * be in only one of `handledProperties`, `unhandledByDesign` and this. Since 1.2; older cdkd
   * versions ignore it and route such a resource to Cloud Control all the same (there the
   * property is unaccounted for).
   */
  cloudControlByDesign?: Record<string, string>;
  /**
   * The schema of a type outside AWS's catalogue; leave absent for an AWS type.
   * See {@link ResourceTypeSchema}. Since 1.1; older cdkd versions refuse such a registration.
   */
  schema?: ResourceTypeSchema;
  /**
   * True when the physical id this provider returns is the type's Cloud Control
   * primary identifier (its `primaryIdentifier` values, joined with `|`), so that
   * Cloud Control and this provider address the same resource by the same id. Only
   * then does cdkd move an existing resource between them: a resource on Cloud
   * Control moves to this provider on its next change, and one of this provider's
   * resources moves to Cloud Control when its template sets a property the
   * provider does not handle. Default false: resources stay where they were made.
   * Since 1.1.
   */
  physicalIdIsPrimaryIdentifier?: boolean;
  /**
   * True when the provider can take the final snapshot of this type
   * ({@link ResourceProvider.snapshot}), so cdkd honours `DeletionPolicy: Snapshot`
   * and `UpdateReplacePolicy: Snapshot` by snapshotting before the delete. Default
   * false: cdkd refuses to delete such a resource (it is never deleted without its
   * snapshot). Since 1.2; older cdkd versions ignore it.
   */
  canSnapshot?: boolean;
  /**
   * True when a physical id of this type never names a resource other than the one
   * it was first given to, so what a failed create left behind needs no identity
   * proof before a later command deletes it: AWS generates the id and never reuses
   * it (a `vpc-` id, a KMS key id, an ARN with a random part), or the provider's
   * delete checks what it finds itself (a queue policy compared by content).
   * Default false: the id is treated as a name that something else may take once
   * the resource is gone, and a later command deletes such a leftover only when
   * {@link ResourceProvider.readIdentity} proves it is still the one made. Since 1.3;
   * older cdkd versions ignore it.
   */
  physicalIdNeverReused?: boolean;
  /**
   * Attribute names that hold a secret in EVERY resource of this type, such as an
   * `AWS::IAM::AccessKey`'s `SecretAccessKey`: the static form of
   * {@link ResourceCreateResult.noEchoAttributeNames}. cdkd masks these attributes as
   * `***` wherever it stores or prints them — whatever a result marks, whichever layer
   * provisioned the resource, and when a live `Fn::GetAtt` read returns one — and
   * `cdkd scrub` finds them in a state record an earlier cdkd wrote before the result
   * marked them (nothing in such a record says they are secret). Keep marking them
   * per result too: cdkd versions before 1.3 read only the result. Since 1.3; older
   * cdkd versions ignore it.
   */
  secretAttributes?: readonly string[];
  /** Called once per region with cdkd's run-time context. */
  createProvider(ctx: ProviderContext): ResourceProvider;
}

/** What a pack's `cdkd:providers` hook returns. */
export interface ProviderPack {
  /** The plugin API version the pack was written against: the major version of `@cdkd/plugin-api`. */
  apiVersion: number;
  /**
   * The pack's npm package name. cdkd refuses a pack whose name differs from the
   * package it is installed from, so a pack cannot stand in for another.
   */
  name: string;
  providers: ProviderRegistration[];
}

/** Options cdkd passes to the `cdkd:providers` hook. */
// A type alias (not an interface) so it satisfies oclif's `Record<string, unknown>` hook options.
export type ProvidersHookOptions = {
  /** Plugin API versions this cdkd accepts. */
  apiVersions: readonly number[];
  /** The cdkd version. */
  cdkdVersion: string;
};

/**
 * `this` inside a hook (oclif's hook context, stated structurally). A hook
 * returns its pack; it does not need `error` or `exit`.
 */
export interface ProvidersHookContext {
  debug(...args: unknown[]): void;
  log(message?: unknown, ...args: unknown[]): void;
  /** Shown by cdkd as a warning of the command that loaded the pack. */
  warn(message: string): void;
  error(message: string | Error, options?: { code?: string; exit?: number }): void;
  exit(code?: number): void;
}

/** The running CLI, as far as a hook may rely on it (a subset of oclif's `Config`). */
export interface ProvidersHookConfig {
  /** The CLI's package name (`cdkd`). */
  readonly name: string;
  /** The CLI's version. */
  readonly version: string;
}

/** What a hook receives: cdkd's options plus what oclif adds to every hook call. */
export type ProvidersHookInput = ProvidersHookOptions & {
  config: ProvidersHookConfig;
  context: ProvidersHookContext;
};

/**
 * Hook events cdkd fires, in oclif's `{ options, return }` shape (the core
 * merges it into oclif's `Hooks`).
 */
export interface CdkdHookEvents {
  'cdkd:providers': {
    options: ProvidersHookOptions;
    return: ProviderPack;
  };
}

/**
 * Type of a pack's hook:
 * ```ts
 * const hook: ProvidersHook = async () => ({ apiVersion: 1, name: '@acme/provider-widgets', providers: [...] });
 * export default hook;
 * ```
 */
export type ProvidersHook = (
  this: ProvidersHookContext,
  options: ProvidersHookInput,
) => Promise<ProviderPack>;

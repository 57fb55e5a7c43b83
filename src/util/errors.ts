/**
 * cdkd's error types. Every error the user can see carries a stable `code`,
 * says what happened and to what, and (where there is one) the remedy.
 *
 * Errors are recognised by a `Symbol.for` brand rather than `instanceof`, so a
 * provider pack that bundles its own copy of these classes (or receives them
 * through `ctx.errors`) is still recognised by the core.
 */

const CDKD_ERROR = Symbol.for('cdkd.error');

export interface CdkdErrorOptions {
  /** Stable machine-readable code, e.g. `STATE_CONFLICT`. */
  code?: string;
  /** What the user should do next. Printed after the message. */
  remedy?: string;
  /** The underlying error. */
  cause?: unknown;
  /** Process exit code when this error ends a command. Default 1. */
  exitCode?: number;
  /** Structured detail for `--json` consumers (e.g. the per-stack results of a failed deploy). */
  details?: unknown;
}

export class CdkdError extends Error {
  readonly code: string;
  readonly remedy?: string;
  readonly exitCode: number;
  readonly details?: unknown;

  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = options.code ?? 'CDKD_ERROR';
    this.remedy = options.remedy;
    this.exitCode = options.exitCode ?? 1;
    if (options.details !== undefined) this.details = options.details;
    Object.defineProperty(this, CDKD_ERROR, { value: true });
  }

  /** True for any cdkd error, whichever copy of this module created it. */
  static isCdkdError(err: unknown): err is CdkdError {
    return typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[CDKD_ERROR] === true;
  }
}

/** Bad configuration: a malformed config file, an unknown flag value, a missing setting. */
export class ConfigError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'CONFIG_ERROR', ...options });
  }
}

/** Context of the resource an error is about. */
export interface ResourceErrorContext {
  logicalId?: string;
  resourceType?: string;
  physicalId?: string;
}

/**
 * A provider could not create, update, read or delete a resource.
 * Message should name the AWS error; the resource context is filled in by the engine when absent.
 */
export interface ProvisioningErrorOptions extends CdkdErrorOptions {
  resource?: ResourceErrorContext;
  /** The engine may retry the operation (a handler-level outcome; the SDK already retried transport errors). */
  retryable?: boolean;
  /** The create made this resource before it failed: cdkd records it (to delete it), never orphans it. */
  createdPhysicalId?: string;
  /** With `createdPhysicalId`: the identity of what was made (plugin API `ResourceIdentity`). */
  createdIdentity?: Readonly<Record<string, string>>;
  /** The operation may have taken effect (its outcome is unknown); the next run settles it. */
  inDoubt?: boolean;
}

export class ProvisioningError extends CdkdError {
  readonly resource: ResourceErrorContext;
  /** When false the engine does not retry this error. */
  readonly retryable: boolean;
  readonly createdPhysicalId?: string;
  readonly createdIdentity?: Readonly<Record<string, string>>;
  readonly inDoubt?: boolean;

  constructor(message: string, options: ProvisioningErrorOptions = {}) {
    super(message, { code: 'PROVISIONING_ERROR', ...options });
    this.resource = options.resource ?? {};
    this.retryable = options.retryable ?? false;
    if (options.createdPhysicalId) this.createdPhysicalId = options.createdPhysicalId;
    if (options.createdPhysicalId && options.createdIdentity) this.createdIdentity = options.createdIdentity;
    if (options.inDoubt) this.inDoubt = true;
  }
}

/**
 * A create found a resource with the requested name or identity that it cannot prove it made
 * (see the plugin API's `ResourceOwnership`). Never adopted; never retried.
 */
export class ResourceExistsError extends ProvisioningError {
  constructor(message: string, options: ProvisioningErrorOptions = {}) {
    super(message, { code: 'RESOURCE_ALREADY_EXISTS', ...options, retryable: false, inDoubt: false });
  }
}

/** The stack's state was modified by someone else since it was read (ETag mismatch). */
export class StateConflictError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'STATE_CONFLICT', ...options });
  }
}

/** A state file cannot be read: not JSON, or not the shape of a cdkd state record. Never overwritten. */
export class StateCorruptError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'STATE_CORRUPT', ...options });
  }
}

/** A state file was written by a newer cdkd (a schema version this binary does not know). */
export class UnsupportedStateVersionError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'STATE_VERSION_UNSUPPORTED', ...options });
  }
}

/** A stack lock could not be acquired (held by someone else), or was lost. */
export class LockError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'LOCK_HELD', ...options });
  }
}

/**
 * An AWS call could not be made: no or rejected credentials, an unknown profile,
 * an endpoint that does not answer. `retryable` when the cause may pass (a
 * refused or reset connection), so whole-operation retries still apply.
 */
export class ConnectionError extends CdkdError {
  readonly retryable: boolean;

  constructor(message: string, options: CdkdErrorOptions & { retryable?: boolean } = {}) {
    super(message, { code: 'CONNECTION_ERROR', ...options });
    this.retryable = options.retryable ?? false;
  }
}

/** The input (template, stack name, parameter...) is invalid. */
export class ValidationError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'VALIDATION_ERROR', ...options });
  }
}

/** Where in a template an expression could not be resolved. */
export interface TemplateLocation {
  /** The template section of the element: a resource (default), an output, a condition, a parameter. */
  section?: 'Resources' | 'Outputs' | 'Conditions' | 'Parameters';
  /** Logical id of the resource (or output / condition / parameter name). */
  logicalId?: string;
  /** Property path, e.g. `Properties.Environment.Variables.TABLE` or `Value`. */
  path?: string;
  /** JSON of the intrinsic function that failed, e.g. `{"Fn::Select":[5,["a"]]}`. */
  expression?: string;
}

const SECTION_NOUN: Record<NonNullable<TemplateLocation['section']>, string> = {
  Resources: 'resource',
  Outputs: 'output',
  Conditions: 'condition',
  Parameters: 'parameter',
};

/**
 * A template expression could not be resolved (bad intrinsic, missing attribute,
 * unknown parameter...). The message names the resource, the property path and
 * the expression; the same three are available as `location`.
 */
export class TemplateResolutionError extends ValidationError {
  readonly location: TemplateLocation;

  constructor(message: string, location: TemplateLocation, options: CdkdErrorOptions = {}) {
    const where = [
      location.logicalId
        ? `${SECTION_NOUN[location.section ?? 'Resources']} ${location.logicalId}`
        : undefined,
      location.path ? `at ${location.path}` : undefined,
      location.expression ? `in ${location.expression}` : undefined,
    ].filter(Boolean);
    super(where.length > 0 ? `${message} (${where.join(', ')})` : message, {
      code: 'TEMPLATE_RESOLUTION_ERROR',
      ...options,
    });
    this.location = location;
  }
}

/** A dependency graph has a cycle; `cycle` lists the ids on it in order (the first repeated at the end). */
export class DependencyCycleError extends ValidationError {
  readonly cycle: string[];

  constructor(cycle: string[], options: CdkdErrorOptions = {}) {
    super(`Circular dependency between ${cycle.join(' -> ')}`, {
      code: 'DEPENDENCY_CYCLE',
      remedy:
        'Break the cycle: remove one of the references (Ref, Fn::GetAtt, Fn::Sub) or DependsOn entries between these resources.',
      ...options,
    });
    this.cycle = cycle;
  }
}

/** The CDK app could not be synthesized, or its constructs reported errors (annotations). */
export class SynthesisError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'SYNTHESIS_FAILED', ...options });
  }
}

/** A stack selection (names, patterns, `--all`) did not match the app's stacks. */
export class StackSelectionError extends ValidationError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'STACK_SELECTION', ...options });
  }
}

/** An asset could not be built or published; the message names the asset. */
export class AssetPublishError extends CdkdError {
  constructor(message: string, options: CdkdErrorOptions = {}) {
    super(message, { code: 'ASSET_PUBLISH_FAILED', ...options });
  }
}

/** Render an error for the terminal: message, then the remedy when there is one. */
export function formatError(err: unknown): string {
  if (CdkdError.isCdkdError(err)) {
    return err.remedy ? `${err.message}\n${err.remedy}` : err.message;
  }
  if (err instanceof Error) return err.message;
  return String(err);
}

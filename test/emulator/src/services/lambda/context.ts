/**
 * What every group of Lambda handlers shares: the store, the packages, the
 * settings, and the lookups by FunctionName (any accepted form) and qualifier
 * with Lambda's not-found answers.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Platform } from '../../core/service';
import { CodeRepository } from './code';
import { inTransition, settle } from './configuration';
import type { AliasRecord, FunctionVersion, LambdaFunction } from './model';
import { functionArn, parseFunctionName, resolveQualifier, type FunctionRef } from './names';
import type { LambdaStore } from './store';

/** Run-time settings of the Lambda service (`/_emulator/settings`). */
export interface LambdaSettings {
  /**
   * How long a new function stays Pending and an update InProgress (ms). AWS
   * takes from well under a second to minutes (VPC functions); 0 settles at
   * once, though create and update responses still report Pending / InProgress.
   */
  stateTransitionMs: number;
}

export const DEFAULT_SETTINGS: LambdaSettings = { stateTransitionMs: 0 };

/** A function, and the version a qualifier selects (through an alias when it names one). */
export interface Resolved {
  fn: LambdaFunction;
  version: FunctionVersion;
  /** `$LATEST` or the version number. */
  versionName: string;
  alias?: AliasRecord;
  /** The qualifier as given (version, alias or `$LATEST`). */
  qualifier?: string;
}

export function functionNotFound(fnArn: string): AwsError {
  return new AwsError('ResourceNotFoundException', `Function not found: ${fnArn}`);
}

export class LambdaContext {
  readonly code: CodeRepository;
  readonly settings: LambdaSettings = { ...DEFAULT_SETTINGS };
  /**
   * Where handlers reach the emulator when an invocation comes from another
   * service rather than a Lambda call: the address the last Lambda call used
   * (the emulator's default port until there was one).
   */
  endpointUrl = 'http://127.0.0.1:4566';

  constructor(
    readonly store: LambdaStore,
    readonly platform: Platform,
  ) {
    this.code = new CodeRepository(store, platform);
  }

  get transitionMs(): number {
    return this.settings.stateTransitionMs;
  }

  /** Changes the transition time; what has settled under the old one stays settled. */
  setTransitionMs(ms: number): void {
    const now = Date.now();
    for (const fn of this.store.functions.values())
      for (const version of [fn.latest, ...Object.values(fn.versions)])
        settle(version, this.transitionMs, now);
    for (const mapping of this.store.eventSourceMappings.values()) {
      if (
        mapping.transition?.kind === 'delete' &&
        !inTransition(mapping.transition, 'delete', this.transitionMs, now)
      )
        this.store.eventSourceMappings.delete(mapping.UUID);
      else settle(mapping, this.transitionMs, now);
    }
    this.settings.stateTransitionMs = ms;
  }

  /** The function a FunctionName member names (its qualifier, if any, is returned in `ref`). */
  find(ctx: CallContext, functionName: unknown): { fn: LambdaFunction; ref: FunctionRef } {
    const ref = parseFunctionName(ctx, functionName);
    const fn = this.store.getFunction(ctx.account, ctx.region, ref.name);
    if (!fn) throw functionNotFound(functionArn(ctx.account, ctx.region, ref.name));
    return { fn, ref };
  }

  /** The function and the version a FunctionName plus Qualifier select. */
  resolve(ctx: CallContext, functionName: unknown, qualifierMember?: unknown): Resolved {
    const { fn, ref } = this.find(ctx, functionName);
    const qualifier = resolveQualifier(ref, qualifierMember);
    return { ...resolveIn(fn, qualifier), qualifier };
  }
}

/** The version a qualifier selects in a function. */
export function resolveIn(fn: LambdaFunction, qualifier: string | undefined): Omit<Resolved, 'qualifier'> {
  if (qualifier === undefined || qualifier === '$LATEST')
    return { fn, version: fn.latest, versionName: '$LATEST' };
  const missing = () => functionNotFound(functionArn(fn.account, fn.region, fn.name, qualifier));
  if (/^\d+$/.test(qualifier)) {
    const version = fn.versions[qualifier];
    if (!version) throw missing();
    return { fn, version, versionName: qualifier };
  }
  const alias = fn.aliases[qualifier];
  if (!alias) throw missing();
  const target = alias.FunctionVersion === '$LATEST' ? fn.latest : fn.versions[alias.FunctionVersion];
  if (!target) throw missing();
  return { fn, version: target, versionName: alias.FunctionVersion, alias };
}

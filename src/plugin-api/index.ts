/**
 * The provider-pack contract as the core sees it: every type of
 * `@cdkd/plugin-api` (the types-only package packs build against,
 * `plugins/plugin-api`), plus the run-time facts only the core has — which
 * plugin API versions this cdkd loads, and oclif's typing of the hook it fires.
 *
 * Also exported as `cdkd/plugin-api` for packs written before `@cdkd/plugin-api`
 * existed; new packs import `@cdkd/plugin-api`.
 *
 * @packageDocumentation
 */
import type { Hooks } from '@oclif/core/interfaces';
import type { CdkdHookEvents, PluginApiVersion } from '@cdkd/plugin-api';

export type * from '@cdkd/plugin-api';

/** The plugin API version this cdkd speaks (the major version of `@cdkd/plugin-api`). */
export const PLUGIN_API_VERSION: PluginApiVersion = 1;

/** Plugin API versions this cdkd can load. */
export const SUPPORTED_PLUGIN_API_VERSIONS: readonly number[] = [PLUGIN_API_VERSION];

/** oclif hook events cdkd fires: the contract's events within oclif's `Hooks`. */
export interface CdkdHooks extends Hooks, CdkdHookEvents {}

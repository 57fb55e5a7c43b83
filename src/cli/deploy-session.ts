/**
 * The steps deploy, watch and diff share once the app is synthesized: select
 * the stacks and check `--parameters` against them, then deploy them with the
 * engine session's services and configuration.
 */
import { deployApp } from '../engine/deploy-app';
import type { DeployAppOptions, DeployAppResult } from '../engine/deploy-app';
import type { SynthesizedAssembly, SynthesizedStack } from '../synth/cloud-assembly';
import type { StackSelector } from '../synth/stack-selection';
import { validateParameterAssignments } from '../template/parameters';
import type { ParameterAssignment } from '../template/parameters';
import { parseTemplate } from '../template/types';
import type { EngineSession } from './engine-session';

/** The selected stacks; refuses a `--parameters` entry no selected stack declares. */
export function selectWithParameters(
  assembly: SynthesizedAssembly,
  selector: StackSelector,
  parameters: readonly ParameterAssignment[],
): SynthesizedStack[] {
  const stacks = assembly.select(selector);
  validateParameterAssignments(
    parameters,
    stacks.map((s) => ({
      stackName: s.stackName,
      template: parseTemplate(s.template, `template of ${s.displayPath}`),
    })),
  );
  return stacks;
}

/** `deployApp` with the session's store, provisioner, clients, messages, signals and configuration. */
export function deployInSession(
  session: EngineSession,
  stacks: readonly SynthesizedStack[],
  parameters: readonly ParameterAssignment[],
  options: Pick<DeployAppOptions, 'force' | 'approve'> = {},
): Promise<DeployAppResult> {
  return deployApp({
    stacks,
    store: session.store,
    provisioner: session.provisioner,
    schemas: session.schemas,
    factory: session.factory,
    ioHost: session.ioHost,
    concurrency: session.config.concurrency,
    stackConcurrency: session.config.stackConcurrency,
    parameters,
    signal: session.signal,
    cancelSignal: session.cancelSignal,
    tags: session.config.tags,
    rollback: session.config.rollback,
    ...options,
  });
}

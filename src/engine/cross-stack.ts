/**
 * Cross-stack references between cdkd stacks, and to stacks still managed by
 * CloudFormation:
 *
 * - `Fn::ImportValue` (strong): the exports index names the producer (a hint),
 *   the producer's state.json is the truth; when the index is stale or silent,
 *   every state file of the region is scanned; a producer still in
 *   CloudFormation is found with ListExports. A cdkd producer is recorded in the
 *   consumer's `imports`, so destroying the producer is refused while it is used.
 * - `Fn::GetStackOutput` (weak): the producer's state.json, else CloudFormation
 *   DescribeStacks. Reads served from cdkd state are recorded in `outputReads`.
 */
import type * as CloudFormationModule from '@aws-sdk/client-cloudformation';
import type { AwsClientFactory } from '../config/aws-clients';
import type { StateStore } from '../state/state-store';
import type { StackState, StateImportEntry, StateOutputReadEntry } from '../state/types';
import { importableOutputKeys } from '../state/types';
import type { CrossStackContext, CrossStackResolver, StackOutputRequest } from '../template/environment';
import { hasSecretReference } from '../plan/secret-digest';
import { isSecretReference, resolveDynamicReferencesIn } from '../template/dynamic-references';
import { ValidationError } from '../util/errors';
import { stackResolverEnv } from './resolver-env';

export interface CrossStackRecorder {
  imports: StateImportEntry[];
  outputReads: StateOutputReadEntry[];
}

export class StateCrossStackResolver implements CrossStackResolver {
  /** Reads of this resolver, for the consumer's state record. */
  readonly recorded: CrossStackRecorder = { imports: [], outputReads: [] };

  constructor(
    private readonly store: StateStore,
    private readonly factory: AwsClientFactory,
  ) {}

  async importValue(exportName: string, context: CrossStackContext): Promise<unknown> {
    const region = context.region;
    const fromIndex = await this.store.exportsIndex.lookup(region, exportName).catch(() => undefined);
    if (fromIndex && fromIndex.producerStack !== context.stackName) {
      const producer = await this.store.backend
        .getState(fromIndex.producerStack, fromIndex.producerRegion)
        .catch(() => undefined);
      if (producer && importableOutputKeys(producer.state).includes(exportName)) {
        return this.recordImport(producer.state, region, exportName);
      }
    }
    // The index is a hint: when it is stale or silent, the state files decide.
    for (const ref of await this.store.backend.listStacks()) {
      if (ref.region !== region || ref.stackName === context.stackName) continue;
      const producer = await this.store.backend.getState(ref.stackName, ref.region);
      if (producer && importableOutputKeys(producer.state).includes(exportName)) {
        const value = this.recordImport(producer.state, region, exportName);
        await this.store.exportsIndex.patchEntry(region, exportName, {
          value,
          producerStack: ref.stackName,
          producerRegion: region,
        });
        return value;
      }
    }
    const fromCloudFormation = await this.cloudFormationExport(exportName, region);
    if (fromCloudFormation !== undefined) return fromCloudFormation;
    throw new ValidationError(
      `Export ${JSON.stringify(exportName)} not found in ${region}: no cdkd stack and no CloudFormation stack exports it.`,
      {
        code: 'EXPORT_NOT_FOUND',
        remedy:
          'Deploy the stack that exports it first (cdkd deploy deploys dependency stacks in order), or check the export name.',
      },
    );
  }

  async getStackOutput(request: StackOutputRequest, context: CrossStackContext): Promise<unknown> {
    if (request.roleArn) {
      throw new ValidationError(
        `Fn::GetStackOutput with a RoleArn (cross-account) is not supported yet (${request.stackName}.${request.outputName}).`,
        {
          code: 'CROSS_STACK_UNSUPPORTED',
          remedy: 'Pass the value as a stack parameter instead.',
        },
      );
    }
    const region = request.region ?? context.region;
    const producer = await this.store.backend.getState(request.stackName, region);
    if (producer && Object.prototype.hasOwnProperty.call(producer.state.outputs, request.outputName)) {
      this.recorded.outputReads.push({
        sourceStack: request.stackName,
        sourceRegion: region,
        outputName: request.outputName,
      });
      return this.inProducerRegion(
        producer.state.outputs[request.outputName],
        request.stackName,
        region,
        context,
      );
    }
    const value = await this.cloudFormationOutput(request.stackName, request.outputName, region);
    if (value !== undefined) return value;
    throw new ValidationError(
      `Output ${request.outputName} of stack ${request.stackName} (${region}) not found.`,
      {
        code: 'OUTPUT_NOT_FOUND',
        remedy: `Deploy ${request.stackName} first, or check the stack and output names.`,
      },
    );
  }

  /**
   * A producer's output that holds a secret reference, read by a consumer in
   * another region: the secret is read where the producer read it (a secret or
   * parameter of the same name in two regions is two values), and the consumer
   * gets the value, registered as a secret (masked in its state, like a NoEcho
   * parameter). In the producer's own region the reference passes through as
   * written and is read at the call.
   */
  private async inProducerRegion(
    value: unknown,
    producerStack: string,
    producerRegion: string,
    context: CrossStackContext,
  ): Promise<unknown> {
    if (producerRegion === context.region || !hasSecretReference(value)) return value;
    const env = stackResolverEnv({ stackName: producerStack, region: producerRegion, factory: this.factory });
    return resolveDynamicReferencesIn(
      value,
      { ssmParameter: env.ssmParameter, secretValue: env.secretValue },
      isSecretReference,
    );
  }

  private recordImport(producer: StackState, region: string, exportName: string): unknown {
    const entry = { sourceStack: producer.stackName, sourceRegion: producer.region ?? region, exportName };
    if (
      !this.recorded.imports.some((i) => i.exportName === exportName && i.sourceStack === entry.sourceStack)
    ) {
      this.recorded.imports.push(entry);
    }
    return producer.outputs[exportName];
  }

  private async cloudFormationExport(exportName: string, region: string): Promise<unknown> {
    const { CloudFormationClient, paginateListExports } =
      require('@aws-sdk/client-cloudformation') as typeof CloudFormationModule;
    try {
      for await (const page of paginateListExports(
        { client: this.factory.get(CloudFormationClient, { region }) },
        {},
      )) {
        const found = page.Exports?.find((e) => e.Name === exportName);
        if (found) return found.Value;
      }
    } catch (err) {
      if (isAccessDenied(err)) return undefined;
      throw err;
    }
    return undefined;
  }

  private async cloudFormationOutput(
    stackName: string,
    outputName: string,
    region: string,
  ): Promise<unknown> {
    const { CloudFormationClient, DescribeStacksCommand } =
      require('@aws-sdk/client-cloudformation') as typeof CloudFormationModule;
    try {
      const out = await this.factory
        .get(CloudFormationClient, { region })
        .send(new DescribeStacksCommand({ StackName: stackName }));
      return out.Stacks?.[0]?.Outputs?.find((o) => o.OutputKey === outputName)?.OutputValue;
    } catch (err) {
      if (isAccessDenied(err) || /does not exist/.test((err as Error).message ?? '')) return undefined;
      throw err;
    }
  }
}

function isAccessDenied(err: unknown): boolean {
  return /AccessDenied/i.test((err as Error)?.name ?? '');
}

/**
 * Stacks in the region whose recorded `imports` still use one of `producer`'s
 * exports. Reads every state file (the canonical source, not the index).
 */
export async function findImportingConsumers(
  store: StateStore,
  producer: StackState,
  region: string,
): Promise<Array<{ stackName: string; exportName: string }>> {
  const exported = new Set(importableOutputKeys(producer));
  if (exported.size === 0) return [];
  const consumers: Array<{ stackName: string; exportName: string }> = [];
  for (const ref of await store.backend.listStacks()) {
    if (ref.stackName === producer.stackName && ref.region === region) continue;
    const record = await store.backend.getState(ref.stackName, ref.region).catch(() => undefined);
    for (const imp of record?.state.imports ?? []) {
      if (
        imp.sourceStack === producer.stackName &&
        imp.sourceRegion === region &&
        exported.has(imp.exportName)
      ) {
        consumers.push({ stackName: ref.stackName, exportName: imp.exportName });
      }
    }
  }
  return consumers;
}

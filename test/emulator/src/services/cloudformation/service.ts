/**
 * AWS CloudFormation operations, read-only: DescribeStacks, ListExports and
 * ListImports over the seeded stacks.
 */
import { AwsError } from '../../core/errors';
import type { CallContext, Operations } from '../../core/service';
import type { CloudFormationStore } from './store';

type Input = Record<string, unknown>;

export class CloudFormationOperations {
  readonly operations: Operations = {
    DescribeStacks: (ctx, input: Input) => this.describeStacks(ctx, input),
    ListExports: (ctx, input: Input) => this.listExports(ctx, input),
    ListImports: (_ctx, input: Input) => this.listImports(input),
  };

  constructor(private readonly store: CloudFormationStore) {}

  private describeStacks(ctx: CallContext, input: Input): unknown {
    const name = typeof input.StackName === 'string' ? input.StackName : undefined;
    let stacks = this.store.inScope(ctx.account, ctx.region);
    if (name) {
      stacks = stacks.filter((s) => s.stackName === name || s.stackId === name);
      if (!stacks.length) throw new AwsError('ValidationError', `Stack with id ${name} does not exist`, 400);
    }
    const { page, nextToken } = pageOf(stacks, input.NextToken, 100);
    return {
      Stacks: page.map((s) => ({
        StackId: s.stackId,
        StackName: s.stackName,
        Description: s.description,
        Parameters: s.parameters.length ? s.parameters : undefined,
        CreationTime: s.creationTime,
        RollbackConfiguration: {},
        StackStatus: s.status,
        DisableRollback: false,
        NotificationARNs: [],
        Outputs: s.outputs.length ? s.outputs : undefined,
        Tags: s.tags,
        EnableTerminationProtection: false,
        DriftInformation: { StackDriftStatus: 'NOT_CHECKED' },
      })),
      NextToken: nextToken,
    };
  }

  private listExports(ctx: CallContext, input: Input): unknown {
    const exports = this.store
      .inScope(ctx.account, ctx.region)
      .filter((s) => !s.status.startsWith('DELETE_COMPLETE'))
      .flatMap((s) =>
        s.outputs
          .filter((o) => o.ExportName)
          .map((o) => ({ ExportingStackId: s.stackId, Name: o.ExportName!, Value: o.OutputValue })),
      )
      .sort((a, b) => (a.Name < b.Name ? -1 : 1));
    const { page, nextToken } = pageOf(exports, input.NextToken, 100);
    return { Exports: page, NextToken: nextToken };
  }

  private listImports(input: Input): unknown {
    const name = typeof input.ExportName === 'string' ? input.ExportName : '';
    // Seeded stacks import nothing: CloudFormation answers a never-imported export with this error.
    throw new AwsError('ValidationError', `Export '${name}' is not imported by any stack.`, 400);
  }
}

function pageOf<T>(items: T[], token: unknown, size: number): { page: T[]; nextToken?: string } {
  const start = typeof token === 'string' ? Number(Buffer.from(token, 'base64').toString('utf8')) || 0 : 0;
  const page = items.slice(start, start + size);
  return {
    page,
    nextToken: start + size < items.length ? Buffer.from(String(start + size)).toString('base64') : undefined,
  };
}

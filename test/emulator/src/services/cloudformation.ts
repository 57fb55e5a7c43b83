/**
 * AWS CloudFormation (query protocol), read-only: DescribeStacks, ListExports
 * and ListImports over stacks seeded through the control API. They stand in
 * for producer stacks still managed by CloudFormation.
 */
import { AwsError } from '../core/errors';
import type { EmulatorRequest, EmulatorResponse } from '../core/http';
import { uuid } from '../core/ids';
import { QueryService, queryParams, queryResponse } from '../core/query-protocol';
import type { CallContext, RoutedCall } from '../core/service';

const CFN_NS = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

// A type alias (not an interface) so it fits XML content's index signature.
export type StackOutput = {
  OutputKey: string;
  OutputValue: string;
  Description?: string;
  ExportName?: string;
};

/** What the control API accepts to seed a stack. */
export interface StackSeed {
  stackName: string;
  /** Default: the emulator's default account. */
  account?: string;
  /** Default: us-east-1. */
  region?: string;
  outputs?: StackOutput[];
  parameters?: Array<{ ParameterKey: string; ParameterValue: string }>;
  tags?: Array<{ Key: string; Value: string }>;
  /** Default CREATE_COMPLETE. */
  status?: string;
  description?: string;
}

export interface SeededStack {
  stackId: string;
  stackName: string;
  account: string;
  region: string;
  status: string;
  description?: string;
  creationTime: Date;
  outputs: StackOutput[];
  parameters: Array<{ ParameterKey: string; ParameterValue: string }>;
  tags: Array<{ Key: string; Value: string }>;
}

const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

export class CloudFormationStore {
  readonly stacks: SeededStack[] = [];

  /** Seeds (or replaces) a stack; export names stay unique per account and region. */
  seed(seed: StackSeed, defaultAccount: string): SeededStack {
    if (typeof seed.stackName !== 'string' || !STACK_NAME.test(seed.stackName)) {
      throw new AwsError(
        'BadRequest',
        'stackName must start with a letter and contain only letters, digits and hyphens (at most 128)',
        400,
      );
    }
    const account = seed.account ?? defaultAccount;
    const region = seed.region ?? 'us-east-1';
    const outputs = (seed.outputs ?? []).map((o) => {
      if (typeof o.OutputKey !== 'string' || typeof o.OutputValue !== 'string')
        throw new AwsError('BadRequest', 'each output needs OutputKey and OutputValue (strings)', 400);
      return { ...o };
    });
    const existingIndex = this.stacks.findIndex(
      (s) => s.account === account && s.region === region && s.stackName === seed.stackName,
    );
    for (const output of outputs) {
      if (!output.ExportName) continue;
      const clash = this.stacks.find(
        (s, i) =>
          i !== existingIndex &&
          s.account === account &&
          s.region === region &&
          s.outputs.some((o) => o.ExportName === output.ExportName),
      );
      if (clash)
        throw new AwsError(
          'BadRequest',
          `Export with name ${output.ExportName} is already exported by stack ${clash.stackName}`,
          400,
        );
    }
    const stack: SeededStack = {
      stackId: `arn:aws:cloudformation:${region}:${account}:stack/${seed.stackName}/${uuid()}`,
      stackName: seed.stackName,
      account,
      region,
      status: seed.status ?? 'CREATE_COMPLETE',
      description: seed.description,
      creationTime: new Date(),
      outputs,
      parameters: (seed.parameters ?? []).map((p) => ({ ...p })),
      tags: (seed.tags ?? []).map((t) => ({ ...t })),
    };
    if (existingIndex >= 0) {
      stack.stackId = this.stacks[existingIndex]!.stackId;
      stack.creationTime = this.stacks[existingIndex]!.creationTime;
      this.stacks[existingIndex] = stack;
    } else this.stacks.push(stack);
    return stack;
  }

  remove(stackName: string, account: string, region: string): boolean {
    const index = this.stacks.findIndex(
      (s) =>
        s.account === account &&
        s.region === region &&
        (s.stackName === stackName || s.stackId === stackName),
    );
    if (index < 0) return false;
    this.stacks.splice(index, 1);
    return true;
  }

  inScope(account: string, region: string): SeededStack[] {
    return this.stacks.filter((s) => s.account === account && s.region === region);
  }

  clear(): void {
    this.stacks.length = 0;
  }
}

export class CloudFormationService extends QueryService {
  readonly name = 'cloudformation';
  protected readonly xmlns = CFN_NS;

  constructor(private readonly store: CloudFormationStore) {
    super();
  }

  route(req: EmulatorRequest): RoutedCall {
    const params = queryParams(req);
    const action = params.get('Action') ?? '';
    switch (action) {
      case 'DescribeStacks':
        return { operation: action, run: (ctx) => this.describeStacks(ctx, params) };
      case 'ListExports':
        return { operation: action, run: (ctx) => this.listExports(ctx, params) };
      case 'ListImports':
        return { operation: action, run: () => this.listImports(params) };
      default:
        throw new AwsError('InvalidAction', `The action ${action} is not valid for this web service.`, 400);
    }
  }

  private describeStacks(ctx: CallContext, params: URLSearchParams): EmulatorResponse {
    const name = params.get('StackName');
    let stacks = this.store.inScope(ctx.account, ctx.region);
    if (name) {
      stacks = stacks.filter((s) => s.stackName === name || s.stackId === name);
      if (!stacks.length) throw new AwsError('ValidationError', `Stack with id ${name} does not exist`, 400);
    }
    const { page, nextToken } = pageOf(stacks, params.get('NextToken'), 100);
    return queryResponse(
      'DescribeStacks',
      CFN_NS,
      {
        Stacks: {
          member: page.map((s) => ({
            StackId: s.stackId,
            StackName: s.stackName,
            Description: s.description,
            Parameters: s.parameters.length ? { member: s.parameters } : undefined,
            CreationTime: s.creationTime,
            RollbackConfiguration: {},
            StackStatus: s.status,
            DisableRollback: false,
            NotificationARNs: {},
            Outputs: s.outputs.length ? { member: s.outputs } : undefined,
            Tags: { member: s.tags },
            EnableTerminationProtection: false,
            DriftInformation: { StackDriftStatus: 'NOT_CHECKED' },
          })),
        },
        NextToken: nextToken,
      },
      ctx.requestId,
    );
  }

  private listExports(ctx: CallContext, params: URLSearchParams): EmulatorResponse {
    const exports = this.store
      .inScope(ctx.account, ctx.region)
      .filter((s) => !s.status.startsWith('DELETE_COMPLETE'))
      .flatMap((s) =>
        s.outputs
          .filter((o) => o.ExportName)
          .map((o) => ({ ExportingStackId: s.stackId, Name: o.ExportName!, Value: o.OutputValue })),
      )
      .sort((a, b) => (a.Name < b.Name ? -1 : 1));
    const { page, nextToken } = pageOf(exports, params.get('NextToken'), 100);
    return queryResponse(
      'ListExports',
      CFN_NS,
      { Exports: { member: page }, NextToken: nextToken },
      ctx.requestId,
    );
  }

  private listImports(params: URLSearchParams): EmulatorResponse {
    const name = params.get('ExportName') ?? '';
    // Seeded stacks import nothing: CloudFormation answers a never-imported export with this error.
    throw new AwsError('ValidationError', `Export '${name}' is not imported by any stack.`, 400);
  }
}

function pageOf<T>(items: T[], token: string | null, size: number): { page: T[]; nextToken?: string } {
  const start = token ? Number(Buffer.from(token, 'base64').toString('utf8')) || 0 : 0;
  const page = items.slice(start, start + size);
  return {
    page,
    nextToken: start + size < items.length ? Buffer.from(String(start + size)).toString('base64') : undefined,
  };
}

/**
 * CloudFormation stacks seeded through the control API: they stand in for
 * producer stacks still managed by CloudFormation.
 */
import { AwsError } from '../../core/errors';
import { uuid } from '../../core/ids';
import type { InventoryItem, ServiceStore } from '../../core/service';

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

export class CloudFormationStore implements ServiceStore {
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

  snapshot(): { stacks: unknown[] } {
    return { stacks: this.stacks.map((s) => ({ ...s, creationTime: s.creationTime.toISOString() })) };
  }

  restore(saved: unknown): void {
    for (const s of (
      saved as { stacks?: Array<Omit<SeededStack, 'creationTime'> & { creationTime: string }> }
    ).stacks ?? [])
      this.stacks.push({ ...s, creationTime: new Date(s.creationTime) });
  }

  /** Seeded stacks as `AWS::CloudFormation::Stack` (Cloud Control does not manage them). */
  inventory(): InventoryItem[] {
    return this.stacks.map((stack) => ({
      account: stack.account,
      region: stack.region,
      type: 'AWS::CloudFormation::Stack',
      identifier: stack.stackId,
      properties: {
        StackName: stack.stackName,
        StackId: stack.stackId,
        StackStatus: stack.status,
        Outputs: stack.outputs,
      },
    }));
  }
}

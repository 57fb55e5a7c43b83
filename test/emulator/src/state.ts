/**
 * Everything one emulator instance holds: accounts, the services' stores,
 * request counts, latency and faults. The control API and persistence work on it.
 */
import { AccountRegistry, DEFAULT_ACCOUNT } from './core/accounts';
import { FaultRegistry } from './core/faults';
import { LatencyProfile, RequestCounter } from './core/latency';
import type { ServiceHandler } from './core/service';
import { CloudFormationService, CloudFormationStore } from './services/cloudformation';
import { bucketProperties } from './services/s3/resource';
import { S3Service } from './services/s3/service';
import { S3Store } from './services/s3/store';
import { queueProperties } from './services/sqs/resource';
import { SqsService } from './services/sqs/service';
import { SqsStore } from './services/sqs/store';
import { parameterProperties } from './services/ssm/resource';
import { SsmService } from './services/ssm/service';
import { SsmStore } from './services/ssm/store';
import { StsService } from './services/sts';

/** One resource as the control API's inventory lists it. */
export interface InventoryItem {
  account: string;
  region: string;
  /** CloudFormation type name, e.g. `AWS::S3::Bucket`. */
  type: string;
  /** Cloud Control identifier (primary identifier; multi-part joined with `|`). */
  identifier: string;
  properties: Record<string, unknown>;
}

export interface EmulatorStateOptions {
  account?: string;
  schemasDir?: string;
}

export class EmulatorState {
  readonly accounts: AccountRegistry;
  readonly requests = new RequestCounter();
  readonly latency = new LatencyProfile();
  readonly faults = new FaultRegistry();
  readonly s3 = new S3Store();
  readonly sqs = new SqsStore();
  readonly ssm = new SsmStore();
  readonly cloudformation = new CloudFormationStore();
  readonly services = new Map<string, ServiceHandler>();
  private readonly listeners: Array<() => void> = [];

  constructor(readonly options: EmulatorStateOptions = {}) {
    this.accounts = new AccountRegistry(options.account ?? DEFAULT_ACCOUNT);
    this.register(new S3Service(this.s3));
    this.register(new StsService(this.accounts));
    this.register(new SqsService(this.sqs));
    this.register(new SsmService(this.ssm));
    this.register(new CloudFormationService(this.cloudformation));
  }

  private register(service: ServiceHandler): void {
    this.services.set(service.name, service);
  }

  /** Called after every successful mutating request. */
  changed(): void {
    for (const listener of this.listeners) listener();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** Forgets every resource, request count, latency rule, fault and issued credential. */
  reset(): void {
    this.s3.clear();
    this.sqs.clear();
    this.ssm.clear();
    this.cloudformation.clear();
    this.accounts.clear();
    this.requests.clear();
    this.latency.clear();
    this.faults.clear();
    this.changed();
  }

  /** Every resource of every service. */
  inventory(baseUrl: string): InventoryItem[] {
    const items: InventoryItem[] = [];
    for (const bucket of this.s3.buckets.values()) {
      items.push({ account: bucket.account, region: bucket.region, type: 'AWS::S3::Bucket', identifier: bucket.name, properties: bucketProperties(bucket) });
    }
    for (const queue of this.sqs.queues.values()) {
      items.push({ account: queue.account, region: queue.region, type: 'AWS::SQS::Queue', identifier: queueProperties(queue, baseUrl).QueueUrl as string, properties: queueProperties(queue, baseUrl) });
    }
    for (const parameter of this.ssm.parameters.values()) {
      items.push({ account: parameter.account, region: parameter.region, type: 'AWS::SSM::Parameter', identifier: parameter.name, properties: parameterProperties(parameter) });
    }
    for (const stack of this.cloudformation.stacks) {
      items.push({
        account: stack.account,
        region: stack.region,
        type: 'AWS::CloudFormation::Stack',
        identifier: stack.stackId,
        properties: { StackName: stack.stackName, StackId: stack.stackId, StackStatus: stack.status, Outputs: stack.outputs },
      });
    }
    return items;
  }
}

/**
 * Everything one emulator instance holds: accounts, the services' stores,
 * request counts, latency and faults. The control API and persistence work on it.
 */
import { setClockOffset } from './core/clock';
import { AccountRegistry, DEFAULT_ACCOUNT } from './core/accounts';
import { FaultRegistry } from './core/faults';
import { LatencyProfile, RequestCounter } from './core/latency';
import type { ServiceHandler } from './core/service';
import { CloudFormationService, CloudFormationStore } from './services/cloudformation';
import { Ec2Service } from './services/ec2';
import { SecretsManagerService } from './services/secretsmanager/service';
import { SecretsStore } from './services/secretsmanager/store';
import {
  BucketAdapter,
  BucketPolicyAdapter,
  GenericAdapter,
  GenericStore,
  ParameterAdapter,
  QueueAdapter,
  SecretAdapter,
  secretProperties,
  type ResourceAdapter,
} from './services/cloudcontrol/adapters';
import { defaultSchemasDir, SchemaRegistry } from './services/cloudcontrol/schemas';
import { CloudControlService, CloudControlStore } from './services/cloudcontrol/service';
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
  readonly secrets = new SecretsStore();
  readonly cloudcontrol = new CloudControlStore();
  readonly generic = new GenericStore();
  readonly schemas: SchemaRegistry;
  /** Types whose resources live in a service's own store. */
  private readonly adapters: Map<string, ResourceAdapter>;
  private readonly genericAdapter: GenericAdapter;
  readonly services = new Map<string, ServiceHandler>();
  /** AWS requests whose headers arrived and that are not answered yet. */
  inFlight = 0;
  private readonly listeners: Array<() => void> = [];

  constructor(readonly options: EmulatorStateOptions = {}) {
    this.accounts = new AccountRegistry(options.account ?? DEFAULT_ACCOUNT);
    this.register(new S3Service(this.s3));
    this.register(new StsService(this.accounts));
    this.register(new SqsService(this.sqs));
    this.register(new SsmService(this.ssm));
    this.register(new CloudFormationService(this.cloudformation));
    this.register(new SecretsManagerService(this.secrets));
    this.register(new Ec2Service());
    this.schemas = new SchemaRegistry(options.schemasDir ?? defaultSchemasDir());
    this.genericAdapter = new GenericAdapter(this.generic);
    this.adapters = new Map<string, ResourceAdapter>([
      ['AWS::S3::Bucket', new BucketAdapter(this.s3)],
      ['AWS::S3::BucketPolicy', new BucketPolicyAdapter(this.s3)],
      ['AWS::SQS::Queue', new QueueAdapter(this.sqs)],
      ['AWS::SSM::Parameter', new ParameterAdapter(this.ssm)],
      ['AWS::SecretsManager::Secret', new SecretAdapter(this.secrets)],
    ]);
    this.register(
      new CloudControlService(
        this.schemas,
        this.cloudcontrol,
        (type) => this.adapterFor(type),
        () => this.changed(),
      ),
    );
  }

  /** Where resources of a type live for Cloud Control. */
  adapterFor(typeName: string): ResourceAdapter {
    return this.adapters.get(typeName) ?? this.genericAdapter;
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
    this.secrets.clear();
    this.cloudcontrol.clear();
    this.generic.clear();
    this.sqs.deleteCooldownMs = 60_000;
    this.accounts.clear();
    this.requests.clear();
    this.latency.clear();
    this.faults.clear();
    setClockOffset(0);
    this.changed();
  }

  /** Every resource of every service. */
  inventory(baseUrl: string): InventoryItem[] {
    const items: InventoryItem[] = [];
    for (const bucket of this.s3.buckets.values()) {
      items.push({
        account: bucket.account,
        region: bucket.region,
        type: 'AWS::S3::Bucket',
        identifier: bucket.name,
        properties: bucketProperties(bucket),
      });
    }
    for (const queue of this.sqs.queues.values()) {
      items.push({
        account: queue.account,
        region: queue.region,
        type: 'AWS::SQS::Queue',
        identifier: queueProperties(queue, baseUrl).QueueUrl as string,
        properties: queueProperties(queue, baseUrl),
      });
    }
    for (const parameter of this.ssm.parameters.values()) {
      items.push({
        account: parameter.account,
        region: parameter.region,
        type: 'AWS::SSM::Parameter',
        identifier: parameter.name,
        properties: parameterProperties(parameter),
      });
    }
    for (const bucket of this.s3.buckets.values()) {
      if (!bucket.policy) continue;
      let document: unknown = bucket.policy;
      try {
        document = JSON.parse(bucket.policy);
      } catch {
        // keep the raw text
      }
      items.push({
        account: bucket.account,
        region: bucket.region,
        type: 'AWS::S3::BucketPolicy',
        identifier: bucket.name,
        properties: { Bucket: bucket.name, PolicyDocument: document },
      });
    }
    for (const secret of this.secrets.secrets.values()) {
      if (secret.deletedDate) continue;
      items.push({
        account: secret.account,
        region: secret.region,
        type: 'AWS::SecretsManager::Secret',
        identifier: secret.arn,
        properties: secretProperties(secret),
      });
    }
    for (const record of this.generic.records.values()) {
      items.push({
        account: record.account,
        region: record.region,
        type: record.type,
        identifier: record.identifier,
        properties: record.model,
      });
    }
    for (const stack of this.cloudformation.stacks) {
      items.push({
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
      });
    }
    return items;
  }
}

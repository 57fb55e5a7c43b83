/**
 * Everything the resolver reads from outside the template, passed in
 * explicitly. AWS-backed lookups (STS, SSM, Secrets Manager, EC2 AZs, the state
 * of other stacks) are plain functions the engine wires to the AWS clients, so
 * this layer imports no AWS SDK and is tested with in-memory fakes.
 */
import { createHash } from 'node:crypto';
import { ValidationError } from '../util/errors';
import type { TemplateLocation } from '../util/errors';

/** Options of an SSM parameter read. */
export interface SsmReadOptions {
  /** A specific version (`{{resolve:ssm:name:3}}`); latest when absent. */
  version?: string;
  /** Decrypt a SecureString (`ssm-secure`). */
  withDecryption?: boolean;
}

/**
 * Reads one SSM parameter's value (`ssm:GetParameter`). A StringList comes back
 * as AWS returns it, comma-separated. Must throw when the parameter does not exist.
 */
export type SsmParameterReader = (name: string, options?: SsmReadOptions) => Promise<string>;

/** Which secret version to read, as a `{{resolve:secretsmanager:...}}` reference names it. */
export interface SecretRequest {
  /** Name or ARN. */
  secretId: string;
  versionStage?: string;
  versionId?: string;
}

/** Reads a Secrets Manager secret's `SecretString` (`secretsmanager:GetSecretValue`). */
export type SecretReader = (request: SecretRequest) => Promise<string>;

/** Where a cross-stack read happens, for the resolver interface and its errors. */
export interface CrossStackContext extends TemplateLocation {
  /** The consuming stack. */
  stackName: string;
  region: string;
}

/** Arguments of `Fn::GetStackOutput` (cdkd's weak cross-stack reference). */
export interface StackOutputRequest {
  stackName: string;
  outputName: string;
  /** Producer region; the consumer's region when absent. */
  region?: string;
  /** Cross-account read: a literal IAM role ARN to assume. */
  roleArn?: string;
}

/**
 * Resolves cross-stack references. Implemented by a later issue (exports index,
 * state scan, CloudFormation fallback); {@link unsupportedCrossStackResolver}
 * refuses both with a clear error meanwhile.
 */
export interface CrossStackResolver {
  /** Value of the export `exportName` (`Fn::ImportValue`, a strong reference). */
  importValue(exportName: string, context: CrossStackContext): Promise<unknown>;
  /** Value of another stack's output (`Fn::GetStackOutput`, a weak reference). */
  getStackOutput(request: StackOutputRequest, context: CrossStackContext): Promise<unknown>;
}

/** The default {@link CrossStackResolver}: every cross-stack reference is a clear "not supported yet" error. */
export const unsupportedCrossStackResolver: CrossStackResolver = {
  importValue(exportName) {
    return Promise.reject(
      new ValidationError(
        `Fn::ImportValue of export ${JSON.stringify(exportName)} is not supported by this version of cdkd yet.`,
        {
          code: 'CROSS_STACK_UNSUPPORTED',
          remedy:
            'Pass the value as a stack parameter instead, or deploy the consumer with the CDK CLI for now.',
        },
      ),
    );
  },
  getStackOutput(request) {
    return Promise.reject(
      new ValidationError(
        `Fn::GetStackOutput of ${request.stackName}.${request.outputName} is not supported by this version of cdkd yet.`,
        { code: 'CROSS_STACK_UNSUPPORTED', remedy: 'Pass the value as a stack parameter instead.' },
      ),
    );
  },
};

/** What `Ref` / `Fn::GetAtt` need to know about a deployed resource. A `ResourceState` satisfies it. */
export interface ResourceReferenceTarget {
  resourceType: string;
  /** As recorded (may be a `a|b` composite). */
  physicalId: string;
  /** Recorded `Fn::GetAtt` values; dotted names may be flat (`"Endpoint.Address"`) or nested. */
  attributes?: Record<string, unknown>;
  /** Recorded resolved properties (used when a type's `Ref` value is one of its properties). */
  properties?: Record<string, unknown>;
}

/**
 * The physical id and attributes of a resource of this stack: its state record,
 * or what an earlier step of the same deploy produced. `undefined` = not
 * available (not created yet, or being replaced).
 */
export type ResourceLookup = (logicalId: string) => ResourceReferenceTarget | undefined;

/** The schema facts the resolver and the plan use. `SchemaStore` (src/provisioning) satisfies it. */
export interface ResourceSchemaInfo {
  /** Cloud Control identifier as JSON pointers; multi-part ids join with `|`. */
  primaryIdentifier?: string[];
  /** What `Ref` returns, as JSON pointers (defaults to `primaryIdentifier`). */
  refIdentifier?: string[];
  /** Changing one replaces the resource (`/properties/A/*\/B` for nested paths). */
  createOnlyProperties?: string[];
  /** Changing one may replace the resource. */
  conditionalCreateOnlyProperties?: string[];
  /** Every `Fn::GetAtt` name. */
  attributes?: string[];
}

/** Schema lookup by type; `has` is false for types without a schema (custom resources). */
export interface ResourceSchemaLookup {
  has(type: string): boolean;
  get(type: string): ResourceSchemaInfo;
}

/** The resolver's view of the world. */
export interface ResolverEnvironment {
  stackName: string;
  region: string;
  /** `aws`, `aws-cn`, `aws-us-gov`... ({@link partitionOfRegion} in config/aws-clients). */
  partition: string;
  /** `amazonaws.com`, or `amazonaws.com.cn` in China ({@link urlSuffixOfPartition}). */
  urlSuffix: string;
  /** The account id (STS GetCallerIdentity, cached by the caller); only called when used. */
  accountId: () => Promise<string>;
  /** `AWS::StackId`; derived with {@link deriveStackId} when absent. */
  stackId?: string;
  /** Parameter values given for this stack (`--parameters`), by name. */
  parameterValues?: Record<string, string>;
  /**
   * Parameters whose value is known only after deploy (a nested stack's child
   * planned with its parent, given a value from a resource not made yet): in
   * plan mode their `Ref` is an `Unknown`; they are not validated.
   */
  unknownParameters?: readonly string[];
  ssmParameter?: SsmParameterReader;
  secretValue?: SecretReader;
  /** `Fn::GetAZs` (EC2 DescribeAvailabilityZones). */
  availabilityZones?: (region: string) => Promise<string[]>;
  crossStack?: CrossStackResolver;
  /** Physical ids and attributes of this stack's resources. */
  resources: ResourceLookup;
  /**
   * Reads an attribute the record lacks from the resource itself (one that
   * appears after create, e.g. a VPC's `Ipv6CidrBlocks` once a CIDR block is
   * attached); `undefined` when it cannot be read. Without it such a
   * `Fn::GetAtt` is known only after deploy (plan mode) or an error (strict).
   */
  liveAttribute?: (logicalId: string, target: ResourceReferenceTarget, attribute: string) => Promise<unknown>;
  /** Resource schemas, for `Ref` of resources whose id is not what `Ref` returns. */
  schemas?: ResourceSchemaLookup;
}

const URL_SUFFIXES: Record<string, string> = {
  aws: 'amazonaws.com',
  'aws-cn': 'amazonaws.com.cn',
  'aws-us-gov': 'amazonaws.com',
  'aws-iso': 'c2s.ic.gov',
  'aws-iso-b': 'sc2s.sgov.gov',
  'aws-iso-e': 'cloud.adc-e.uk',
  'aws-iso-f': 'csp.hci.ic.gov',
};

/** `AWS::URLSuffix` of a partition. */
export function urlSuffixOfPartition(partition: string): string {
  return URL_SUFFIXES[partition] ?? 'amazonaws.com';
}

/**
 * A stable, ARN-shaped `AWS::StackId`. cdkd has no CloudFormation stack, so the
 * id's unique part is a name-based UUID (SHA-1, version 5 layout) of partition,
 * account, region and stack name: the same stack always gets the same id.
 */
export function deriveStackId(
  partition: string,
  region: string,
  accountId: string,
  stackName: string,
): string {
  const hash = createHash('sha1').update(`cdkd:${partition}:${accountId}:${region}:${stackName}`).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
  return `arn:${partition}:cloudformation:${region}:${accountId}:stack/${stackName}/${uuid}`;
}

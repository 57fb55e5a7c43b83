/**
 * Wires the template resolver's outside lookups to AWS: the account id (STS),
 * SSM parameters, Secrets Manager secrets and availability zones, all through
 * the one client factory, for one stack's region.
 */
import type * as SsmModule from '@aws-sdk/client-ssm';
import type * as SecretsManagerModule from '@aws-sdk/client-secrets-manager';
import type * as Ec2Module from '@aws-sdk/client-ec2';
import type { AwsClientFactory } from '../config/aws-clients';
import { partitionOfRegion } from '../config/aws-clients';
import type {
  CrossStackResolver,
  ResolverEnvironment,
  SecretRequest,
  SsmReadOptions,
} from '../template/environment';
import { urlSuffixOfPartition } from '../template/environment';

export interface StackResolverEnvInput {
  stackName: string;
  region: string;
  factory: AwsClientFactory;
  parameterValues?: Record<string, string>;
  crossStack?: CrossStackResolver;
}

export type StackResolverEnv = Omit<ResolverEnvironment, 'resources' | 'schemas'>;

export function stackResolverEnv(input: StackResolverEnvInput): StackResolverEnv {
  const { factory, region } = input;
  const partition = partitionOfRegion(region);
  return {
    stackName: input.stackName,
    region,
    partition,
    urlSuffix: urlSuffixOfPartition(partition),
    accountId: async () => (await factory.callerIdentity()).account,
    parameterValues: input.parameterValues,
    crossStack: input.crossStack,
    ssmParameter: async (name: string, options?: SsmReadOptions) => {
      const { SSMClient, GetParameterCommand } = require('@aws-sdk/client-ssm') as typeof SsmModule;
      const out = await factory.get(SSMClient, { region }).send(
        new GetParameterCommand({
          Name: options?.version ? `${name}:${options.version}` : name,
          WithDecryption: options?.withDecryption,
        }),
      );
      return out.Parameter?.Value ?? '';
    },
    secretValue: async (request: SecretRequest) => {
      const { SecretsManagerClient, GetSecretValueCommand } =
        require('@aws-sdk/client-secrets-manager') as typeof SecretsManagerModule;
      const out = await factory.get(SecretsManagerClient, { region }).send(
        new GetSecretValueCommand({
          SecretId: request.secretId,
          VersionStage: request.versionStage,
          VersionId: request.versionId,
        }),
      );
      return out.SecretString ?? '';
    },
    availabilityZones: async (azRegion: string) => {
      const { EC2Client, DescribeAvailabilityZonesCommand } =
        require('@aws-sdk/client-ec2') as typeof Ec2Module;
      const out = await factory
        .get(EC2Client, { region: azRegion || region })
        .send(new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }));
      return (out.AvailabilityZones ?? [])
        .map((z) => z.ZoneName ?? '')
        .filter(Boolean)
        .sort();
    },
  };
}

/**
 * cdk-assets-lib's view of AWS (`IAws`), built on cdkd's client factory so the
 * publisher uses the same credentials, retries and endpoint overrides as the
 * rest of cdkd. Role assumption (CDK bootstrap destinations) goes through
 * {@link assumeRoleCredentials}.
 */
import type * as S3Module from '@aws-sdk/client-s3';
import type * as EcrModule from '@aws-sdk/client-ecr';
import type * as SecretsManagerModule from '@aws-sdk/client-secrets-manager';
import type * as LibStorage from '@aws-sdk/lib-storage';
import type {
  Account,
  ClientOptions,
  IAws,
  IECRClient,
  IS3Client,
  ISecretsManagerClient,
} from '@aws-cdk/cdk-assets-lib';
import type { AwsClientFactory } from '../config/aws-clients';
import { assumeRoleCredentials } from '../config/assume-role';
import { AssetPublishError } from '../util/errors';

export class CdkAssetsAws implements IAws {
  private readonly roleFactories = new Map<string, AwsClientFactory>();

  /**
   * @param aws the caller's client factory
   * @param defaultRegion the region of destinations that name none: the stack's region
   */
  constructor(
    private readonly aws: AwsClientFactory,
    private readonly defaultRegion: string,
  ) {}

  async discoverPartition(): Promise<string> {
    return (await this.aws.callerIdentity()).partition;
  }

  async discoverDefaultRegion(): Promise<string> {
    return this.defaultRegion;
  }

  async discoverCurrentAccount(): Promise<Account> {
    const id = await this.aws.callerIdentity();
    return { accountId: id.account, partition: id.partition };
  }

  async discoverTargetAccount(options: ClientOptions): Promise<Account> {
    const id = await this.factoryFor(options).callerIdentity();
    return { accountId: id.account, partition: id.partition };
  }

  async s3Client(options: ClientOptions): Promise<IS3Client> {
    const s3 = require('@aws-sdk/client-s3') as typeof S3Module;
    const client = this.factoryFor(options).get(s3.S3Client, {
      region: options.region ?? this.defaultRegion,
    });
    return {
      getBucketEncryption: (input) => client.send(new s3.GetBucketEncryptionCommand(input)),
      getBucketLocation: (input) => client.send(new s3.GetBucketLocationCommand(input)),
      listObjectsV2: (input) => client.send(new s3.ListObjectsV2Command(input)),
      upload: async (input) => {
        // lib-storage sends one PutObject for small bodies and a multipart upload for large ones.
        const { Upload } = require('@aws-sdk/lib-storage') as typeof LibStorage;
        return new Upload({ client, params: input }).done();
      },
    };
  }

  async ecrClient(options: ClientOptions): Promise<IECRClient> {
    const ecr = require('@aws-sdk/client-ecr') as typeof EcrModule;
    const client = this.factoryFor(options).get(ecr.ECRClient, {
      region: options.region ?? this.defaultRegion,
    });
    return {
      describeImages: (input) => client.send(new ecr.DescribeImagesCommand(input)),
      describeRepositories: (input) => client.send(new ecr.DescribeRepositoriesCommand(input)),
      getAuthorizationToken: (input) => client.send(new ecr.GetAuthorizationTokenCommand(input ?? {})),
    };
  }

  async secretsManagerClient(options: ClientOptions): Promise<ISecretsManagerClient> {
    const sm = require('@aws-sdk/client-secrets-manager') as typeof SecretsManagerModule;
    const client = this.factoryFor(options).get(sm.SecretsManagerClient, {
      region: options.region ?? this.defaultRegion,
    });
    return { getSecretValue: (input) => client.send(new sm.GetSecretValueCommand(input)) };
  }

  /** The caller's factory, or one whose clients use the role the destination names. */
  private factoryFor(options: ClientOptions): AwsClientFactory {
    if (!options.assumeRoleArn) return this.aws;
    const key = `${options.assumeRoleArn}|${options.assumeRoleExternalId ?? ''}`;
    let factory = this.roleFactories.get(key);
    if (!factory) {
      const credentials = assumeRoleCredentials(this.aws, {
        roleArn: options.assumeRoleArn,
        externalId: options.assumeRoleExternalId,
        additional: options.assumeRoleAdditionalOptions,
        sessionName: 'cdkd-asset-publishing',
        describeFailure: (err) =>
          new AssetPublishError(
            `Cannot assume the asset publishing role ${options.assumeRoleArn}: ${(err as Error).message}`,
            {
              cause: err,
              remedy:
                'Bootstrap the environment for the CDK (`cdk bootstrap`) and allow your credentials to assume the role, or run `cdkd bootstrap` so cdkd publishes assets to its own storage.',
            },
          ),
      });
      factory = this.aws.withCredentials(credentials, `role:${key}`);
      this.roleFactories.set(key, factory);
    }
    return factory;
  }
}

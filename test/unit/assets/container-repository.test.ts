/**
 * The repository check for container image assets. The emulator has no ECR, so
 * the two answers of DescribeRepositories are mocked (narrow error branch).
 */
import { DescribeRepositoriesCommand, ECRClient, RepositoryNotFoundException } from '@aws-sdk/client-ecr';
import { mockClient } from 'aws-sdk-client-mock';
import { assertContainerRepositories } from '../../../src/assets/container-repository';
import type { PreparedStackAssets } from '../../../src/assets/prepare';
import { AwsClientFactory } from '../../../src/config/aws-clients';

const ecr = mockClient(ECRClient);

function prepared(type: 'file' | 'docker-image', mode: PreparedStackAssets['mode']): PreparedStackAssets {
  return {
    stack: { environment: { region: 'eu-west-1' } },
    mode,
    assets: [{ type, stack: 'Api', displayName: 'Service/Image' }],
  } as unknown as PreparedStackAssets;
}

describe('assertContainerRepositories', () => {
  let aws: AwsClientFactory;
  beforeAll(async () => {
    aws = await AwsClientFactory.create({ region: 'eu-west-1' });
  });
  beforeEach(() => ecr.reset());
  afterAll(() => ecr.restore());

  const cdkd = {
    mode: 'cdkd' as const,
    assetBucket: 'b',
    containerRepository: 'cdkd-container-assets-1-eu-west-1',
  };

  it('says nothing and calls nothing for an app without image assets', async () => {
    await assertContainerRepositories([prepared('file', cdkd)], aws);
    await assertContainerRepositories([prepared('docker-image', { mode: 'cdk-bootstrap' })], aws);
    expect(ecr.commandCalls(DescribeRepositoriesCommand)).toHaveLength(0);
  });

  it('passes when the repository exists', async () => {
    ecr
      .on(DescribeRepositoriesCommand)
      .resolves({ repositories: [{ repositoryName: cdkd.containerRepository }] });
    await assertContainerRepositories([prepared('docker-image', cdkd)], aws);
    expect(ecr.commandCalls(DescribeRepositoriesCommand)[0].args[0].input).toEqual({
      repositoryNames: [cdkd.containerRepository],
    });
  });

  it('names the assets, the missing repository and the command that creates it', async () => {
    ecr
      .on(DescribeRepositoriesCommand)
      .rejects(new RepositoryNotFoundException({ message: 'not found', $metadata: {} }));
    const err = await assertContainerRepositories([prepared('docker-image', cdkd)], aws).catch((e) => e);
    expect(err.code).toBe('CONTAINER_REPOSITORY_MISSING');
    expect(err.message).toContain(
      'ECR repository cdkd-container-assets-1-eu-west-1 in eu-west-1, which does not exist',
    );
    expect(err.message).toContain('Api: Service/Image');
    expect(err.remedy).toBe(
      'Create it once, then run the command again: aws ecr create-repository --repository-name cdkd-container-assets-1-eu-west-1 --region eu-west-1',
    );
  });

  it('leaves any other answer to the push, which reports it', async () => {
    ecr
      .on(DescribeRepositoriesCommand)
      .rejects(Object.assign(new Error('no'), { name: 'AccessDeniedException' }));
    await expect(assertContainerRepositories([prepared('docker-image', cdkd)], aws)).resolves.toBeUndefined();
  });
});

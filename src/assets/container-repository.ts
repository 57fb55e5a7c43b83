/**
 * cdkd bootstrap records the ECR repository a region's container image assets
 * go to, but does not create it yet. An app with an image asset therefore
 * checks, before anything is uploaded, that the repository exists, and
 * otherwise fails naming the stack, the assets, the repository and the command
 * that creates it. Apps without image assets never hear of it.
 */
import type * as EcrModule from '@aws-sdk/client-ecr';
import type { AwsClientFactory } from '../config/aws-clients';
import { AssetPublishError } from '../util/errors';
import type { PreparedStackAssets } from './prepare';

export async function assertContainerRepositories(
  prepared: readonly PreparedStackAssets[],
  aws: AwsClientFactory,
): Promise<void> {
  const needed = new Map<string, { region: string; repository: string; assets: string[] }>();
  for (const p of prepared) {
    if (p.mode.mode !== 'cdkd' || !p.mode.containerRepository) continue;
    const images = p.assets.filter((a) => a.type === 'docker-image');
    if (images.length === 0) continue;
    const region = p.stack.environment.region;
    const key = `${region}|${p.mode.containerRepository}`;
    const entry = needed.get(key) ?? { region, repository: p.mode.containerRepository, assets: [] };
    entry.assets.push(...images.map((a) => `${a.stack}: ${a.displayName}`));
    needed.set(key, entry);
  }
  if (needed.size === 0) return;
  const { ECRClient, DescribeRepositoriesCommand } = require('@aws-sdk/client-ecr') as typeof EcrModule;
  for (const { region, repository, assets } of needed.values()) {
    try {
      await aws
        .get(ECRClient, { region })
        .send(new DescribeRepositoriesCommand({ repositoryNames: [repository] }));
    } catch (err) {
      // Anything else (no permission to describe, say) is left to the push, which reports it.
      if ((err as Error).name !== 'RepositoryNotFoundException') continue;
      throw new AssetPublishError(
        `Container image assets go to the ECR repository ${repository} in ${region}, which does not exist (cdkd bootstrap records it but does not create it yet):\n  ${assets.join('\n  ')}`,
        {
          code: 'CONTAINER_REPOSITORY_MISSING',
          cause: err,
          remedy: `Create it once, then run the command again: aws ecr create-repository --repository-name ${repository} --region ${region}`,
        },
      );
    }
  }
}

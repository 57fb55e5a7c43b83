/**
 * cdkd's own provider packs and the types each provisions: what the deploy
 * summary names when a resource went to Cloud Control only because its pack is
 * not installed. Bundled packs come with cdkd; the others are one
 * `cdkd plugins install` away.
 */

/** One first-party pack. */
export interface FirstPartyPack {
  name: string;
  /** Installed with cdkd itself (an oclif core plugin). */
  bundled: boolean;
  types: readonly string[];
}

export const FIRST_PARTY_PACKS: readonly FirstPartyPack[] = [
  {
    name: '@cdkd/provider-iam',
    bundled: true,
    types: [
      'AWS::IAM::Role',
      'AWS::IAM::Policy',
      'AWS::IAM::ManagedPolicy',
      'AWS::IAM::InstanceProfile',
      'AWS::IAM::User',
      'AWS::IAM::Group',
      'AWS::IAM::UserToGroupAddition',
      'AWS::IAM::AccessKey',
    ],
  },
  {
    name: '@cdkd/provider-lambda',
    bundled: true,
    types: [
      'AWS::Lambda::Function',
      'AWS::Lambda::Permission',
      'AWS::Lambda::Version',
      'AWS::Lambda::Alias',
      'AWS::Lambda::Url',
      'AWS::Lambda::EventSourceMapping',
      'AWS::Lambda::LayerVersion',
      'AWS::Lambda::EventInvokeConfig',
    ],
  },
  { name: '@cdkd/provider-s3', bundled: true, types: ['AWS::S3::Bucket', 'AWS::S3::BucketPolicy'] },
  { name: '@cdkd/provider-sqs', bundled: true, types: ['AWS::SQS::Queue', 'AWS::SQS::QueuePolicy'] },
  {
    name: '@cdkd/provider-sns',
    bundled: true,
    types: ['AWS::SNS::Topic', 'AWS::SNS::Subscription', 'AWS::SNS::TopicPolicy'],
  },
  { name: '@cdkd/provider-dynamodb', bundled: true, types: ['AWS::DynamoDB::Table'] },
  { name: '@cdkd/provider-logs', bundled: true, types: ['AWS::Logs::LogGroup'] },
  { name: '@cdkd/provider-ssm', bundled: false, types: ['AWS::SSM::Parameter'] },
  { name: '@cdkd/provider-events', bundled: false, types: ['AWS::Events::Rule', 'AWS::Events::EventBus'] },
  { name: '@cdkd/provider-secretsmanager', bundled: false, types: ['AWS::SecretsManager::Secret'] },
  { name: '@cdkd/provider-kms', bundled: false, types: ['AWS::KMS::Key', 'AWS::KMS::Alias'] },
];

const BY_TYPE = new Map<string, FirstPartyPack>(
  FIRST_PARTY_PACKS.flatMap((pack) => pack.types.map((type) => [type, pack] as const)),
);

/** The first-party pack that provisions `type`, if there is one. */
export function firstPartyPackFor(type: string): FirstPartyPack | undefined {
  return BY_TYPE.get(type);
}

/** How to get a first-party pack that is not installed. */
export function firstPartyInstallHint(pack: FirstPartyPack): string {
  return pack.bundled
    ? `${pack.name} is bundled with cdkd: reinstall cdkd (or run \`cdkd plugins install ${pack.name}\`)`
    : `cdkd plugins install ${pack.name}`;
}

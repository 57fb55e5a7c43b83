/**
 * AWS managed policies (`arn:aws:iam::aws:policy/...`) that CDK apps commonly
 * attach, with documents of the same shape as AWS's. They exist in every
 * account, as in AWS; more can be added through the control API
 * (`POST /_emulator/iam/aws-managed-policies`). The documents are abridged:
 * they carry the actions that matter for emulated calls, not AWS's full
 * current text.
 */
import { createHash } from 'node:crypto';
import type { ManagedPolicy } from './store';

interface Seed {
  name: string;
  path?: string;
  description: string;
  statements: Array<Record<string, unknown>>;
}

const allow = (Action: string | string[], Resource: string | string[] = '*') => ({
  Effect: 'Allow',
  Action,
  Resource,
});

const SEEDS: Seed[] = [
  {
    name: 'AdministratorAccess',
    description: 'Provides full access to AWS services and resources.',
    statements: [allow('*')],
  },
  {
    name: 'PowerUserAccess',
    description:
      'Provides full access to AWS services and resources, but does not allow management of Users and groups.',
    statements: [
      { Effect: 'Allow', NotAction: ['iam:*', 'organizations:*', 'account:*'], Resource: '*' },
      allow([
        'iam:CreateServiceLinkedRole',
        'iam:DeleteServiceLinkedRole',
        'iam:ListRoles',
        'organizations:DescribeOrganization',
        'account:ListRegions',
      ]),
    ],
  },
  {
    name: 'ReadOnlyAccess',
    description: 'Provides read-only access to AWS services and resources.',
    statements: [allow(['*:Describe*', '*:Get*', '*:List*'])],
  },
  {
    name: 'AmazonS3FullAccess',
    description: 'Provides full access to all buckets via the AWS Management Console.',
    statements: [allow(['s3:*', 's3-object-lambda:*'])],
  },
  {
    name: 'AmazonS3ReadOnlyAccess',
    description: 'Provides read only access to all buckets via the AWS Management Console.',
    statements: [
      allow(['s3:Get*', 's3:List*', 's3:Describe*', 's3-object-lambda:Get*', 's3-object-lambda:List*']),
    ],
  },
  {
    name: 'AmazonDynamoDBFullAccess',
    description: 'Provides full access to Amazon DynamoDB via the AWS Management Console.',
    statements: [allow(['dynamodb:*', 'dax:*', 'application-autoscaling:*', 'cloudwatch:*'])],
  },
  {
    name: 'AmazonDynamoDBReadOnlyAccess',
    description: 'Provides read only access to Amazon DynamoDB via the AWS Management Console.',
    statements: [
      allow([
        'dynamodb:BatchGetItem',
        'dynamodb:Describe*',
        'dynamodb:List*',
        'dynamodb:GetItem',
        'dynamodb:Query',
        'dynamodb:Scan',
        'dynamodb:PartiQLSelect',
      ]),
    ],
  },
  {
    name: 'AmazonSQSFullAccess',
    description: 'Provides full access to Amazon SQS via the AWS Management Console.',
    statements: [allow('sqs:*')],
  },
  {
    name: 'AmazonSNSFullAccess',
    description: 'Provides full access to Amazon SNS via the AWS Management Console.',
    statements: [allow('sns:*')],
  },
  {
    name: 'CloudWatchLogsFullAccess',
    description: 'Provides full access to CloudWatch Logs',
    statements: [allow(['logs:*', 'cloudwatch:GenerateQuery'])],
  },
  {
    name: 'CloudWatchAgentServerPolicy',
    description: 'Permissions required to use AmazonCloudWatchAgent on servers',
    statements: [
      allow([
        'cloudwatch:PutMetricData',
        'ec2:DescribeVolumes',
        'ec2:DescribeTags',
        'logs:PutLogEvents',
        'logs:PutRetentionPolicy',
        'logs:DescribeLogStreams',
        'logs:DescribeLogGroups',
        'logs:CreateLogStream',
        'logs:CreateLogGroup',
      ]),
      allow('ssm:GetParameter', 'arn:aws:ssm:*:*:parameter/AmazonCloudWatch-*'),
    ],
  },
  {
    name: 'AmazonSSMManagedInstanceCore',
    description: 'The policy for Amazon EC2 Role to enable AWS Systems Manager service core functionality.',
    statements: [
      allow([
        'ssm:DescribeAssociation',
        'ssm:GetDeployablePatchSnapshotForInstance',
        'ssm:GetDocument',
        'ssm:DescribeDocument',
        'ssm:GetManifest',
        'ssm:GetParameter',
        'ssm:GetParameters',
        'ssm:ListAssociations',
        'ssm:ListInstanceAssociations',
        'ssm:PutInventory',
        'ssm:PutComplianceItems',
        'ssm:PutConfigurePackageResult',
        'ssm:UpdateAssociationStatus',
        'ssm:UpdateInstanceAssociationStatus',
        'ssm:UpdateInstanceInformation',
      ]),
      allow([
        'ssmmessages:CreateControlChannel',
        'ssmmessages:CreateDataChannel',
        'ssmmessages:OpenControlChannel',
        'ssmmessages:OpenDataChannel',
      ]),
      allow([
        'ec2messages:AcknowledgeMessage',
        'ec2messages:DeleteMessage',
        'ec2messages:FailMessage',
        'ec2messages:GetEndpoint',
        'ec2messages:GetMessages',
        'ec2messages:SendReply',
      ]),
    ],
  },
  {
    name: 'AmazonEC2ContainerRegistryReadOnly',
    description: 'Provides read-only access to Amazon EC2 Container Registry repositories.',
    statements: [
      allow([
        'ecr:GetAuthorizationToken',
        'ecr:BatchCheckLayerAvailability',
        'ecr:GetDownloadUrlForLayer',
        'ecr:GetRepositoryPolicy',
        'ecr:DescribeRepositories',
        'ecr:ListImages',
        'ecr:DescribeImages',
        'ecr:BatchGetImage',
        'ecr:GetLifecyclePolicy',
        'ecr:GetLifecyclePolicyPreview',
        'ecr:ListTagsForResource',
        'ecr:DescribeImageScanFindings',
      ]),
    ],
  },
  {
    name: 'AWSXRayDaemonWriteAccess',
    description:
      "Allow the AWS X-Ray Daemon to relay raw trace segments data to the service's API and retrieve sampling data (rules, targets, etc.) to be used by the X-Ray SDK.",
    statements: [
      allow([
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'xray:GetSamplingRules',
        'xray:GetSamplingTargets',
        'xray:GetSamplingStatisticSummaries',
      ]),
    ],
  },
  {
    name: 'AmazonEKSClusterPolicy',
    description:
      'This policy provides Kubernetes the permissions it requires to manage resources on your behalf.',
    statements: [
      allow([
        'autoscaling:DescribeAutoScalingGroups',
        'autoscaling:UpdateAutoScalingGroup',
        'ec2:AttachVolume',
        'ec2:AuthorizeSecurityGroupIngress',
        'ec2:CreateRoute',
        'ec2:CreateSecurityGroup',
        'ec2:CreateTags',
        'ec2:CreateVolume',
        'ec2:DeleteRoute',
        'ec2:DeleteSecurityGroup',
        'ec2:DeleteVolume',
        'ec2:Describe*',
        'ec2:DetachVolume',
        'ec2:ModifyInstanceAttribute',
        'ec2:ModifyVolume',
        'ec2:RevokeSecurityGroupIngress',
        'elasticloadbalancing:*',
        'kms:DescribeKey',
      ]),
    ],
  },
  {
    name: 'AmazonEKSWorkerNodePolicy',
    description: 'This policy allows Amazon EKS worker nodes to connect to Amazon EKS Clusters.',
    statements: [
      allow([
        'ec2:DescribeInstances',
        'ec2:DescribeInstanceTypes',
        'ec2:DescribeRouteTables',
        'ec2:DescribeSecurityGroups',
        'ec2:DescribeSubnets',
        'ec2:DescribeVolumes',
        'ec2:DescribeVolumesModifications',
        'ec2:DescribeVpcs',
        'eks:DescribeCluster',
        'eks-auth:AssumeRoleForPodIdentity',
      ]),
    ],
  },
  {
    name: 'AmazonEKS_CNI_Policy',
    description:
      'This policy provides the Amazon VPC CNI Plugin (amazon-vpc-cni-k8s) the permissions it requires to modify the IP address configuration on your EKS worker nodes.',
    statements: [
      allow([
        'ec2:AssignPrivateIpAddresses',
        'ec2:AttachNetworkInterface',
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeInstances',
        'ec2:DescribeTags',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeInstanceTypes',
        'ec2:DetachNetworkInterface',
        'ec2:ModifyNetworkInterfaceAttribute',
        'ec2:UnassignPrivateIpAddresses',
      ]),
      allow('ec2:CreateTags', 'arn:aws:ec2:*:*:network-interface/*'),
    ],
  },
  {
    name: 'AWSLambda_FullAccess',
    description:
      'Grants full access to AWS Lambda service, AWS Lambda console features, and other related AWS services.',
    statements: [
      allow([
        'lambda:*',
        'logs:DescribeLogGroups',
        'logs:DescribeLogStreams',
        'logs:GetLogEvents',
        'logs:FilterLogEvents',
      ]),
    ],
  },
  {
    name: 'AWSStepFunctionsFullAccess',
    description: 'An access policy for providing a user/role/etc access to the AWS StepFunctions API.',
    statements: [allow('states:*')],
  },
  {
    name: 'SecretsManagerReadWrite',
    description: 'Provides read/write access to AWS Secrets Manager via the AWS Management Console.',
    statements: [allow(['secretsmanager:*', 'kms:DescribeKey', 'kms:ListAliases', 'kms:ListKeys'])],
  },
  {
    name: 'AWSLambdaBasicExecutionRole',
    path: '/service-role/',
    description: 'Provides write permissions to CloudWatch Logs.',
    statements: [allow(['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'])],
  },
  {
    name: 'AWSLambdaVPCAccessExecutionRole',
    path: '/service-role/',
    description:
      'Provides minimum permissions for a Lambda function to execute while accessing a resource within a VPC - create, describe, delete network interfaces and write permissions to CloudWatch Logs.',
    statements: [
      allow([
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'ec2:CreateNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSubnets',
        'ec2:DeleteNetworkInterface',
        'ec2:AssignPrivateIpAddresses',
        'ec2:UnassignPrivateIpAddresses',
      ]),
    ],
  },
  {
    name: 'AWSLambdaSQSQueueExecutionRole',
    path: '/service-role/',
    description:
      'Provides receive message, delete message, and read attribute access to SQS queues, and write permissions to CloudWatch logs.',
    statements: [
      allow([
        'sqs:ReceiveMessage',
        'sqs:DeleteMessage',
        'sqs:GetQueueAttributes',
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]),
    ],
  },
  {
    name: 'AWSLambdaDynamoDBExecutionRole',
    path: '/service-role/',
    description:
      'Provides list and read access to DynamoDB streams and write permissions to CloudWatch logs.',
    statements: [
      allow([
        'dynamodb:DescribeStream',
        'dynamodb:GetRecords',
        'dynamodb:GetShardIterator',
        'dynamodb:ListStreams',
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]),
    ],
  },
  {
    name: 'AWSLambdaKinesisExecutionRole',
    path: '/service-role/',
    description: 'Provides list and read access to Kinesis streams and write permissions to CloudWatch logs.',
    statements: [
      allow([
        'kinesis:DescribeStream',
        'kinesis:DescribeStreamSummary',
        'kinesis:GetRecords',
        'kinesis:GetShardIterator',
        'kinesis:ListShards',
        'kinesis:ListStreams',
        'kinesis:SubscribeToShard',
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]),
    ],
  },
  {
    name: 'AmazonECSTaskExecutionRolePolicy',
    path: '/service-role/',
    description: 'Provides access to other AWS service resources that are required to run Amazon ECS tasks',
    statements: [
      allow([
        'ecr:GetAuthorizationToken',
        'ecr:BatchCheckLayerAvailability',
        'ecr:GetDownloadUrlForLayer',
        'ecr:BatchGetImage',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
      ]),
    ],
  },
  {
    name: 'AmazonAPIGatewayPushToCloudWatchLogs',
    path: '/service-role/',
    description: "Allows API Gateway to push logs to user's account.",
    statements: [
      allow([
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:DescribeLogGroups',
        'logs:DescribeLogStreams',
        'logs:PutLogEvents',
        'logs:GetLogEvents',
        'logs:FilterLogEvents',
      ]),
    ],
  },
  {
    name: 'AWSGlueServiceRole',
    path: '/service-role/',
    description:
      'Policy for AWS Glue service role which allows access to related services including EC2, S3, and Cloudwatch Logs',
    statements: [
      allow([
        'glue:*',
        's3:GetBucketLocation',
        's3:ListBucket',
        's3:ListAllMyBuckets',
        's3:GetBucketAcl',
        'ec2:DescribeVpcEndpoints',
        'ec2:DescribeRouteTables',
        'ec2:CreateNetworkInterface',
        'ec2:DeleteNetworkInterface',
        'ec2:DescribeNetworkInterfaces',
        'ec2:DescribeSecurityGroups',
        'ec2:DescribeSubnets',
        'ec2:DescribeVpcAttribute',
        'iam:ListRolePolicies',
        'iam:GetRole',
        'iam:GetRolePolicy',
        'cloudwatch:PutMetricData',
      ]),
    ],
  },
  {
    name: 'AWSCodeDeployRoleForLambda',
    path: '/service-role/',
    description: 'Provides CodeDeploy service access to perform a Lambda deployment on your behalf.',
    statements: [
      allow([
        'cloudwatch:DescribeAlarms',
        'lambda:UpdateAlias',
        'lambda:GetAlias',
        'lambda:GetProvisionedConcurrencyConfig',
        'sns:Publish',
      ]),
      allow('s3:GetObject', 'arn:aws:s3:::*/CodeDeploy/*'),
      allow('lambda:InvokeFunction', 'arn:aws:lambda:*:*:function:CodeDeployHook_*'),
    ],
  },
  {
    name: 'AWSConfigRole',
    path: '/service-role/',
    description: 'Provides permissions required by AWS Config to collect configuration details.',
    statements: [
      allow([
        'config:Put*',
        'config:Get*',
        'config:List*',
        'config:Describe*',
        'config:BatchGet*',
        'config:Select*',
      ]),
    ],
  },
];

/** A stable `ANPA...` id per policy name, as AWS keeps one id per AWS managed policy. */
function policyId(name: string): string {
  const digest = createHash('sha256').update(`aws-managed:${name}`).digest();
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let out = 'ANPA';
  for (let i = 0; i < 17; i++) out += alphabet[digest[i]! & 31];
  return out;
}

/** A fresh copy of the built-in AWS managed policies. */
export function AWS_MANAGED_POLICIES(): ManagedPolicy[] {
  return SEEDS.map((seed) =>
    awsManagedPolicy(seed.name, seed.path ?? '/', seed.description, {
      Version: '2012-10-17',
      Statement: seed.statements,
    }),
  );
}

/** An AWS managed policy record (also for the ones the control API adds). */
export function awsManagedPolicy(
  name: string,
  path: string,
  description: string | undefined,
  document: unknown,
): ManagedPolicy {
  const created = '2015-02-06T18:40:00.000Z';
  return {
    account: 'aws',
    name,
    id: policyId(name),
    path,
    arn: `arn:aws:iam::aws:policy${path}${name}`,
    description,
    tags: [],
    created,
    updated: created,
    versions: [{ versionId: 'v1', document: JSON.stringify(document, null, 4), created }],
    defaultVersionId: 'v1',
    nextVersion: 2,
  };
}

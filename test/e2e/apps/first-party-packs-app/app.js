// One app with every type of every first-party provider pack, bundled and
// installable (see test/e2e/first-party-packs.test.ts). `-c variant=v2`
// changes properties in place, removes some (each back to AWS's default) and
// renames a queue and a parameter (create-only names: replacements, and the
// queue's dependants follow it).
'use strict';
const path = require('node:path');
const cdk = require('aws-cdk-lib');
const dynamodb = require('aws-cdk-lib/aws-dynamodb');
const events = require('aws-cdk-lib/aws-events');
const targets = require('aws-cdk-lib/aws-events-targets');
const iam = require('aws-cdk-lib/aws-iam');
const kms = require('aws-cdk-lib/aws-kms');
const lambda = require('aws-cdk-lib/aws-lambda');
const sources = require('aws-cdk-lib/aws-lambda-event-sources');
const logs = require('aws-cdk-lib/aws-logs');
const s3 = require('aws-cdk-lib/aws-s3');
const secretsmanager = require('aws-cdk-lib/aws-secretsmanager');
const sns = require('aws-cdk-lib/aws-sns');
const subscriptions = require('aws-cdk-lib/aws-sns-subscriptions');
const sqs = require('aws-cdk-lib/aws-sqs');
const ssm = require('aws-cdk-lib/aws-ssm');

const app = new cdk.App();
const v1 = (app.node.tryGetContext('variant') ?? 'v1') === 'v1';
const stack = new cdk.Stack(app, 'FirstPartyPacks', {
  stackName: app.node.tryGetContext('stackName') ?? 'E2eFirstPartyPacks',
});
const destroy = cdk.RemovalPolicy.DESTROY;

// DynamoDB, Logs
const table = new dynamodb.Table(stack, 'Table', {
  partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
  billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
  pointInTimeRecoverySpecification: v1 ? { pointInTimeRecoveryEnabled: true } : undefined,
  removalPolicy: destroy,
});
const logGroup = new logs.LogGroup(stack, 'Logs', {
  retention: v1 ? logs.RetentionDays.ONE_WEEK : logs.RetentionDays.ONE_MONTH,
  removalPolicy: destroy,
});

// SQS (the queue's name is create-only: v2 replaces it)
const queue = new sqs.Queue(stack, 'Jobs', {
  queueName: `${stack.stackName}-jobs-${v1 ? 'a' : 'b'}`,
  visibilityTimeout: cdk.Duration.seconds(v1 ? 60 : 90),
  removalPolicy: destroy,
});

// Lambda
const layer = new lambda.LayerVersion(stack, 'Layer', {
  code: lambda.Code.fromAsset(path.join(__dirname, 'layer')),
  compatibleRuntimes: [lambda.Runtime.NODEJS_22_X],
  description: 'shared code',
  removalPolicy: destroy,
});
const fn = new lambda.Function(stack, 'Handler', {
  runtime: lambda.Runtime.NODEJS_22_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async (event) => ({ ok: true, event });'),
  timeout: cdk.Duration.seconds(v1 ? 10 : 20),
  // v2 removes the memory size and the environment.
  ...(v1 ? { memorySize: 256, environment: { TABLE: table.tableName } } : {}),
  layers: [layer],
  logGroup,
});
table.grantReadData(fn);
fn.addPermission('SnsInvoke', { principal: new iam.ServicePrincipal('sns.amazonaws.com') });
const version = new lambda.Version(stack, 'Version', { lambda: fn, removalPolicy: destroy });
new lambda.Alias(stack, 'Live', { aliasName: 'live', version });
fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
fn.configureAsyncInvoke({ retryAttempts: v1 ? 0 : 1 });
fn.addEventSource(new sources.SqsEventSource(queue, { batchSize: v1 ? 5 : 7 }));

// IAM (the function's role and its grant policy are above)
new iam.ManagedPolicy(stack, 'Shared', {
  ...(v1 ? { description: 'shared by the app' } : {}),
  statements: [new iam.PolicyStatement({ actions: [v1 ? 'sqs:SendMessage' : 'sqs:*'], resources: ['*'] })],
  roles: [fn.role],
});
new iam.InstanceProfile(stack, 'Profile', { role: fn.role });
const group = new iam.Group(stack, 'Team');
const user = new iam.User(stack, 'Person', { groups: [group] });
const other = new iam.Group(stack, 'Other');
new iam.CfnUserToGroupAddition(stack, 'Membership', { groupName: other.groupName, users: [user.userName] });
new iam.AccessKey(stack, 'Key', {
  user,
  status: v1 ? iam.AccessKeyStatus.ACTIVE : iam.AccessKeyStatus.INACTIVE,
});

// S3
const bucket = new s3.Bucket(stack, 'Bucket', { removalPolicy: destroy });
bucket.addToResourcePolicy(
  new iam.PolicyStatement({
    actions: v1 ? ['s3:GetObject'] : ['s3:GetObject', 's3:ListBucket'],
    resources: [bucket.bucketArn, bucket.arnForObjects('*')],
    principals: [new iam.AccountRootPrincipal()],
  }),
);

// SNS (the subscription to the queue also makes the queue's policy)
const topic = new sns.Topic(stack, 'Topic', { ...(v1 ? { displayName: 'jobs' } : {}) });
topic.addSubscription(new subscriptions.SqsSubscription(queue, { rawMessageDelivery: v1 }));
topic.addToResourcePolicy(
  new iam.PolicyStatement({
    actions: ['sns:Publish'],
    resources: [topic.topicArn],
    principals: [new iam.AccountRootPrincipal()],
  }),
);

// Installable: SSM (a create-only name: v2 replaces it), EventBridge, Secrets Manager, KMS
new ssm.StringParameter(stack, 'Setting', {
  parameterName: v1 ? '/e2e/first-party/a' : '/e2e/first-party/b',
  stringValue: v1 ? 'one' : 'two',
  ...(v1 ? { description: 'described' } : {}),
});
const bus = new events.EventBus(stack, 'Bus', { ...(v1 ? { description: 'app events' } : {}) });
new events.Rule(stack, 'OnJob', {
  eventBus: bus,
  eventPattern: { source: [v1 ? 'app.jobs' : 'app.work'] },
  targets: [new targets.LambdaFunction(fn)],
});
new events.Rule(stack, 'Hourly', {
  schedule: events.Schedule.rate(cdk.Duration.hours(v1 ? 1 : 2)),
  targets: [new targets.SqsQueue(queue)],
});
new secretsmanager.Secret(stack, 'Secret', {
  ...(v1 ? { description: 'generated' } : {}),
  generateSecretString: { secretStringTemplate: '{"user":"app"}', generateStringKey: 'password' },
  removalPolicy: destroy,
});
new kms.Key(stack, 'DataKey', {
  alias: 'alias/e2e-first-party',
  ...(v1 ? { description: 'app key' } : {}),
  enableKeyRotation: v1,
  pendingWindow: cdk.Duration.days(7),
  removalPolicy: destroy,
});

app.synth();

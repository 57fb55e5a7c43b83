// @ts-check
/**
 * The provider-pack benchmark's app: a realistic serverless shape repeated
 * `-c units=N` times. Each unit is what a CDK developer writes for one small
 * feature: a Lambda function (its role and policy, its log group) triggered by
 * a schedule rule, a bucket with a policy, a queue subscribed to a topic, a
 * table, a parameter. Inline code and no custom resources, so every resource
 * is one a provider pack or Cloud Control provisions.
 */
'use strict';
const cdk = require('aws-cdk-lib');
const dynamodb = require('aws-cdk-lib/aws-dynamodb');
const events = require('aws-cdk-lib/aws-events');
const targets = require('aws-cdk-lib/aws-events-targets');
const iam = require('aws-cdk-lib/aws-iam');
const lambda = require('aws-cdk-lib/aws-lambda');
const logs = require('aws-cdk-lib/aws-logs');
const s3 = require('aws-cdk-lib/aws-s3');
const sns = require('aws-cdk-lib/aws-sns');
const subscriptions = require('aws-cdk-lib/aws-sns-subscriptions');
const sqs = require('aws-cdk-lib/aws-sqs');
const ssm = require('aws-cdk-lib/aws-ssm');

const app = new cdk.App();
const units = Number(app.node.tryGetContext('units') ?? 4);
const stack = new cdk.Stack(app, 'PacksBench', {
  stackName: app.node.tryGetContext('stackName') ?? 'CdkdPacksBench',
});
const destroy = cdk.RemovalPolicy.DESTROY;

for (let i = 0; i < units; i++) {
  const unit = stack;
  const id = (/** @type {string} */ name) => `${name}${i}`;
  const table = new dynamodb.Table(unit, id('Table'), {
    partitionKey: { name: 'pk', type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    removalPolicy: destroy,
  });
  const logGroup = new logs.LogGroup(unit, id('Logs'), {
    retention: logs.RetentionDays.ONE_WEEK,
    removalPolicy: destroy,
  });
  const fn = new lambda.Function(unit, id('Handler'), {
    runtime: lambda.Runtime.NODEJS_20_X,
    handler: 'index.handler',
    code: lambda.Code.fromInline('exports.handler = async () => ({ ok: true });'),
    environment: { TABLE: table.tableName },
    logGroup,
  });
  table.grantReadWriteData(fn);
  new events.Rule(unit, id('Schedule'), {
    schedule: events.Schedule.rate(cdk.Duration.hours(1)),
    targets: [new targets.LambdaFunction(fn)],
  });
  const bucket = new s3.Bucket(unit, id('Bucket'), { removalPolicy: destroy });
  bucket.addToResourcePolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects('*')],
      principals: [new iam.AccountRootPrincipal()],
    }),
  );
  const topic = new sns.Topic(unit, id('Topic'));
  const queue = new sqs.Queue(unit, id('Queue'), { removalPolicy: destroy });
  topic.addSubscription(new subscriptions.SqsSubscription(queue));
  new ssm.StringParameter(unit, id('Setting'), {
    stringValue: `unit ${i}`,
    description: 'benchmark setting',
  });
}

app.synth();

// The pre-create checks and removal policies on a real aws-cdk-lib app. Context:
//   shape=good     a queue, a parameter and a log group
//   shape=bad      the same plus two broken resources (escape hatches past CDK's own checks):
//                  a parameter without its required Value, a queue with a string VisibilityTimeout
//   shape=empty    no resources at all
//   shape=removed  the log group only (the queue and parameter are gone from the app)
//   queuePolicy=Snapshot|Retain|...   the queue's DeletionPolicy
'use strict';
const cdk = require('aws-cdk-lib');
const sqs = require('aws-cdk-lib/aws-sqs');
const ssm = require('aws-cdk-lib/aws-ssm');
const logs = require('aws-cdk-lib/aws-logs');

const app = new cdk.App();
const shape = app.node.tryGetContext('shape') ?? 'good';
const queuePolicy = app.node.tryGetContext('queuePolicy');
const stack = new cdk.Stack(app, 'Preflight', {
  stackName: app.node.tryGetContext('stackName') ?? 'Preflight',
});

if (shape === 'good' || shape === 'bad') {
  const queue = new sqs.Queue(stack, 'Queue', { visibilityTimeout: cdk.Duration.seconds(30) });
  if (queuePolicy) queue.node.defaultChild.cfnOptions.deletionPolicy = queuePolicy;
  new ssm.StringParameter(stack, 'Parameter', { stringValue: 'hello' });
}
if (shape !== 'empty') {
  new logs.LogGroup(stack, 'LogGroup', {
    retention: logs.RetentionDays.ONE_WEEK,
    removalPolicy: cdk.RemovalPolicy.DESTROY,
  });
}
if (shape === 'bad') {
  const missing = new ssm.CfnParameter(stack, 'NoValue', { type: 'String', value: 'x' });
  missing.addPropertyDeletionOverride('Value');
  const wrong = new sqs.CfnQueue(stack, 'WrongType', {});
  wrong.addPropertyOverride('VisibilityTimeout', 'thirty seconds');
}

app.synth();

// Several stacks for stack selection: a producer, a consumer that imports the
// producer's queue ARN through a cross-stack reference, and a stack in a Stage.
'use strict';
const cdk = require('aws-cdk-lib');
const sqs = require('aws-cdk-lib/aws-sqs');
const ssm = require('aws-cdk-lib/aws-ssm');

const app = new cdk.App();

const producer = new cdk.Stack(app, 'Producer');
const queue = new sqs.Queue(producer, 'Queue');

const consumer = new cdk.Stack(app, 'Consumer');
new ssm.StringParameter(consumer, 'QueueArnParameter', {
  description: 'ARN of the producer queue (cross-stack reference)',
  stringValue: queue.queueArn,
});

const stage = new cdk.Stage(app, 'Staging');
const staged = new cdk.Stack(stage, 'Service');
new sqs.Queue(staged, 'Queue');

app.synth();

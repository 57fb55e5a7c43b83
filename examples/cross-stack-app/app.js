// Stacks that read each other only through hand-written cross-stack references
// (Fn::ImportValue of an export name, Fn::GetStackOutput), which give the
// cloud assembly no dependency: cdkd must order them itself. The readers are
// defined first, so the assembly lists them before the stacks they read.
'use strict';
const cdk = require('aws-cdk-lib');
const sqs = require('aws-cdk-lib/aws-sqs');
const sns = require('aws-cdk-lib/aws-sns');
const ssm = require('aws-cdk-lib/aws-ssm');

const app = new cdk.App();
const prefix = app.node.tryGetContext('prefix') ?? 'Refs';
const exportName = `${prefix}-shared-queue-arn`;

// Reads Writer's output with Fn::GetStackOutput (cdkd's weak reference).
const reader = new cdk.Stack(app, `${prefix}Reader`);
const read = new ssm.CfnParameter(reader, 'WriterQueueUrl', { type: 'String', value: 'placeholder' });
read.addPropertyOverride('Value', {
  'Fn::GetStackOutput': { StackName: `${prefix}Writer`, OutputName: 'QueueUrl' },
});

// Imports Exporter's export by name.
const importer = new cdk.Stack(app, `${prefix}Importer`);
new ssm.StringParameter(importer, 'ImportedArn', { stringValue: cdk.Fn.importValue(exportName) });

// Imports the export of a stack whose deploy can be made to fail (its SNS topic).
const dependent = new cdk.Stack(app, `${prefix}Dependent`);
new ssm.StringParameter(dependent, 'TopicArn', {
  stringValue: cdk.Fn.importValue(`${prefix}-fragile-topic-arn`),
});

const exporter = new cdk.Stack(app, `${prefix}Exporter`);
const queue = new sqs.Queue(exporter, 'Queue');
new cdk.CfnOutput(exporter, 'QueueArn', { value: queue.queueArn, exportName });

const writer = new cdk.Stack(app, `${prefix}Writer`);
const writerQueue = new sqs.Queue(writer, 'Queue');
new cdk.CfnOutput(writer, 'QueueUrl', { value: writerQueue.queueUrl });

const fragile = new cdk.Stack(app, `${prefix}Fragile`);
const topic = new sns.Topic(fragile, 'Topic');
new cdk.CfnOutput(fragile, 'TopicArn', { value: topic.topicArn, exportName: `${prefix}-fragile-topic-arn` });

// Reads nothing and is read by nobody.
const independent = new cdk.Stack(app, `${prefix}Independent`);
new sqs.Queue(independent, 'Queue');

app.synth();

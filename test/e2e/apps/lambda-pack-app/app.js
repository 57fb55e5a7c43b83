// A function with the parts CDK apps give one: a permission, a version and an
// alias, a URL, an async invoke config and an SQS event source. Context
// switches drive the end-to-end test through update in place, property
// removal and replacement (see test/e2e/lambda-pack.test.ts).
'use strict';
const cdk = require('aws-cdk-lib');
const iam = require('aws-cdk-lib/aws-iam');
const lambda = require('aws-cdk-lib/aws-lambda');
const sources = require('aws-cdk-lib/aws-lambda-event-sources');
const sqs = require('aws-cdk-lib/aws-sqs');

const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const functionSuffix = app.node.tryGetContext('functionSuffix');
const stack = new cdk.Stack(app, 'LambdaPackApp', {
  stackName: app.node.tryGetContext('stackName') ?? 'CdkdLambdaPackApp',
});

const fn = new lambda.Function(stack, 'Handler', {
  runtime: lambda.Runtime.NODEJS_22_X,
  handler: 'index.handler',
  code: lambda.Code.fromInline('exports.handler = async (event) => ({ ok: true, event });'),
  // v2 changes the timeout in place and removes the memory size and environment.
  timeout: cdk.Duration.seconds(variant === 'v1' ? 10 : 20),
  ...(variant === 'v1' ? { memorySize: 256, environment: { STAGE: 'one' } } : {}),
  // A (create-only) name replaces the function and the parts that name it.
  functionName: functionSuffix ? `${stack.stackName}-fn-${functionSuffix}` : undefined,
});
fn.addPermission('SnsInvoke', { principal: new iam.ServicePrincipal('sns.amazonaws.com') });
const version = new lambda.Version(stack, 'Version', {
  lambda: fn,
  removalPolicy: cdk.RemovalPolicy.DESTROY,
});
new lambda.Alias(stack, 'Live', { aliasName: 'live', version });
const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
fn.configureAsyncInvoke({ retryAttempts: variant === 'v1' ? 0 : 1 });
const queue = new sqs.Queue(stack, 'Jobs');
fn.addEventSource(new sources.SqsEventSource(queue, { batchSize: variant === 'v1' ? 5 : 7 }));

new cdk.CfnOutput(stack, 'FunctionName', { value: fn.functionName });
new cdk.CfnOutput(stack, 'FunctionUrl', { value: url.url });

app.synth();

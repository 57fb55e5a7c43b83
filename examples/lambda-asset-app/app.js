// A Lambda function whose code is a local directory asset (zipped and
// published to the asset bucket), plus the IAM role CDK creates for it.
'use strict';
const path = require('node:path');
const cdk = require('aws-cdk-lib');
const lambda = require('aws-cdk-lib/aws-lambda');

const app = new cdk.App();
const stack = new cdk.Stack(app, 'LambdaAssetApp', {
  stackName: app.node.tryGetContext('stackName') ?? 'CdkdLambdaAssetApp',
});

const fn = new lambda.Function(stack, 'Handler', {
  runtime: lambda.Runtime.NODEJS_22_X,
  handler: 'index.handler',
  code: lambda.Code.fromAsset(path.join(__dirname, 'handler')),
  timeout: cdk.Duration.seconds(10),
});

new cdk.CfnOutput(stack, 'FunctionName', { value: fn.functionName });

app.synth();

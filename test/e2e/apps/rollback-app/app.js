// Three resources in a chain (queue -> parameter naming the queue -> log group
// after the parameter), so a deploy reaches them in order and the third can be
// made to fail with the first two done. Context switches drive the rollback
// end-to-end test (test/e2e/rollback.test.ts): `variant` updates the queue in
// place, `queueName` replaces it (a create-only name), `third=false` leaves the
// log group out.
'use strict';
const cdk = require('aws-cdk-lib');
const sqs = require('aws-cdk-lib/aws-sqs');
const ssm = require('aws-cdk-lib/aws-ssm');
const logs = require('aws-cdk-lib/aws-logs');

const app = new cdk.App();
const ctx = (k) => app.node.tryGetContext(k);
const variant = ctx('variant') ?? 'v1';
const stack = new cdk.Stack(app, 'RollbackApp', { stackName: ctx('stackName') ?? 'CdkdRollbackApp' });

const queue = new sqs.Queue(stack, 'Queue', {
  visibilityTimeout: cdk.Duration.seconds(variant === 'v1' ? 30 : 60),
  queueName: ctx('queueName'),
});
const withParameter = ctx('parameter') !== 'false';
const param = withParameter
  ? new ssm.StringParameter(stack, 'Parameter', { stringValue: queue.queueUrl })
  : undefined;
if (ctx('third') !== 'false') {
  const group = new logs.LogGroup(stack, 'LogGroup', {
    retention: logs.RetentionDays.ONE_WEEK,
    removalPolicy: cdk.RemovalPolicy.DESTROY,
  });
  if (param) group.node.addDependency(param);
  else group.node.addDependency(queue);
}
app.synth();

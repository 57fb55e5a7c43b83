// The IAM resources CDK apps make: a service role with a grant (an
// AWS::IAM::Policy) and a managed policy, an instance profile, a group with a
// user, a membership and an access key. Context switches drive the end-to-end
// test through update in place, property removal and replacement (see
// test/e2e/iam-pack.test.ts).
'use strict';
const cdk = require('aws-cdk-lib');
const iam = require('aws-cdk-lib/aws-iam');

const app = new cdk.App();
const variant = app.node.tryGetContext('variant') ?? 'v1';
const roleSuffix = app.node.tryGetContext('roleSuffix');
const stack = new cdk.Stack(app, 'IamPackApp', {
  stackName: app.node.tryGetContext('stackName') ?? 'CdkdIamPackApp',
});

const role = new iam.Role(stack, 'ServiceRole', {
  assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
  // v2 removes the description and the session duration: back to IAM's defaults.
  ...(variant === 'v1' ? { description: 'first', maxSessionDuration: cdk.Duration.hours(2) } : {}),
  // A (create-only) name replaces the role.
  roleName: roleSuffix ? `${stack.stackName}-role-${roleSuffix}` : undefined,
  managedPolicies: [iam.ManagedPolicy.fromAwsManagedPolicyName('service-role/AWSLambdaBasicExecutionRole')],
});
role.addToPolicy(
  new iam.PolicyStatement({
    actions: variant === 'v1' ? ['s3:GetObject'] : ['s3:GetObject', 's3:PutObject'],
    resources: ['*'],
  }),
);
new iam.ManagedPolicy(stack, 'Shared', {
  description: 'shared by the app',
  statements: [
    new iam.PolicyStatement({ actions: [variant === 'v1' ? 'sqs:SendMessage' : 'sqs:*'], resources: ['*'] }),
  ],
  roles: [role],
});
new iam.InstanceProfile(stack, 'Profile', { role });
const group = new iam.Group(stack, 'Team');
const user = new iam.User(stack, 'Person', { groups: [group] });
const other = new iam.Group(stack, 'Other');
// A membership of its own (what CDK makes for a user the app only references).
new iam.CfnUserToGroupAddition(stack, 'Membership', { groupName: other.groupName, users: [user.userName] });
new iam.AccessKey(stack, 'Key', {
  user,
  status: variant === 'v1' ? iam.AccessKeyStatus.ACTIVE : iam.AccessKeyStatus.INACTIVE,
});

new cdk.CfnOutput(stack, 'RoleArn', { value: role.roleArn });

app.synth();

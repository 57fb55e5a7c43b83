// Every way a secret reaches a CDK stack: a NoEcho parameter, a Secrets Manager
// reference, an SSM SecureString reference, and an IAM access key whose secret
// is stored in a Secrets Manager secret (test/e2e/secrets.test.ts).
'use strict';
const cdk = require('aws-cdk-lib');
const iam = require('aws-cdk-lib/aws-iam');
const secretsmanager = require('aws-cdk-lib/aws-secretsmanager');
const ssm = require('aws-cdk-lib/aws-ssm');

const app = new cdk.App();
const stack = new cdk.Stack(app, 'SecretsApp', {
  stackName: app.node.tryGetContext('stackName') ?? 'CdkdSecretsApp',
});

const password = new cdk.CfnParameter(stack, 'DbPassword', { type: 'String', noEcho: true });

// The NoEcho value, stored in a parameter (and a plain output, as apps do by mistake).
new ssm.CfnParameter(stack, 'FromNoEcho', { type: 'String', value: password.valueAsString });
new cdk.CfnOutput(stack, 'Echoed', { value: password.valueAsString });

// A Secrets Manager reference (a JSON key of the secret).
new ssm.CfnParameter(stack, 'FromSecretsManager', {
  type: 'String',
  value: cdk.SecretValue.secretsManager('e2e/db', { jsonField: 'password' }).unsafeUnwrap(),
});

// An SSM SecureString reference.
new secretsmanager.Secret(stack, 'FromSecureString', {
  secretStringValue: cdk.SecretValue.ssmSecure('/e2e/secure'),
});

// An access key, its secret kept in a secret.
const user = new iam.User(stack, 'Deployer');
const key = new iam.AccessKey(stack, 'Key', { user });
new secretsmanager.Secret(stack, 'KeySecret', { secretStringValue: key.secretAccessKey });

// A create that carries a NoEcho value and a secret reference in one property: the e2e kills
// the deploy while it is in flight, and the re-run settles it (context inFlight=1).
if (app.node.tryGetContext('inFlight')) {
  new ssm.CfnParameter(stack, 'InFlight', {
    type: 'String',
    value: cdk.Fn.join('|', [
      password.valueAsString,
      cdk.SecretValue.secretsManager('e2e/db', { jsonField: 'password' }).unsafeUnwrap(),
    ]),
  });
}

app.synth();

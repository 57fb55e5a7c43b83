/** IAM figures for the `realistic` latency profile (sources in the README). */
import type { LatencyFigures } from '../../core/service';

const seconds = (create: number, update = create, del = create) => ({
  create: create * 1000,
  update: update * 1000,
  delete: del * 1000,
});

export const iamLatency: LatencyFigures = {
  operations: {
    '*': 100,
    CreateRole: 250,
    CreateUser: 200,
    CreateGroup: 200,
    CreatePolicy: 250,
    CreatePolicyVersion: 200,
    CreateInstanceProfile: 200,
    CreateAccessKey: 200,
    CreateOpenIDConnectProvider: 250,
    PutRolePolicy: 150,
    PutUserPolicy: 150,
    PutGroupPolicy: 150,
    AttachRolePolicy: 150,
    AttachUserPolicy: 150,
    AttachGroupPolicy: 150,
  },
  resourceTypes: {
    'AWS::IAM::Role': seconds(10, 5, 5),
    'AWS::IAM::Policy': seconds(10, 5, 5),
    'AWS::IAM::RolePolicy': seconds(10, 5, 5),
    'AWS::IAM::UserPolicy': seconds(10, 5, 5),
    'AWS::IAM::GroupPolicy': seconds(10, 5, 5),
    'AWS::IAM::ManagedPolicy': seconds(10, 5, 5),
    'AWS::IAM::InstanceProfile': seconds(60, 10, 30),
    'AWS::IAM::User': seconds(5),
    'AWS::IAM::Group': seconds(5),
    'AWS::IAM::UserToGroupAddition': seconds(5),
    'AWS::IAM::AccessKey': seconds(5),
    'AWS::IAM::OIDCProvider': seconds(5),
  },
  sources: [
    "IAM calls: about a hundred milliseconds, creates a few hundred (commonly measured; IAM is served from us-east-1 whatever the caller's region)",
    'IAM types through Cloud Control: typical CloudFormation stack-event durations; roles and policies include the propagation wait CloudFormation builds in, instance profiles are known to take about a minute',
  ],
};

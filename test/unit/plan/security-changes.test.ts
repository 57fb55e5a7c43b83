import { securityChangesOf } from '../../../src/plan/security-changes';
import type { StackPlan } from '../../../src/plan/types';
import type { StackState } from '../../../src/state/types';
import { Unknown } from '../../../src/template/unknown';
import { renderSecurityChanges } from '../../../src/ui/diff-render';

const trust = {
  Version: '2012-10-17',
  Statement: [{ Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' }, Action: 'sts:AssumeRole' }],
};

function plan(resources: StackPlan['resources']): StackPlan {
  return { stackName: 'S', resources, outputs: [], hasChanges: true };
}

const state = (resources: StackState['resources']): StackState => ({
  version: 9,
  stackName: 'S',
  region: 'us-east-1',
  resources,
  outputs: {},
  lastModified: 0,
});

describe('securityChangesOf', () => {
  it('finds a new IAM role with a managed policy broadening, and renders the tables', () => {
    const changes = securityChangesOf(
      plan([
        {
          logicalId: 'Role',
          resourceType: 'AWS::IAM::Role',
          action: 'CREATE',
          propertyChanges: [],
          desired: {
            properties: {
              AssumeRolePolicyDocument: trust,
              ManagedPolicyArns: ['arn:aws:iam::aws:policy/ReadOnlyAccess'],
            },
          },
        },
      ]),
      undefined,
    );
    expect(changes.change).toBe('broadening');
    const text = renderSecurityChanges(changes);
    expect(text).toContain('IAM Statement Changes');
    expect(text).toContain('sts:AssumeRole');
    expect(text).toContain('arn:aws:iam::aws:policy/ReadOnlyAccess');
    expect(text).not.toContain('\u001b[');
  });

  it('finds an opened security group port, with a value known only after deploy rendered as GetAtt', () => {
    const changes = securityChangesOf(
      plan([
        {
          logicalId: 'Ingress',
          resourceType: 'AWS::EC2::SecurityGroupIngress',
          action: 'CREATE',
          propertyChanges: [],
          desired: {
            properties: {
              GroupId: new Unknown('Group.GroupId'),
              IpProtocol: 'tcp',
              FromPort: 22,
              ToPort: 22,
              CidrIp: '0.0.0.0/0',
            },
          },
        },
      ]),
      undefined,
    );
    expect(changes.change).toBe('broadening');
    const text = renderSecurityChanges(changes);
    expect(text).toContain('${Group.GroupId}');
    expect(text).toContain('Everyone (IPv4)');
  });

  it('sees no change for a recorded role deployed again unchanged, and a narrowing as non-broadening', () => {
    const recorded = state({
      Role: {
        resourceType: 'AWS::IAM::Role',
        physicalId: 'r',
        properties: {
          AssumeRolePolicyDocument: trust,
          ManagedPolicyArns: ['arn:aws:iam::aws:policy/ReadOnlyAccess'],
        },
      },
    });
    const same = securityChangesOf(
      plan([
        {
          logicalId: 'Role',
          resourceType: 'AWS::IAM::Role',
          action: 'NO_CHANGE',
          propertyChanges: [],
          desired: { properties: recorded.resources.Role.properties! },
        },
      ]),
      recorded,
    );
    expect(same.change).toBe('none');
    expect(renderSecurityChanges(same)).toBe('');
    const narrowed = securityChangesOf(
      plan([
        {
          logicalId: 'Role',
          resourceType: 'AWS::IAM::Role',
          action: 'UPDATE',
          propertyChanges: [],
          desired: { properties: { AssumeRolePolicyDocument: trust } },
        },
      ]),
      recorded,
    );
    expect(narrowed.change).toBe('non-broadening');
  });

  it('ignores resources that carry no permissions', () => {
    const changes = securityChangesOf(
      plan([
        {
          logicalId: 'Q',
          resourceType: 'AWS::SQS::Queue',
          action: 'CREATE',
          propertyChanges: [],
          desired: { properties: { VisibilityTimeout: 30 } },
        },
      ]),
      undefined,
    );
    expect(changes.change).toBe('none');
    // Nothing needed diffing, so the service spec was never loaded for it.
    expect(changes.diff).toBeUndefined();
  });

  it('diffs only changed resources whose type and properties the security diff examines', () => {
    const asked: string[] = [];
    const scrutiny = (type: string) => {
      asked.push(type);
      return type === 'AWS::SQS::Queue'
        ? ['RedriveAllowPolicy']
        : type === 'AWS::IAM::Role'
          ? ['Policies']
          : undefined;
    };
    const untouched = securityChangesOf(
      plan([
        {
          logicalId: 'Q',
          resourceType: 'AWS::SQS::Queue',
          action: 'CREATE',
          propertyChanges: [],
          desired: { properties: {} },
        },
        {
          logicalId: 'P',
          resourceType: 'AWS::SSM::Parameter',
          action: 'CREATE',
          propertyChanges: [],
          desired: { properties: { Type: 'String', Value: 'v' } },
        },
        {
          logicalId: 'R',
          resourceType: 'AWS::IAM::Role',
          action: 'NO_CHANGE',
          propertyChanges: [],
          desired: { properties: { Policies: [] } },
        },
      ]),
      undefined,
      scrutiny,
    );
    expect(untouched).toEqual({ change: 'none' });
    // The unchanged role is never looked at.
    expect(asked).toEqual(['AWS::SQS::Queue', 'AWS::SSM::Parameter']);

    const opened = securityChangesOf(
      plan([
        {
          logicalId: 'Q',
          resourceType: 'AWS::SQS::Queue',
          action: 'CREATE',
          propertyChanges: [],
          desired: { properties: { RedriveAllowPolicy: { redrivePermission: 'allowAll' } } },
        },
      ]),
      undefined,
      scrutiny,
    );
    expect(opened.diff).toBeDefined();
  });
});

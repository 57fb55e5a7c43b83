import type { StackPlan } from '../../../src/plan/types';
import { Unknown } from '../../../src/template/unknown';
import { formatValue, renderStackPlan, summarizePlan } from '../../../src/ui/diff-render';

const plan: StackPlan = {
  stackName: 'Shop',
  hasChanges: true,
  resources: [
    { logicalId: 'Bucket', resourceType: 'AWS::S3::Bucket', action: 'NO_CHANGE', propertyChanges: [] },
    { logicalId: 'Queue', resourceType: 'AWS::SQS::Queue', action: 'CREATE', propertyChanges: [] },
    {
      logicalId: 'Fn',
      resourceType: 'AWS::Lambda::Function',
      action: 'UPDATE',
      propertyChanges: [
        {
          path: 'Properties.Environment.Variables.QUEUE_URL',
          before: 'https://old',
          after: new Unknown('Queue.Ref'),
          unknown: true,
        },
        { path: 'Properties.Timeout', before: undefined, after: 30 },
      ],
    },
    {
      logicalId: 'Sub',
      resourceType: 'AWS::SNS::Subscription',
      action: 'REPLACE',
      mayReplace: true,
      replacementReason: 'create-only property Endpoint may change (known after deploy)',
      propertyChanges: [
        {
          path: 'Properties.Endpoint',
          before: 'arn:old',
          after: new Unknown('Queue.Arn'),
          unknown: true,
          mayCauseReplacement: true,
        },
      ],
    },
    {
      logicalId: 'Topic',
      resourceType: 'AWS::SNS::Topic',
      action: 'REPLACE',
      replacementReason: 'create-only property TopicName changed',
      propertyChanges: [{ path: 'Properties.TopicName', before: 'a', after: 'b', causesReplacement: true }],
    },
    {
      logicalId: 'Table',
      resourceType: 'AWS::DynamoDB::Table',
      action: 'UPDATE',
      policyOnly: true,
      propertyChanges: [{ path: 'DeletionPolicy', before: 'Delete', after: 'Retain' }],
    },
    {
      logicalId: 'Old',
      resourceType: 'AWS::S3::Bucket',
      action: 'DELETE',
      propertyChanges: [],
      deletionPolicy: 'Retain',
      retain: true,
    },
    { logicalId: 'Gone', resourceType: 'AWS::SQS::Queue', action: 'DELETE', propertyChanges: [] },
  ],
  outputs: [
    { name: 'Url', action: 'ADD', after: new Unknown('Queue.Ref'), unknown: true, exportName: 'Shop-Url' },
    { name: 'Arn', action: 'UPDATE', before: 'a', after: 'b' },
    { name: 'Same', action: 'NO_CHANGE', before: 'x', after: 'x' },
    { name: 'Removed', action: 'REMOVE', before: 'y' },
  ],
};

describe('renderStackPlan', () => {
  it('renders changed resources with action symbols, property trees, replacement notes and outputs', () => {
    expect(renderStackPlan(plan)).toBe(
      [
        'Stack Shop',
        'Resources',
        '[+] AWS::SQS::Queue Queue',
        '[~] AWS::Lambda::Function Fn',
        ' ├─ [~] Environment.Variables.QUEUE_URL',
        ' │  ├─ [-] https://old',
        ' │  └─ [+] (known after deploy)',
        ' └─ [+] Timeout',
        '    └─ 30',
        '[-/+] AWS::SNS::Subscription Sub may be replaced: create-only property Endpoint may change (known after deploy)',
        ' └─ [~] Endpoint (may cause replacement)',
        '    ├─ [-] arn:old',
        '    └─ [+] (known after deploy)',
        '[-/+] AWS::SNS::Topic Topic replace: create-only property TopicName changed',
        ' └─ [~] TopicName (requires replacement)',
        '    ├─ [-] a',
        '    └─ [+] b',
        '[~] AWS::DynamoDB::Table Table (DeletionPolicy / UpdateReplacePolicy only: the state record is updated, no AWS call)',
        ' └─ [~] DeletionPolicy',
        '    ├─ [-] Delete',
        '    └─ [+] Retain',
        '[-] AWS::S3::Bucket Old (Retain: removed from state, kept in AWS)',
        '[-] AWS::SQS::Queue Gone',
        '',
        'Outputs',
        '[+] Output Url (export Shop-Url): (known after deploy)',
        '[~] Output Arn: a -> b',
        '[-] Output Removed: y',
        '',
        '1 to create, 2 to update, 2 to replace, 2 to delete, 3 output changes',
        '',
      ].join('\n'),
    );
  });

  it('says when there is nothing to do', () => {
    const none: StackPlan = { stackName: 'Shop', hasChanges: false, resources: [], outputs: [] };
    expect(renderStackPlan(none)).toBe('Stack Shop\nThere were no differences\n');
    expect(summarizePlan(none)).toBe('no changes');
  });

  it('colours on request', () => {
    const text = renderStackPlan(plan, { color: true });
    expect(text).toContain('\u001b[32m[+]\u001b[39m AWS::SQS::Queue Queue');
    expect(text).toContain('\u001b[31m[-/+]\u001b[39m');
  });
});

describe('formatValue', () => {
  it('writes objects as JSON with unknowns spelled out, and cuts long values', () => {
    expect(formatValue({ a: [1, new Unknown('X.Arn')] })).toBe('{"a":[1,"(known after deploy: X.Arn)"]}');
    expect(formatValue('x'.repeat(200), 10)).toBe('xxxxxxx...');
  });
});

import { parsePolicy, policiesEquivalent } from '../src/policy-equivalence';

const base = {
  Version: '2012-10-17',
  Statement: [
    {
      Effect: 'Allow',
      Principal: { AWS: '123456789012' },
      Action: 'sqs:SendMessage',
      Resource: 'arn:aws:sqs:us-east-1:123456789012:q',
    },
  ],
};

describe('policiesEquivalent', () => {
  it('treats the spellings SQS rewrites as equal', () => {
    const stored = {
      Version: '2012-10-17',
      Statement: {
        Effect: 'Allow',
        Principal: { AWS: ['arn:aws:iam::123456789012:root'] },
        Action: ['sqs:SendMessage'],
        Resource: 'arn:aws:sqs:us-east-1:123456789012:q',
      },
    };
    expect(policiesEquivalent(JSON.stringify(stored), base, 'aws')).toBe(true);
    expect(
      policiesEquivalent(
        { Statement: [{ Effect: 'Allow', Principal: '*', Action: 'sqs:*' }] },
        { Statement: [{ Effect: 'Allow', Principal: { AWS: '*' }, Action: ['sqs:*'] }] },
        'aws',
      ),
    ).toBe(true);
  });

  it('ignores order inside lists', () => {
    const a = {
      Statement: [
        { Sid: '1', Effect: 'Allow', Action: ['a', 'b'] },
        { Sid: '2', Effect: 'Deny', Action: 'c' },
      ],
    };
    const b = {
      Statement: [
        { Effect: 'Deny', Action: 'c', Sid: '2' },
        { Sid: '1', Effect: 'Allow', Action: ['b', 'a'] },
      ],
    };
    expect(policiesEquivalent(a, b, 'aws')).toBe(true);
  });

  it('tells different policies apart', () => {
    const other = { ...base, Statement: [{ ...base.Statement[0], Action: 'sqs:DeleteMessage' }] };
    expect(policiesEquivalent(other, base, 'aws')).toBe(false);
    expect(policiesEquivalent('not json', base, 'aws')).toBe(false);
    expect(policiesEquivalent(undefined, base, 'aws')).toBe(false);
  });

  it('parses strings and objects, nothing else', () => {
    expect(parsePolicy('{"a":1}')).toEqual({ a: 1 });
    expect(parsePolicy('')).toBeUndefined();
    expect(parsePolicy('[1]')).toBeUndefined();
  });
});

import { parseTemplate } from '../../../src/template/types';
import { ValidationError } from '../../../src/util/errors';

function invalid(raw: unknown): string {
  try {
    parseTemplate(raw, 'stack Shop');
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as Error).message;
  }
  throw new Error('expected the template to be refused');
}

describe('parseTemplate', () => {
  it('fills missing sections and normalises DependsOn', () => {
    const t = parseTemplate({
      Resources: {
        A: { Type: 'AWS::SQS::Queue', DependsOn: 'B' },
        B: { Type: 'Custom::Thing', Properties: { X: 1 }, DependsOn: ['A'] },
      },
    });
    expect(t.Parameters).toEqual({});
    expect(t.Conditions).toEqual({});
    expect(t.Outputs).toEqual({});
    expect(t.Resources.A.DependsOn).toEqual(['B']);
    expect(t.Resources.B).toEqual({ Type: 'Custom::Thing', Properties: { X: 1 }, DependsOn: ['A'] });
  });

  it('accepts a CDK template with no Resources (an empty stack)', () => {
    const t = parseTemplate({
      Parameters: {
        BootstrapVersion: {
          Type: 'AWS::SSM::Parameter::Value<String>',
          Default: '/cdk-bootstrap/hnb659fds/version',
        },
      },
      Rules: { R: {} },
    });
    expect(t.Resources).toEqual({});
    expect(t.Rules).toEqual({ R: {} });
  });

  it.each([
    [[], 'a template must be a JSON object'],
    [{ Resources: [] }, 'the Resources section must be an object'],
    [
      { Resources: { 'My-Id': { Type: 'AWS::SQS::Queue' } } },
      'resource logical id "My-Id" must be alphanumeric',
    ],
    [{ Resources: { A: { Properties: {} } } }, 'resource A has no Type'],
    [{ Resources: { A: { Type: 'Queue' } } }, 'resource A has an invalid Type "Queue"'],
    [
      { Resources: { A: { Type: 'AWS::SQS::Queue', Propertys: {} } } },
      'resource A has an unknown attribute Propertys',
    ],
    [
      { Resources: { A: { Type: 'AWS::SQS::Queue', DependsOn: [1] } } },
      'DependsOn must be a string or a list of strings',
    ],
    [
      { Resources: { A: { Type: 'AWS::SQS::Queue', Condition: 'Nope' } } },
      'resource A uses condition Nope, which is not defined',
    ],
    [
      { Resources: { A: { Type: 'AWS::SQS::Queue', DeletionPolicy: 'Keep' } } },
      'DeletionPolicy "Keep" is not one of Delete, Retain, Snapshot, RetainExceptOnCreate',
    ],
    [{ Resources: {}, Outputs: { O: { Description: 'x' } } }, 'output O has no Value'],
    [{ Resources: {}, Outputs: { O: { Value: 'x', Export: {} } } }, 'Export must be an object with a Name'],
    [
      { Resources: {}, Parameters: { P: { Default: 'x' } } },
      'parameter P must be an object with a string Type',
    ],
    [{ Resources: {}, Mappings: { M: { a: 'b' } } }, 'mapping M must be an object of objects'],
    [
      { Resources: {}, Transform: 'AWS::Serverless-2016-10-31' },
      'Transform "AWS::Serverless-2016-10-31" is not supported',
    ],
  ])('refuses %j', (raw, message) => {
    const text = invalid(raw);
    expect(text).toContain('Invalid stack Shop: ');
    expect(text).toContain(message);
  });

  it('accepts AWS::LanguageExtensions and policies given as intrinsics', () => {
    const t = parseTemplate({
      Transform: ['AWS::LanguageExtensions'],
      Conditions: { C: { 'Fn::Equals': [1, 1] } },
      Resources: { A: { Type: 'AWS::S3::Bucket', DeletionPolicy: { 'Fn::If': ['C', 'Retain', 'Delete'] } } },
    });
    expect(t.Resources.A.DeletionPolicy).toEqual({ 'Fn::If': ['C', 'Retain', 'Delete'] });
  });
});

import { buildDeletionGraph, buildResourceGraph, collectReferences } from '../../../src/graph/template-graph';
import { TemplateResolver } from '../../../src/template/resolver';
import { parseTemplate } from '../../../src/template/types';
import type { ResourceState } from '../../../src/state/types';
import { DependencyCycleError, ValidationError } from '../../../src/util/errors';

function resolverFor(raw: Record<string, unknown>): TemplateResolver {
  return new TemplateResolver(parseTemplate(raw), {
    stackName: 'S',
    region: 'eu-west-1',
    partition: 'aws',
    urlSuffix: 'amazonaws.com',
    accountId: async () => '123456789012',
    resources: () => undefined,
  });
}

async function graphOf(raw: Record<string, unknown>) {
  const resolver = resolverFor(raw);
  return buildResourceGraph(resolver.template, resolver);
}

function edges(dag: Awaited<ReturnType<typeof graphOf>>): string[] {
  return dag.ids().flatMap((id) => dag.dependenciesOf(id).map((d) => `${id}->${d}`));
}

describe('buildResourceGraph', () => {
  it('adds edges from Ref, Fn::GetAtt, Fn::Sub (string and list forms, dotted attributes) and DependsOn', async () => {
    const dag = await graphOf({
      Parameters: { Env: { Type: 'String', Default: 'dev' } },
      Resources: {
        Bucket: { Type: 'AWS::S3::Bucket' },
        Role: { Type: 'AWS::IAM::Role' },
        Db: { Type: 'AWS::RDS::DBInstance' },
        Topic: { Type: 'AWS::SNS::Topic' },
        Fn: {
          Type: 'AWS::Lambda::Function',
          DependsOn: ['Topic'],
          Properties: {
            Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
            Environment: {
              Variables: {
                BUCKET: { Ref: 'Bucket' },
                ENDPOINT: {
                  'Fn::Sub': 'postgres://${Db.Endpoint.Address}/${Env}/${AWS::Region}/${!NotAVariable}',
                },
              },
            },
          },
        },
        Alarm: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: {
            Name: { 'Fn::Sub': ['${X}-${Fn}', { X: { 'Fn::GetAtt': ['Topic', 'TopicName'] } }] },
          },
        },
      },
    });
    expect(dag.ids()).toEqual(['Bucket', 'Role', 'Db', 'Topic', 'Fn', 'Alarm']);
    expect(edges(dag).sort()).toEqual(
      ['Alarm->Fn', 'Alarm->Topic', 'Fn->Bucket', 'Fn->Db', 'Fn->Role', 'Fn->Topic'].sort(),
    );
    expect(dag.data('Fn').Type).toBe('AWS::Lambda::Function');
    expect(dag.topologicalOrder().indexOf('Fn')).toBeGreaterThan(dag.topologicalOrder().indexOf('Db'));
  });

  it('takes only the Fn::If branch the condition chooses, and leaves out excluded resources', async () => {
    const dag = await graphOf({
      Conditions: { IsProd: { 'Fn::Equals': ['dev', 'prod'] } },
      Resources: {
        ProdTopic: { Type: 'AWS::SNS::Topic', Condition: 'IsProd' },
        DevTopic: { Type: 'AWS::SNS::Topic' },
        Alarm: {
          Type: 'AWS::CloudWatch::Alarm',
          Properties: { Target: { 'Fn::If': ['IsProd', { Ref: 'ProdTopic' }, { Ref: 'DevTopic' }] } },
        },
      },
    });
    expect(dag.ids()).toEqual(['DevTopic', 'Alarm']);
    expect(edges(dag)).toEqual(['Alarm->DevTopic']);
  });

  it('does not make edges for parameters, pseudo parameters or Fn::Sub variable-map names', async () => {
    const dag = await graphOf({
      Parameters: { Env: { Type: 'String', Default: 'dev' } },
      Resources: {
        Bucket: { Type: 'AWS::S3::Bucket' },
        Q: {
          Type: 'AWS::SQS::Queue',
          Properties: {
            N: { 'Fn::Sub': ['${Bucket}-${Env}-${AWS::AccountId}', { Bucket: 'literal' }] },
            E: { Ref: 'Env' },
          },
        },
      },
    });
    expect(edges(dag)).toEqual([]);
  });

  it('names an unknown reference and a reference to a resource that is not created', async () => {
    await expect(
      graphOf({
        Resources: { Q: { Type: 'AWS::SQS::Queue', Properties: { A: { 'Fn::GetAtt': ['Ghost', 'Arn'] } } } },
      }),
    ).rejects.toThrow(
      'Resource Q refers to Ghost (Fn::GetAtt at Properties.A), which is not a resource of the template.',
    );
    await expect(
      graphOf({ Resources: { Q: { Type: 'AWS::SQS::Queue', DependsOn: 'Ghost' } } }),
    ).rejects.toThrow(
      'Resource Q refers to Ghost (DependsOn at DependsOn), which is not a resource of the template.',
    );
    await expect(
      graphOf({ Resources: { Q: { Type: 'AWS::SQS::Queue', Properties: { A: [{ Ref: 'Nope' }] } } } }),
    ).rejects.toThrow('which is not a resource, a parameter or a pseudo parameter');
    const err = await graphOf({
      Conditions: { No: { 'Fn::Equals': [1, 2] } },
      Resources: {
        T: { Type: 'AWS::SNS::Topic', Condition: 'No' },
        Q: { Type: 'AWS::SQS::Queue', Properties: { A: { Ref: 'T' } } },
      },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as Error).message).toContain(
      'Resource Q refers to T (Ref at Properties.A), which is not created in this deploy (its condition No is false).',
    );
  });

  it('leaves a cycle for the DAG to report with the ids on it', async () => {
    const dag = await graphOf({
      Resources: {
        A: { Type: 'AWS::SNS::Topic', Properties: { X: { Ref: 'B' } } },
        B: { Type: 'AWS::SNS::Topic', Properties: { X: { 'Fn::Sub': '${C.Arn}' } } },
        C: { Type: 'AWS::SNS::Topic', DependsOn: 'A' },
      },
    });
    expect(() => dag.assertAcyclic()).toThrow(DependencyCycleError);
    expect(dag.findCycle()).toEqual(['A', 'B', 'C', 'A']);
  });
});

describe('collectReferences', () => {
  it('reports where each reference is', async () => {
    const resolver = resolverFor({ Resources: {} });
    const refs = await collectReferences(
      { A: [{ Ref: 'X' }, { 'Fn::Join': ['', [{ 'Fn::GetAtt': 'Y.Arn' }]] }] },
      resolver,
      'Properties',
    );
    expect(refs).toEqual([
      { target: 'X', via: 'Ref', path: 'Properties.A[0]' },
      { target: 'Y', via: 'Fn::GetAtt', path: 'Properties.A[1]' },
    ]);
  });
});

describe('buildDeletionGraph', () => {
  const record = (dependencies: string[] = []): ResourceState => ({
    physicalId: 'x',
    resourceType: 'AWS::SNS::Topic',
    properties: {},
    dependencies,
  });

  it('deletes dependents first: the reverse of creation', () => {
    const dag = buildDeletionGraph({
      Bucket: record(),
      Role: record(['Bucket']),
      Fn: record(['Role', 'Bucket']),
      Gone: record(['Missing']),
    });
    const order = dag.topologicalOrder();
    expect(order.indexOf('Fn')).toBeLessThan(order.indexOf('Role'));
    expect(order.indexOf('Role')).toBeLessThan(order.indexOf('Bucket'));
    expect(dag.dependenciesOf('Bucket').sort()).toEqual(['Fn', 'Role']);
    expect(dag.dependenciesOf('Gone')).toEqual([]);
  });
});

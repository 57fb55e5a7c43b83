import { stackDependencies, stackGraph, withDependents } from '../../../src/engine/stack-graph';
import { resolveEnvironment } from '../../../src/synth/cloud-assembly';
import type { SynthesizedStack } from '../../../src/synth/cloud-assembly';

function stack(
  name: string,
  template: Record<string, unknown>,
  opts: { deps?: string[]; region?: string; account?: string } = {},
): SynthesizedStack {
  return {
    artifactId: name,
    stackName: name,
    displayPath: name,
    displayName: name,
    topLevel: true,
    dependencies: opts.deps ?? [],
    dependencyNames: opts.deps ?? [],
    environment: resolveEnvironment(
      { account: opts.account ?? '111111111111', region: opts.region ?? 'us-east-1' },
      {},
    ),
    template,
    templateFile: `${name}.template.json`,
    assemblyDirectory: '/cdk.out',
    assetManifests: [],
    tags: {},
    terminationProtection: false,
    annotations: [],
  };
}

const exporting = (name: unknown) => ({
  Resources: { Q: { Type: 'AWS::SQS::Queue' } },
  Outputs: { Arn: { Value: { 'Fn::GetAtt': ['Q', 'Arn'] }, Export: { Name: name } } },
});
const importing = (value: unknown) => ({
  Resources: { P: { Type: 'AWS::SSM::Parameter', Properties: { Type: 'String', Value: value } } },
});
const regionOf = (s: SynthesizedStack) => s.environment.region;

describe('stack dependencies', () => {
  it('adds an edge for a hand-written Fn::ImportValue of a sibling export, literal or Fn::Sub of pseudo parameters', () => {
    // The consumer comes first in the assembly: only the reference orders them.
    const consumer = stack('Consumer', importing({ 'Fn::ImportValue': 'Producer-QueueArn' }));
    const subConsumer = stack(
      'SubConsumer',
      importing({ 'Fn::ImportValue': { 'Fn::Sub': 'Other-${AWS::Region}' } }),
    );
    const producer = stack('Producer', exporting({ 'Fn::Sub': '${AWS::StackName}-QueueArn' }));
    const other = stack('Other', exporting({ 'Fn::Join': ['-', [{ Ref: 'AWS::StackName' }, 'us-east-1']] }));
    const deps = stackDependencies([consumer, subConsumer, producer, other], regionOf);
    expect(deps.get('Consumer')).toEqual([
      { on: 'Producer', reason: 'Fn::ImportValue of Producer-QueueArn' },
    ]);
    expect(deps.get('SubConsumer')).toEqual([{ on: 'Other', reason: 'Fn::ImportValue of Other-us-east-1' }]);
    expect(deps.get('Producer')).toEqual([]);
  });

  it('adds an edge for Fn::GetStackOutput of a sibling stack in the same region, not for another region or a role', () => {
    const reader = stack('Reader', {
      Resources: {
        P: {
          Type: 'AWS::SSM::Parameter',
          Properties: { Value: { 'Fn::GetStackOutput': { StackName: 'Writer', OutputName: 'Arn' } } },
        },
      },
      Outputs: {
        Far: {
          Value: { 'Fn::GetStackOutput': { StackName: 'Writer', OutputName: 'Arn', Region: 'eu-west-1' } },
        },
        Role: {
          Value: {
            'Fn::GetStackOutput': {
              StackName: 'Remote',
              OutputName: 'Arn',
              RoleArn: 'arn:aws:iam::222222222222:role/r',
            },
          },
        },
      },
    });
    const writer = stack('Writer', exporting('x'));
    const remote = stack('Remote', exporting('y'));
    const deps = stackDependencies([reader, writer, remote], regionOf);
    expect(deps.get('Reader')).toEqual([{ on: 'Writer', reason: 'Fn::GetStackOutput of Writer' }]);
  });

  it('matches imports per region, and ignores imports of exports no sibling has (they resolve from state)', () => {
    const consumer = stack('Consumer', importing({ 'Fn::ImportValue': 'Shared' }), { region: 'eu-west-1' });
    const producer = stack('Producer', exporting('Shared'), { region: 'us-east-1' });
    const deps = stackDependencies([consumer, producer], regionOf);
    expect(deps.get('Consumer')).toEqual([]);
  });

  it('keeps the manifest dependencies within the selection', () => {
    const a = stack('A', {});
    const b = stack('B', {}, { deps: ['A', 'NotSelected'] });
    expect(stackDependencies([a, b], regionOf).get('B')).toEqual([{ on: 'A', reason: 'assembly' }]);
  });

  it('builds the deploy graph and its reverse for destroy', () => {
    const consumer = stack('Consumer', importing({ 'Fn::ImportValue': 'E' }));
    const producer = stack('Producer', exporting('E'));
    const deploy = stackGraph([consumer, producer], regionOf);
    expect(deploy.dependenciesOf('Consumer')).toEqual(['Producer']);
    const destroy = stackGraph([consumer, producer], regionOf, { reverse: true });
    expect(destroy.dependenciesOf('Producer')).toEqual(['Consumer']);
  });

  it('refuses a cycle of references, naming each step and its reason', () => {
    const both = (exported: string, imported: string) => ({
      Resources: importing({ 'Fn::ImportValue': imported }).Resources,
      Outputs: exporting(exported).Outputs,
    });
    const a = stack('A', both('ExportA', 'ExportB'));
    const b = stack('B', both('ExportB', 'ExportA'));
    let caught: { code?: string; message: string } | undefined;
    try {
      stackGraph([a, b], regionOf);
    } catch (err) {
      caught = err as { code?: string; message: string };
    }
    expect(caught?.code).toBe('STACK_DEPENDENCY_CYCLE');
    expect(caught?.message).toContain('A depends on B (Fn::ImportValue of ExportB)');
    expect(caught?.message).toContain('B depends on A (Fn::ImportValue of ExportA)');
  });

  it('adds the stacks that import from a selected stack to a destroy selection', () => {
    const consumer = stack('Consumer', importing({ 'Fn::ImportValue': 'E' }));
    const producer = stack('Producer', exporting('E'));
    const unrelated = stack('Unrelated', {});
    expect(
      withDependents([producer], [consumer, producer, unrelated], regionOf).map((s) => s.stackName),
    ).toEqual(['Consumer', 'Producer']);
  });
});

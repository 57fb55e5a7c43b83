import { outputSources, scrubStackState } from '../../../src/state/scrub-source';
import type { ScrubSecrets } from '../../../src/state/scrub-source';
import type { ResourceState, StackState } from '../../../src/state/types';
import { parseTemplate } from '../../../src/template/types';
import type { CfnTemplate } from '../../../src/template/types';

const SM = '{{resolve:secretsmanager:db:SecretString:password::}}';
const SECURE = '{{resolve:ssm-secure:/app/token}}';

function template(raw: Record<string, unknown>): CfnTemplate {
  return parseTemplate({ Parameters: { Pw: { Type: 'String', NoEcho: true } }, ...raw });
}
const resource = (
  properties: Record<string, unknown>,
  extra: Partial<ResourceState> = {},
): ResourceState => ({
  resourceType: 'AWS::SSM::Parameter',
  physicalId: 'p',
  properties,
  ...extra,
});
function state(resources: Record<string, ResourceState>, outputs: Record<string, unknown> = {}): StackState {
  return {
    version: 9,
    stackName: 'S',
    region: 'us-east-1',
    resources,
    outputs,
    exportNames: [],
    lastModified: 1,
  };
}
const scrub = (t: CfnTemplate, s: StackState, known?: ScrubSecrets, writeOnly?: (t: string) => string[]) =>
  scrubStackState({ template: t, state: s, region: 'us-east-1', known, writeOnly });

describe('cdkd scrub: the redaction source rebuilt from the template', () => {
  it('puts a secret reference back where the template wrote it, and masks the NoEcho value', () => {
    const t = template({
      Resources: {
        A: { Type: 'AWS::SSM::Parameter', Properties: { Value: SM, Description: { Ref: 'Pw' } } },
        B: { Type: 'AWS::SSM::Parameter', Properties: { Value: SECURE } },
      },
    });
    const out = scrub(
      t,
      state({
        A: resource(
          { Value: 'sm-plain-1', Description: 'noecho-value' },
          { attributes: { Echo: 'x noecho-value y' } },
        ),
        B: resource({ Value: 'secure-plain' }),
      }),
    );
    expect(out.state.resources.A.properties).toEqual({ Value: SM, Description: '***' });
    // Outside properties a deploy stores the mask, not the reference.
    expect(out.state.resources.A.attributes).toEqual({ Echo: 'x *** y' });
    expect(out.state.resources.B.properties).toEqual({ Value: SECURE });
    expect(out.sites.sort()).toEqual([
      'resources.A.attributes.Echo',
      'resources.A.properties.Description',
      'resources.A.properties.Value',
      'resources.B.properties.Value',
    ]);
  });

  it('finds a secret inside Fn::Join and Fn::Sub when literal text fixes both ends, and matches it everywhere', () => {
    const t = template({
      Resources: {
        A: {
          Type: 'AWS::SSM::Parameter',
          Properties: {
            Value: { 'Fn::Join': ['', ['user:', { Ref: 'Pw' }, '@host']] },
            Url: { 'Fn::Sub': `https://x/${SECURE}/end` },
          },
        },
        B: { Type: 'AWS::SSM::Parameter', Properties: { Value: { 'Fn::GetAtt': ['A', 'Value'] } } },
      },
    });
    const out = scrub(
      t,
      state({
        A: resource({ Value: 'user:hunter22@host', Url: 'https://x/tok-9999/end' }),
        B: resource({ Value: 'user:hunter22@host and tok-9999' }),
      }),
    );
    expect(out.state.resources.A.properties).toEqual({
      Value: 'user:***@host',
      Url: `https://x/${SECURE}/end`,
    });
    expect(out.state.resources.B.properties).toEqual({ Value: `user:***@host and ${SECURE}` });
  });

  it('learns nothing from an unsafe position (a secret next to another unknown part)', () => {
    const t = template({
      Resources: {
        A: {
          Type: 'AWS::SSM::Parameter',
          Properties: { Value: { 'Fn::Join': ['', [{ Ref: 'AWS::Region' }, { Ref: 'Pw' }]] } },
        },
      },
    });
    const out = scrub(t, state({ A: resource({ Value: 'us-east-1secret' }) }));
    expect(out.sites).toEqual([]);
    // A value known from elsewhere is still matched.
    const known: ScrubSecrets = new Map([['secret', { replacement: '***', origin: 'noecho' }]]);
    expect(
      scrub(t, state({ A: resource({ Value: 'us-east-1secret' }) }), known).state.resources.A.properties,
    ).toEqual({
      Value: 'us-east-1***',
    });
  });

  it('leaves a record already stored masked unchanged (the same object)', () => {
    const t = template({
      Resources: { A: { Type: 'AWS::SSM::Parameter', Properties: { Value: SM, D: { Ref: 'Pw' } } } },
    });
    const s = state({ A: resource({ Value: SM, D: '***' }) });
    const out = scrub(t, s);
    expect(out.state).toBe(s);
    expect(out.sites).toEqual([]);
  });

  it('drops write-only properties a read-back stored, as a deploy does', () => {
    const t = template({ Resources: { A: { Type: 'AWS::X::Y', Properties: {} } } });
    const out = scrub(
      t,
      state({ A: resource({}, { resourceType: 'AWS::X::Y', attributes: { Password: 'pw', Arn: 'arn' } }) }),
      undefined,
      (type) => (type === 'AWS::X::Y' ? ['Password'] : []),
    );
    expect(out.state.resources.A.attributes).toEqual({ Arn: 'arn' });
    expect(out.sites).toEqual(['resources.A.attributes.Password']);
  });

  it('bounds a short secret: matched as a whole value only', () => {
    const t = template({
      Resources: { A: { Type: 'AWS::SSM::Parameter', Properties: { V: { Ref: 'Pw' } } } },
    });
    const out = scrub(
      t,
      state({ A: resource({ V: 'abc' }, { attributes: { Name: 'abcdef', Same: 'abc' } }) }),
    );
    expect(out.state.resources.A.properties).toEqual({ V: '***' });
    expect(out.state.resources.A.attributes).toEqual({ Name: 'abcdef', Same: '***' });
  });
});

describe('cdkd scrub: outputs, the collision rule and Export.Name intrinsics', () => {
  it('positions an output and its export alias by the output value', () => {
    const t = template({
      Resources: {},
      Outputs: { Token: { Value: SECURE, Export: { Name: 'TokenExport' } }, Pw: { Value: { Ref: 'Pw' } } },
    });
    const s = {
      ...state({}, { Token: 'tok-1234', TokenExport: 'tok-1234', Pw: 'noecho-1' }),
      exportNames: ['TokenExport'],
    };
    const out = scrub(t, s);
    expect(out.state.outputs).toEqual({ Token: SECURE, TokenExport: SECURE, Pw: '***' });
    expect(out.plaintextKeys).toEqual([]);
  });

  it('drops the position source of a key an Export.Name collides on, and matches that key by value', () => {
    const other = '{{resolve:secretsmanager:other}}';
    const t = template({
      Resources: {},
      Outputs: {
        A: { Value: SM },
        B: { Value: other, Export: { Name: 'A' } },
      },
    });
    const sources = outputSources(t, 'S', 'us-east-1');
    expect([...sources.byKey.keys()]).toEqual(['B']);
    expect(sources.warnings.join()).toMatch(/exports the name A/);
    // The alias won key A in the earlier binary's state: positioning A by A's value would pair
    // B's secret with A's reference. Value match (B's value, learned from B) gives B's reference.
    const out = scrub(t, state({}, { A: 'b-secret-value', B: 'b-secret-value' }));
    expect(out.state.outputs).toEqual({ A: other, B: other });
  });

  it('tests collisions against every declared output, conditions ignored', () => {
    const t = template({
      Conditions: { Never: { 'Fn::Equals': ['a', 'b'] } },
      Resources: {},
      Outputs: { A: { Value: SM, Condition: 'Never' }, B: { Value: SECURE, Export: { Name: 'A' } } },
    });
    expect([...outputSources(t, 'S', 'us-east-1').byKey.keys()]).toEqual(['B']);
  });

  it('resolves an intrinsic Export.Name best-effort for the collision test', () => {
    const t = template({
      Resources: {},
      Outputs: {
        SAlias: { Value: SM },
        B: { Value: SECURE, Export: { Name: { 'Fn::Sub': '${AWS::StackName}Alias' } } },
      },
    });
    expect([...outputSources(t, 'S', 'us-east-1').byKey.keys()]).toEqual(['B']);
  });

  it('puts the whole output bag on value match when an Export.Name keeps a placeholder', () => {
    const t = template({
      Parameters: { Pw: { Type: 'String', NoEcho: true }, Env: { Type: 'String' } },
      Resources: {},
      Outputs: { A: { Value: SM }, B: { Value: 'x', Export: { Name: { 'Fn::Sub': '${Env}-b' } } } },
    });
    const sources = outputSources(t, 'S', 'us-east-1');
    expect(sources.valueOnly).toBe(true);
    expect(sources.byKey.size).toBe(0);
    expect(sources.warnings.join()).toMatch(/does not fully resolve/);
    // Not learned by position; a value known from elsewhere (the reference read) is still matched.
    expect(scrub(t, state({}, { A: 'sm-plain-1' })).sites).toEqual([]);
    const known: ScrubSecrets = new Map([['sm-plain-1', { replacement: SM, origin: 'reference' }]]);
    expect(scrub(t, state({}, { A: 'sm-plain-1' }), known).state.outputs).toEqual({ A: SM });
  });

  it('reports an output key holding a secret apart, masked, and never rewrites it', () => {
    const t = template({ Resources: {}, Outputs: { A: { Value: { Ref: 'Pw' } } } });
    const s = { ...state({}, { A: 'hunter22', 'pre-hunter22': 'v' }), exportNames: ['pre-hunter22'] };
    const out = scrub(t, s);
    expect(Object.keys(out.state.outputs).sort()).toEqual(['A', 'pre-hunter22']);
    expect(out.plaintextKeys).toEqual(['outputs["pre-***"]']);
  });

  it('matches a secret of three characters or fewer only as a whole key', () => {
    const t = template({ Resources: {}, Outputs: { A: { Value: { Ref: 'Pw' } } } });
    const out = scrub(t, state({}, { A: 'xyz', 'xyz-export': 'v', xyz: 'w' }));
    expect(out.plaintextKeys).toEqual(['outputs["***"]']);
  });
});

import {
  ParameterSet,
  parameterValuesForStack,
  parseParameterArgs,
  validateParameterAssignments,
} from '../../../src/template/parameters';
import type { CfnParameter } from '../../../src/template/types';
import { ValidationError } from '../../../src/util/errors';

function params(
  Parameters: Record<string, CfnParameter>,
  values: Record<string, string> = {},
  ssm?: (name: string) => Promise<string>,
) {
  return new ParameterSet({ Parameters }, values, ssm, 'Shop');
}

function errorOf(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return err as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

describe('--parameters parsing', () => {
  it('reads Stack:Name=value and Name=value; values may contain = and :', () => {
    expect(
      parseParameterArgs([
        'Shop:Env=prod',
        'Size=3',
        'Url=https://x?a=b',
        'Shop:Empty=',
        'Shop:Arn=arn:aws:s3:::b',
      ]),
    ).toEqual([
      { stackName: 'Shop', name: 'Env', value: 'prod' },
      { name: 'Size', value: '3' },
      { name: 'Url', value: 'https://x?a=b' },
      { stackName: 'Shop', name: 'Empty', value: '' },
      { stackName: 'Shop', name: 'Arn', value: 'arn:aws:s3:::b' },
    ]);
  });

  it.each(['NoEquals', '=value', 'Shop:=v', ':Name=v'])('refuses %s', (arg) => {
    expect(errorOf(() => parseParameterArgs([arg])).message).toContain(
      `Invalid --parameters value ${JSON.stringify(arg)}`,
    );
  });

  const stacks: Array<{ stackName: string; template: { Parameters: Record<string, CfnParameter> } }> = [
    { stackName: 'Shop', template: { Parameters: { Env: { Type: 'String' }, Size: { Type: 'Number' } } } },
    { stackName: 'Auth', template: { Parameters: { Env: { Type: 'String' } } } },
  ];

  it('names an unknown parameter, an unknown stack, and a name no stack declares', () => {
    expect(
      errorOf(() => validateParameterAssignments(parseParameterArgs(['Shop:Nope=1']), stacks)).message,
    ).toBe('Stack Shop has no parameter Nope.');
    expect(
      errorOf(() => validateParameterAssignments(parseParameterArgs(['Other:Env=1']), stacks)).message,
    ).toContain('names stack Other, which is not being deployed');
    const err = errorOf(() => validateParameterAssignments(parseParameterArgs(['Nope=1']), stacks));
    expect(err.message).toBe('No selected stack has a parameter Nope.');
    expect(err.remedy).toContain('Shop: Env, Size');
    expect(() =>
      validateParameterAssignments(parseParameterArgs(['Size=1', 'Auth:Env=x']), stacks),
    ).not.toThrow();
  });

  it('applies unqualified values to every stack declaring them, stack-qualified ones win', () => {
    const assignments = parseParameterArgs(['Shop:Env=shop-env', 'Env=all', 'Size=3']);
    expect(parameterValuesForStack(assignments, 'Shop', stacks[0].template)).toEqual({
      Env: 'shop-env',
      Size: '3',
    });
    expect(parameterValuesForStack(assignments, 'Auth', stacks[1].template)).toEqual({ Env: 'all' });
  });
});

describe('ParameterSet', () => {
  it('resolves each type to what Ref returns', async () => {
    const set = params(
      {
        S: { Type: 'String' },
        N: { Type: 'Number', Default: 10 },
        LN: { Type: 'List<Number>', Default: '1,2' },
        CDL: { Type: 'CommaDelimitedList', Default: 'a , b,c' },
        Vpc: { Type: 'AWS::EC2::VPC::Id', Default: 'vpc-1' },
        Subnets: { Type: 'List<AWS::EC2::Subnet::Id>', Default: 'subnet-1,subnet-2' },
        Name: { Type: 'AWS::SSM::Parameter::Name', Default: '/x' },
        Ssm: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/one' },
        SsmList: { Type: 'AWS::SSM::Parameter::Value<List<String>>', Default: '/list' },
        SsmCdl: { Type: 'AWS::SSM::Parameter::Value<CommaDelimitedList>', Default: '/list' },
        SsmImage: { Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>', Default: '/image' },
      },
      { S: 'given' },
      async (name) => (name === '/list' ? 'x,y' : `value-of-${name}`),
    );
    expect(await set.value('S')).toBe('given');
    expect(await set.value('N')).toBe('10');
    expect(await set.value('LN')).toEqual(['1', '2']);
    expect(await set.value('CDL')).toEqual(['a', 'b', 'c']);
    expect(await set.value('Vpc')).toBe('vpc-1');
    expect(await set.value('Subnets')).toEqual(['subnet-1', 'subnet-2']);
    expect(await set.value('Name')).toBe('/x');
    expect(await set.value('Ssm')).toBe('value-of-/one');
    expect(await set.value('SsmList')).toEqual(['x', 'y']);
    expect(await set.value('SsmCdl')).toEqual(['x', 'y']);
    expect(await set.value('SsmImage')).toBe('value-of-/image');
  });

  it('reads SSM only when a value is asked for, and once', async () => {
    const reads: string[] = [];
    const set = params(
      {
        A: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/a' },
        B: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/b' },
      },
      {},
      async (n) => {
        reads.push(n);
        return n;
      },
    );
    expect(reads).toEqual([]);
    await Promise.all([set.value('A'), set.value('A')]);
    expect(reads).toEqual(['/a']);
    expect(set.isResolved('B')).toBe(false);
  });

  it('refuses a value for an undeclared parameter and a parameter without value or default', () => {
    expect(errorOf(() => params({ A: { Type: 'String', Default: 'x' } }, { Nope: '1' })).message).toBe(
      'Parameter Nope given for Shop is not declared by its template.',
    );
    const err = errorOf(() => params({ A: { Type: 'String' } }));
    expect(err.message).toBe('Parameter A of stack Shop: no value given and no Default');
    expect(err.remedy).toBe('Pass it: --parameters Shop:A=<value>.');
  });

  it('checks AllowedValues, AllowedPattern, lengths and bounds, per element for lists', () => {
    expect(
      errorOf(() => params({ Env: { Type: 'String', AllowedValues: ['dev', 'prod'] } }, { Env: 'qa' }))
        .message,
    ).toContain('value "qa" is not one of the allowed values dev, prod');
    expect(() =>
      params({ Env: { Type: 'CommaDelimitedList', AllowedValues: ['a', 'b'] } }, { Env: 'a,b,a' }),
    ).not.toThrow();
    expect(
      errorOf(() =>
        params({ Env: { Type: 'CommaDelimitedList', AllowedValues: ['a', 'b'] } }, { Env: 'a,c' }),
      ).message,
    ).toContain('"c"');
    expect(
      errorOf(() =>
        params(
          { Name: { Type: 'String', AllowedPattern: '[a-z]+', ConstraintDescription: 'Lower case only.' } },
          { Name: 'Abc' },
        ),
      ).message,
    ).toContain('does not match the pattern [a-z]+. Lower case only.');
    expect(() =>
      params({ Name: { Type: 'String', AllowedPattern: '[a-z]+' } }, { Name: 'abc' }),
    ).not.toThrow();
    expect(
      errorOf(() => params({ Name: { Type: 'String', MinLength: 3 } }, { Name: 'ab' })).message,
    ).toContain('shorter than the minimum length 3');
    expect(
      errorOf(() => params({ Name: { Type: 'String', MaxLength: 3 } }, { Name: 'abcd' })).message,
    ).toContain('longer than the maximum length 3');
    expect(errorOf(() => params({ N: { Type: 'Number', MinValue: 1 } }, { N: '0' })).message).toContain(
      'below the minimum 1',
    );
    expect(
      errorOf(() => params({ N: { Type: 'List<Number>', MaxValue: 5 } }, { N: '1,9' })).message,
    ).toContain('"9" is above the maximum 5');
    expect(errorOf(() => params({ N: { Type: 'Number' } }, { N: 'ten' })).message).toContain(
      'must be a number, got "ten"',
    );
  });

  it('never prints a NoEcho value', () => {
    const err = errorOf(() =>
      params({ Pw: { Type: 'String', NoEcho: true, AllowedPattern: '[0-9]+' } }, { Pw: 'secret' }),
    );
    expect(err.message).not.toContain('secret');
    expect(err.message).toContain('(NoEcho value)');
    expect(params({ Pw: { Type: 'String', NoEcho: 'true', Default: 'x' } }).isNoEcho('Pw')).toBe(true);
  });

  it('refuses an unsupported type by name', () => {
    expect(errorOf(() => params({ X: { Type: 'Bogus', Default: 'x' } })).message).toBe(
      'Parameter X of stack Shop: unsupported type Bogus',
    );
    expect(
      errorOf(() => params({ X: { Type: 'AWS::SSM::Parameter::Value<Number>', Default: 'x' } })).message,
    ).toContain('unsupported type');
  });
});

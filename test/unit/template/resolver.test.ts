import { resolveDynamicReferencesIn } from '../../../src/template/dynamic-references';
import { deriveStackId, type CrossStackResolver } from '../../../src/template/environment';
import { isUnknown } from '../../../src/template/unknown';
import { TemplateResolutionError, ValidationError } from '../../../src/util/errors';
import { makeResolver, resolveProps, schemaLookup } from './helpers';

const bucket = {
  resourceType: 'AWS::S3::Bucket',
  physicalId: 'my-bucket',
  attributes: { Arn: 'arn:aws:s3:::my-bucket', RegionalDomainName: 'my-bucket.s3.eu-west-1.amazonaws.com' },
};
const db = {
  resourceType: 'AWS::RDS::DBInstance',
  physicalId: 'mydb',
  attributes: { 'Endpoint.Address': 'mydb.abc.eu-west-1.rds.amazonaws.com', Endpoint: { Port: '5432' } },
};

async function resolutionError(promise: Promise<unknown>): Promise<TemplateResolutionError> {
  try {
    await promise;
  } catch (err) {
    expect(err).toBeInstanceOf(TemplateResolutionError);
    return err as TemplateResolutionError;
  }
  throw new Error('expected a TemplateResolutionError');
}

const withBucket = { Resources: { Bucket: { Type: 'AWS::S3::Bucket' } } };

describe('Ref', () => {
  it('returns parameter values, list parameters as lists', async () => {
    const props = await resolveProps(
      { Name: { Ref: 'Env' }, Subnets: { Ref: 'Subnets' }, Size: { Ref: 'Size' } },
      {
        Parameters: {
          Env: { Type: 'String', Default: 'dev' },
          Subnets: { Type: 'CommaDelimitedList', Default: 'a, b,c' },
          Size: { Type: 'Number', Default: 3 },
        },
      },
    );
    expect(props).toEqual({ Name: 'dev', Subnets: ['a', 'b', 'c'], Size: '3' });
  });

  it('returns every pseudo parameter', async () => {
    const { resolver, calls } = makeResolver({
      Resources: {
        R: {
          Type: 'AWS::Test::Thing',
          Properties: {
            Account: { Ref: 'AWS::AccountId' },
            Account2: { Ref: 'AWS::AccountId' },
            Region: { Ref: 'AWS::Region' },
            Partition: { Ref: 'AWS::Partition' },
            Suffix: { Ref: 'AWS::URLSuffix' },
            Name: { Ref: 'AWS::StackName' },
            Id: { Ref: 'AWS::StackId' },
            Notifications: { Ref: 'AWS::NotificationARNs' },
          },
        },
      },
    });
    const props = (await resolver.resolveResource('R')).properties;
    expect(props).toEqual({
      Account: '123456789012',
      Account2: '123456789012',
      Region: 'eu-west-1',
      Partition: 'aws',
      Suffix: 'amazonaws.com',
      Name: 'MyStack',
      Id: deriveStackId('aws', 'eu-west-1', '123456789012', 'MyStack'),
      Notifications: [],
    });
    expect(calls.accountId).toBe(1); // STS is asked once
  });

  it('derives a stable ARN-shaped stack id, different per stack, account and region', () => {
    const id = deriveStackId('aws-cn', 'cn-north-1', '111122223333', 'Shop');
    expect(id).toMatch(
      /^arn:aws-cn:cloudformation:cn-north-1:111122223333:stack\/Shop\/[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(deriveStackId('aws-cn', 'cn-north-1', '111122223333', 'Shop')).toBe(id);
    expect(deriveStackId('aws-cn', 'cn-north-1', '111122223333', 'Shop2')).not.toBe(id);
    expect(deriveStackId('aws-cn', 'cn-northwest-1', '111122223333', 'Shop')).not.toBe(id);
  });

  it('uses a given stack id and does not call STS for it', async () => {
    const { resolver, calls } = makeResolver(
      { Resources: { R: { Type: 'AWS::Test::Thing', Properties: { Id: { Ref: 'AWS::StackId' } } } } },
      { env: { stackId: 'arn:aws:cloudformation:eu-west-1:1:stack/MyStack/x' } },
    );
    expect((await resolver.resolveResource('R')).properties.Id).toBe(
      'arn:aws:cloudformation:eu-west-1:1:stack/MyStack/x',
    );
    expect(calls.accountId).toBe(0);
  });

  it('returns a resource physical id', async () => {
    expect(
      await resolveProps({ B: { Ref: 'Bucket' } }, withBucket, { resources: { Bucket: bucket } }),
    ).toEqual({ B: 'my-bucket' });
  });

  it('names an unknown reference', async () => {
    const err = await resolutionError(resolveProps({ Env: { Ref: 'Nope' } }));
    expect(err.message).toContain('Ref to Nope');
    expect(err.location).toEqual({
      section: 'Resources',
      logicalId: 'R',
      path: 'Properties.Env',
      expression: '{"Ref":"Nope"}',
    });
  });

  describe('translates recorded composite ids to what CloudFormation Ref returns', () => {
    const schemas = schemaLookup({
      'AWS::EC2::EIP': {
        primaryIdentifier: ['/properties/PublicIp', '/properties/AllocationId'],
        refIdentifier: ['/properties/PublicIp'],
      },
      'AWS::Glue::Table': { primaryIdentifier: ['/properties/Id'], refIdentifier: ['/properties/Id'] },
      'AWS::AppSync::DataSource': {
        primaryIdentifier: ['/properties/DataSourceArn'],
        refIdentifier: ['/properties/DataSourceArn'],
      },
      'AWS::AppSync::ApiKey': {
        primaryIdentifier: ['/properties/ApiId', '/properties/ApiKeyId'],
        refIdentifier: ['/properties/Arn'],
      },
      'AWS::ApiGateway::Method': {
        primaryIdentifier: ['/properties/RestApiId', '/properties/ResourceId', '/properties/HttpMethod'],
        refIdentifier: ['/properties/RestApiId', '/properties/ResourceId', '/properties/HttpMethod'],
      },
      'AWS::ApiGateway::Stage': {
        primaryIdentifier: ['/properties/RestApiId', '/properties/StageName'],
        refIdentifier: ['/properties/StageName'],
      },
    });
    const cases: Array<[string, string, string, Record<string, unknown> | undefined]> = [
      ['AWS::EC2::EIP', '52.1.2.3|eipalloc-0abc', '52.1.2.3', undefined],
      ['AWS::Glue::Table', 'my_database|my_table', 'my_table', undefined],
      ['AWS::Route53::RecordSet', 'Z1D633PJN98FT9|www.example.com.|A', 'www.example.com.', undefined],
      ['AWS::S3Tables::Namespace', 'arn:aws:s3tables:eu-west-1:1:bucket/b|ns', 'ns', undefined],
      ['AWS::S3Tables::Table', 'arn:aws:s3tables:eu-west-1:1:bucket/b|ns|tbl', 'tbl', undefined],
      [
        'AWS::AppSync::DataSource',
        'api123|MyDs',
        'arn:aws:appsync:eu-west-1:1:apis/api123/datasources/MyDs',
        { DataSourceArn: 'arn:aws:appsync:eu-west-1:1:apis/api123/datasources/MyDs' },
      ],
      ['AWS::AppSync::DataSource', 'api123|MyDs', 'api123|MyDs', undefined], // no recorded ARN: the composite, as the spec says
      [
        'AWS::AppSync::ApiKey',
        'api123|key1',
        'arn:aws:appsync:eu-west-1:1:apis/api123/apikeys/key1',
        { Arn: 'arn:aws:appsync:eu-west-1:1:apis/api123/apikeys/key1' },
      ],
      ['AWS::ApiGateway::Method', 'a1b2|xy9|GET', 'a1b2|xy9|GET', undefined],
      ['AWS::ApiGateway::Stage', 'a1b2|prod', 'prod', undefined],
      ['Custom::Thing', 'anything|goes', 'anything|goes', undefined],
      // A rule is recorded by its ARN; Ref is its name, or bus|name on a custom bus.
      ['AWS::Events::Rule', 'arn:aws:events:us-east-1:123456789012:rule/my-rule', 'my-rule', undefined],
      [
        'AWS::Events::Rule',
        'arn:aws:events:us-east-1:123456789012:rule/orders/my-rule',
        'orders|my-rule',
        undefined,
      ],
      ['AWS::Events::Rule', 'orders|my-rule', 'orders|my-rule', undefined],
    ];
    it.each(cases)('%s %s -> %s', async (type, physicalId, expected, attributes) => {
      const props = await resolveProps(
        { V: { Ref: 'Target' } },
        { Resources: { Target: { Type: type } } },
        { resources: { Target: { resourceType: type, physicalId, attributes } }, env: { schemas } },
      );
      expect(props.V).toBe(expected);
    });
  });
});

describe('AWS::NoValue', () => {
  it('removes a property, a list element, and an Fn::If branch that yields it', async () => {
    const props = await resolveProps(
      {
        Gone: { Ref: 'AWS::NoValue' },
        List: ['a', { Ref: 'AWS::NoValue' }, 'b'],
        Nested: { Keep: 1, Drop: { 'Fn::If': ['IsProd', 'prod-only', { Ref: 'AWS::NoValue' }] } },
        Chosen: { 'Fn::If': ['IsProd', { Ref: 'AWS::NoValue' }, 'dev-value'] },
      },
      { Conditions: { IsProd: { 'Fn::Equals': ['dev', 'prod'] } } },
    );
    expect(props).toEqual({ List: ['a', 'b'], Nested: { Keep: 1 }, Chosen: 'dev-value' });
  });

  it('cannot be an output value', async () => {
    const { resolver } = makeResolver({ Resources: {}, Outputs: { O: { Value: { Ref: 'AWS::NoValue' } } } });
    const err = await resolutionError(resolver.resolveOutputs());
    expect(err.location.section).toBe('Outputs');
    expect(err.message).toContain('output O');
  });
});

describe('Fn::GetAtt', () => {
  const resources = { Bucket: bucket, Db: db };
  const extra = { Resources: { Bucket: { Type: 'AWS::S3::Bucket' }, Db: { Type: 'AWS::RDS::DBInstance' } } };

  it('reads recorded attributes, list and string forms, dotted names flat or nested', async () => {
    const props = await resolveProps(
      {
        A: { 'Fn::GetAtt': ['Bucket', 'Arn'] },
        B: { 'Fn::GetAtt': 'Bucket.RegionalDomainName' },
        C: { 'Fn::GetAtt': ['Db', 'Endpoint.Address'] },
        D: { 'Fn::GetAtt': 'Db.Endpoint.Port' },
      },
      extra,
      { resources },
    );
    expect(props).toEqual({
      A: 'arn:aws:s3:::my-bucket',
      B: 'my-bucket.s3.eu-west-1.amazonaws.com',
      C: 'mydb.abc.eu-west-1.rds.amazonaws.com',
      D: '5432',
    });
  });

  it('accepts an attribute name given by an intrinsic', async () => {
    const props = await resolveProps(
      { A: { 'Fn::GetAtt': ['Bucket', { Ref: 'Attr' }] } },
      { ...extra, Parameters: { Attr: { Type: 'String', Default: 'Arn' } } },
      { resources },
    );
    expect(props.A).toBe('arn:aws:s3:::my-bucket');
  });

  it('names the resource, the attribute, the path and the expression when the attribute is not recorded', async () => {
    const err = await resolutionError(
      resolveProps(
        { Environment: { Variables: { TABLE: { 'Fn::GetAtt': ['Bucket', 'WebsiteURL'] } } } },
        extra,
        { resources },
      ),
    );
    expect(err.message).toContain('resource Bucket (AWS::S3::Bucket) has no recorded attribute WebsiteURL');
    expect(err.location).toEqual({
      section: 'Resources',
      logicalId: 'R',
      path: 'Properties.Environment.Variables.TABLE',
      expression: '{"Fn::GetAtt":["Bucket","WebsiteURL"]}',
    });
  });

  it('says which attributes exist when the schema has no such attribute', async () => {
    const err = await resolutionError(
      resolveProps({ A: { 'Fn::GetAtt': ['Bucket', 'Nope'] } }, extra, {
        resources,
        env: {
          schemas: schemaLookup({
            'AWS::S3::Bucket': {
              primaryIdentifier: ['/properties/BucketName'],
              attributes: ['Arn', 'DomainName'],
            },
          }),
        },
      }),
    );
    expect(err.message).toContain('AWS::S3::Bucket has no attribute Nope');
    expect(err.message).toContain('Arn, DomainName');
  });

  it('falls back to the identifier segment for an attribute that is part of the primary identifier', async () => {
    const props = await resolveProps(
      { Url: { 'Fn::GetAtt': ['Queue', 'QueueUrl'] } },
      { Resources: { Queue: { Type: 'AWS::SQS::Queue' } } },
      {
        resources: {
          Queue: {
            resourceType: 'AWS::SQS::Queue',
            physicalId: 'https://sqs.eu-west-1.amazonaws.com/1/q',
            attributes: {},
          },
        },
        env: {
          schemas: schemaLookup({
            'AWS::SQS::Queue': {
              primaryIdentifier: ['/properties/QueueUrl'],
              attributes: ['Arn', 'QueueName', 'QueueUrl'],
            },
          }),
        },
      },
    );
    expect(props.Url).toBe('https://sqs.eu-west-1.amazonaws.com/1/q');
  });

  it('refuses a resource that is not in the template', async () => {
    const err = await resolutionError(resolveProps({ A: { 'Fn::GetAtt': ['Ghost', 'Arn'] } }));
    expect(err.message).toContain('no resource Ghost');
  });
});

describe('Fn::Join', () => {
  it('joins strings, numbers and lists from intrinsics, skipping AWS::NoValue', async () => {
    const props = await resolveProps(
      {
        A: { 'Fn::Join': ['-', ['a', 1, true, { Ref: 'AWS::NoValue' }, { Ref: 'AWS::Region' }]] },
        B: { 'Fn::Join': [',', { Ref: 'List' }] },
        C: { 'Fn::Join': ['', []] },
      },
      { Parameters: { List: { Type: 'CommaDelimitedList', Default: 'x,y' } } },
    );
    expect(props).toEqual({ A: 'a-1-true-eu-west-1', B: 'x,y', C: '' });
  });

  it('refuses non-string elements and a non-list', async () => {
    expect(
      (await resolutionError(resolveProps({ A: { 'Fn::Join': ['-', ['a', { x: 1 }]] } }))).message,
    ).toContain('can only join strings');
    expect((await resolutionError(resolveProps({ A: { 'Fn::Join': ['-', 'abc'] } }))).message).toContain(
      'must be a list',
    );
    expect((await resolutionError(resolveProps({ A: { 'Fn::Join': ['-'] } }))).message).toContain(
      'Fn::Join takes',
    );
  });
});

describe('Fn::Sub', () => {
  const setup = { resources: { Bucket: bucket, Db: db } };
  const extra = {
    Parameters: {
      Env: { Type: 'String', Default: 'dev' },
      List: { Type: 'CommaDelimitedList', Default: 'a,b' },
    },
    Resources: { Bucket: { Type: 'AWS::S3::Bucket' }, Db: { Type: 'AWS::RDS::DBInstance' } },
  };

  it('substitutes parameters, pseudo parameters, resource Refs and attributes (dotted too)', async () => {
    const props = await resolveProps(
      { S: { 'Fn::Sub': '${Env}-${AWS::Region}-${Bucket}-${Bucket.Arn}-${Db.Endpoint.Address}:${ Env }' } },
      extra,
      setup,
    );
    expect(props.S).toBe(
      'dev-eu-west-1-my-bucket-arn:aws:s3:::my-bucket-mydb.abc.eu-west-1.rds.amazonaws.com:dev',
    );
  });

  it('writes ${!Literal} as ${Literal}', async () => {
    expect((await resolveProps({ S: { 'Fn::Sub': 'echo ${!HOME} and ${!Env} for ${Env}' } }, extra)).S).toBe(
      'echo ${HOME} and ${Env} for dev',
    );
  });

  it('takes a variable map whose values may be intrinsics and whose names win over template names', async () => {
    const props = await resolveProps(
      {
        S: {
          'Fn::Sub': [
            'arn:${AWS::Partition}:s3:::${Name}/${Env}/${Key}',
            { Name: { Ref: 'Bucket' }, Env: 'overridden', Key: { 'Fn::Join': ['', ['k', '1']] } },
          ],
        },
      },
      extra,
      setup,
    );
    expect(props.S).toBe('arn:aws:s3:::my-bucket/overridden/k1');
  });

  it('leaves a string without variables, and dynamic references, alone', async () => {
    const props = await resolveProps(
      { S: { 'Fn::Sub': 'plain {{resolve:ssm:/p}}' } },
      {},
      { options: { dynamicReferences: 'preserve' } },
    );
    expect(props.S).toBe('plain {{resolve:ssm:/p}}');
  });

  it('refuses unknown variables, list values and an unterminated ${', async () => {
    expect((await resolutionError(resolveProps({ S: { 'Fn::Sub': 'x-${Nope}' } }, extra))).message).toContain(
      '${Nope} is not a parameter',
    );
    expect((await resolutionError(resolveProps({ S: { 'Fn::Sub': 'x-${List}' } }, extra))).message).toContain(
      'not a string',
    );
    expect((await resolutionError(resolveProps({ S: { 'Fn::Sub': 'x-${Env' } }, extra))).message).toContain(
      'unterminated',
    );
    expect(
      (await resolutionError(resolveProps({ S: { 'Fn::Sub': 'x-${Ghost.Arn}' } }, extra))).message,
    ).toContain('no resource Ghost');
  });
});

describe('Fn::Select / Fn::Split / Fn::GetAZs', () => {
  it('selects by number or numeric string, from literal lists and intrinsics', async () => {
    const { resolver, calls } = makeResolver({
      Resources: {
        R: {
          Type: 'AWS::Test::Thing',
          Properties: {
            A: { 'Fn::Select': [1, ['x', 'y', 'z']] },
            B: { 'Fn::Select': ['0', { 'Fn::GetAZs': '' }] },
            C: { 'Fn::Select': [2, { 'Fn::Split': ['|', 'a|b|c'] }] },
            D: { 'Fn::GetAZs': 'us-west-2' },
            E: { 'Fn::GetAZs': { Ref: 'AWS::Region' } },
          },
        },
      },
    });
    expect((await resolver.resolveResource('R')).properties).toEqual({
      A: 'y',
      B: 'eu-west-1a',
      C: 'c',
      D: ['us-west-2a', 'us-west-2b', 'us-west-2c'],
      E: ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
    });
    expect(calls.azs).toEqual(['eu-west-1', 'us-west-2', 'eu-west-1']);
  });

  it('refuses an index out of range or negative', async () => {
    const err = await resolutionError(resolveProps({ Cidr: { 'Fn::Select': [5, ['a']] } }));
    expect(err.message).toContain('Fn::Select index 5 is out of range for a list of 1 element');
    expect(err.location.expression).toBe('{"Fn::Select":[5,["a"]]}');
    expect((await resolutionError(resolveProps({ A: { 'Fn::Select': [-1, ['a']] } }))).message).toContain(
      'non-negative integer',
    );
    expect((await resolutionError(resolveProps({ A: { 'Fn::Select': ['x', ['a']] } }))).message).toContain(
      'non-negative integer',
    );
  });

  it('splits, keeping empty pieces as CloudFormation does', async () => {
    expect((await resolveProps({ A: { 'Fn::Split': [',', 'a,,b'] } })).A).toEqual(['a', '', 'b']);
    expect((await resolutionError(resolveProps({ A: { 'Fn::Split': ['', 'ab'] } }))).message).toContain(
      'non-empty',
    );
  });

  it('needs an availability zone lookup for Fn::GetAZs', async () => {
    const err = await resolutionError(
      resolveProps({ A: { 'Fn::GetAZs': '' } }, {}, { env: { availabilityZones: undefined } }),
    );
    expect(err.message).toContain('availability zone lookup');
  });
});

describe('Fn::If and conditions', () => {
  const template = {
    Parameters: { Env: { Type: 'String', Default: 'prod' }, Count: { Type: 'Number', Default: 1 } },
    Conditions: {
      IsProd: { 'Fn::Equals': [{ Ref: 'Env' }, 'prod'] },
      IsDev: { 'Fn::Not': [{ Condition: 'IsProd' }] },
      CountIsOne: { 'Fn::Equals': [{ Ref: 'Count' }, 1] },
      Both: { 'Fn::And': [{ Condition: 'IsProd' }, { Condition: 'CountIsOne' }] },
      Either: { 'Fn::Or': [{ Condition: 'IsDev' }, { 'Fn::Equals': ['a', 'b'] }] },
      InRegion: { 'Fn::Equals': [{ 'Fn::Select': [0, { 'Fn::GetAZs': '' }] }, 'eu-west-1a'] },
    },
  };

  it('evaluates Fn::Equals (scalars as strings), Fn::And, Fn::Or, Fn::Not and Condition', async () => {
    const { resolver } = makeResolver({ ...template, Resources: {} });
    expect(await resolver.evaluateCondition('IsProd')).toBe(true);
    expect(await resolver.evaluateCondition('IsDev')).toBe(false);
    expect(await resolver.evaluateCondition('CountIsOne')).toBe(true);
    expect(await resolver.evaluateCondition('Both')).toBe(true);
    expect(await resolver.evaluateCondition('Either')).toBe(false);
  });

  it('picks the Fn::If branch', async () => {
    const props = await resolveProps(
      {
        A: { 'Fn::If': ['IsProd', 'big', 'small'] },
        B: { 'Fn::If': ['IsDev', { Ref: 'Env' }, { 'Fn::Join': ['', ['x', 'y']] }] },
      },
      template,
    );
    expect(props).toEqual({ A: 'big', B: 'xy' });
  });

  it('evaluates each condition once per resolver', async () => {
    const { resolver, calls } = makeResolver({
      ...template,
      Resources: {
        A: { Type: 'AWS::Test::Thing', Condition: 'InRegion' },
        B: { Type: 'AWS::Test::Thing', Condition: 'InRegion' },
        C: { Type: 'AWS::Test::Thing', Properties: { V: { 'Fn::If': ['InRegion', 1, 2] } } },
      },
      Outputs: { O: { Value: 'x', Condition: 'InRegion' } },
    });
    expect(await resolver.includedResources()).toEqual(['A', 'B', 'C']);
    await resolver.resolveResource('C');
    await resolver.resolveOutputs();
    expect(calls.azs).toHaveLength(1);
  });

  it('refuses an undefined condition, a cycle, resources in conditions and condition functions in properties', async () => {
    expect((await resolutionError(resolveProps({ A: { 'Fn::If': ['Nope', 1, 2] } }))).message).toContain(
      'Condition Nope is not defined',
    );
    const { resolver } = makeResolver({
      Conditions: {
        A: { Condition: 'B' },
        B: { 'Fn::Not': [{ Condition: 'A' }] },
        UsesBucket: { 'Fn::Equals': [{ Ref: 'Bucket' }, 'x'] },
      },
      Resources: { Bucket: { Type: 'AWS::S3::Bucket' } },
    });
    expect((await resolutionError(resolver.evaluateCondition('A'))).message).toContain('refers to itself');
    expect((await resolutionError(resolver.evaluateCondition('UsesBucket'))).message).toContain(
      'conditions cannot reference resources',
    );
    expect((await resolutionError(resolveProps({ A: { 'Fn::Equals': [1, 1] } }))).message).toContain(
      'only be used in the Conditions section',
    );
    const { resolver: r2 } = makeResolver({
      Conditions: { Bad: { 'Fn::And': [{ Condition: 'X' }] }, X: { 'Fn::Equals': [1, 1] }, NotBool: 'yes' },
      Resources: {},
    });
    expect((await resolutionError(r2.evaluateCondition('Bad'))).message).toContain('between 2 and 10');
    expect((await resolutionError(r2.evaluateCondition('NotBool'))).message).toContain(
      'a condition must be built from',
    );
  });

  it('excludes resources whose condition is false, and resources that depend on them', async () => {
    const { resolver } = makeResolver({
      ...template,
      Resources: {
        DevOnly: { Type: 'AWS::Test::Thing', Condition: 'IsDev' },
        AfterDev: { Type: 'AWS::Test::Thing', DependsOn: 'DevOnly' },
        Always: { Type: 'AWS::Test::Thing' },
        RefsDev: { Type: 'AWS::Test::Thing', Properties: { V: { Ref: 'DevOnly' } } },
        GuardedRef: {
          Type: 'AWS::Test::Thing',
          Properties: { V: { 'Fn::If': ['IsDev', { Ref: 'DevOnly' }, 'none'] } },
        },
      },
    });
    expect(await resolver.includedResources()).toEqual(['Always', 'RefsDev', 'GuardedRef']);
    const err = await resolutionError(resolver.resolveResource('RefsDev'));
    expect(err.message).toContain('DevOnly is not created in this deploy (its condition IsDev is false');
    expect((await resolver.resolveResource('GuardedRef')).properties).toEqual({ V: 'none' });
  });

  it('resolves DeletionPolicy written as Fn::If', async () => {
    const { resolver } = makeResolver({
      ...template,
      Resources: {
        B: {
          Type: 'AWS::S3::Bucket',
          DeletionPolicy: { 'Fn::If': ['IsProd', 'Retain', 'Delete'] },
          UpdateReplacePolicy: 'Snapshot',
        },
      },
    });
    const r = await resolver.resolveResource('B');
    expect(r.deletionPolicy).toBe('Retain');
    expect(r.updateReplacePolicy).toBe('Snapshot');
  });
});

describe('Fn::FindInMap', () => {
  const mappings = {
    Mappings: { RegionMap: { 'eu-west-1': { AMI: 'ami-eu', Count: 2 }, 'us-east-1': { AMI: 'ami-us' } } },
  };

  it('looks up with intrinsic keys', async () => {
    expect(
      await resolveProps(
        {
          A: { 'Fn::FindInMap': ['RegionMap', { Ref: 'AWS::Region' }, 'AMI'] },
          C: { 'Fn::FindInMap': ['RegionMap', 'eu-west-1', 'Count'] },
        },
        mappings,
      ),
    ).toEqual({
      A: 'ami-eu',
      C: 2,
    });
  });

  it('returns DefaultValue when a key is missing (AWS::LanguageExtensions)', async () => {
    expect(
      (
        await resolveProps(
          { A: { 'Fn::FindInMap': ['RegionMap', 'ap-south-1', 'AMI', { DefaultValue: 'ami-default' }] } },
          mappings,
        )
      ).A,
    ).toBe('ami-default');
  });

  it('names the missing map or key', async () => {
    expect(
      (await resolutionError(resolveProps({ A: { 'Fn::FindInMap': ['Nope', 'a', 'b'] } }, mappings))).message,
    ).toContain('mapping Nope does not exist');
    expect(
      (
        await resolutionError(
          resolveProps({ A: { 'Fn::FindInMap': ['RegionMap', 'ap-south-1', 'AMI'] } }, mappings),
        )
      ).message,
    ).toContain('mapping RegionMap has no key ap-south-1');
    expect(
      (
        await resolutionError(
          resolveProps({ A: { 'Fn::FindInMap': ['RegionMap', 'us-east-1', 'Count'] } }, mappings),
        )
      ).message,
    ).toContain('mapping RegionMap.us-east-1 has no key Count');
  });
});

describe('Fn::Base64, Fn::Cidr, Fn::ToJsonString, Fn::Length', () => {
  it('encodes Base64 as UTF-8', async () => {
    expect(
      (await resolveProps({ A: { 'Fn::Base64': { 'Fn::Sub': '#!/bin/bash\necho ${AWS::Region} é' } } })).A,
    ).toBe(Buffer.from('#!/bin/bash\necho eu-west-1 é').toString('base64'));
  });

  it('computes Fn::Cidr (the documented example) and takes intrinsic arguments', async () => {
    const props = await resolveProps({
      A: { 'Fn::Cidr': ['192.168.0.0/24', '6', '5'] },
      B: { 'Fn::Select': [1, { 'Fn::Cidr': [{ 'Fn::Select': [0, ['10.0.0.0/16']] }, 3, 8] }] },
    });
    expect(props.A).toEqual([
      '192.168.0.0/27',
      '192.168.0.32/27',
      '192.168.0.64/27',
      '192.168.0.96/27',
      '192.168.0.128/27',
      '192.168.0.160/27',
    ]);
    expect(props.B).toBe('10.0.1.0/24');
    expect(
      (await resolutionError(resolveProps({ A: { 'Fn::Cidr': ['10.0.0.0/24', 300, 2] } }))).message,
    ).toContain('count must be between 1 and 256');
  });

  it('serialises Fn::ToJsonString after resolving what is inside, without AWS::NoValue', async () => {
    const props = await resolveProps(
      {
        A: {
          'Fn::ToJsonString': {
            Region: { Ref: 'AWS::Region' },
            Gone: { Ref: 'AWS::NoValue' },
            List: [1, 'x'],
          },
        },
      },
      { Transform: 'AWS::LanguageExtensions' },
    );
    expect(JSON.parse(props.A as string)).toEqual({ Region: 'eu-west-1', List: [1, 'x'] });
    expect((await resolutionError(resolveProps({ A: { 'Fn::ToJsonString': 'str' } }))).message).toContain(
      'object or a list',
    );
  });

  it('counts with Fn::Length', async () => {
    const props = await resolveProps({
      A: { 'Fn::Length': [1, 2, 3] },
      B: { 'Fn::Length': { 'Fn::Split': [',', 'a,b'] } },
    });
    expect(props).toEqual({ A: 3, B: 2 });
    expect((await resolutionError(resolveProps({ A: { 'Fn::Length': 'abc' } }))).message).toContain(
      'takes a list',
    );
  });

  it('refuses an unsupported function by name', async () => {
    const err = await resolutionError(resolveProps({ A: { 'Fn::Transform': { Name: 'AWS::Include' } } }));
    expect(err.message).toContain('Fn::Transform is not a supported intrinsic function');
  });
});

describe('cross-stack references', () => {
  it('reports Fn::ImportValue and Fn::GetStackOutput as not supported yet, with the location', async () => {
    const err = await resolutionError(
      resolveProps({ Vpc: { 'Fn::ImportValue': { 'Fn::Sub': '${AWS::StackName}-VpcId' } } }),
    );
    expect(err.message).toContain(
      'Fn::ImportValue of export "MyStack-VpcId" is not supported by this version of cdkd yet',
    );
    expect(err.code).toBe('CROSS_STACK_UNSUPPORTED');
    expect(err.location.path).toBe('Properties.Vpc');
    const err2 = await resolutionError(
      resolveProps({ V: { 'Fn::GetStackOutput': { StackName: 'Net', OutputName: 'VpcId' } } }),
    );
    expect(err2.message).toContain('Fn::GetStackOutput of Net.VpcId is not supported');
  });

  it('passes resolved arguments and the context to the cross-stack resolver', async () => {
    const seen: unknown[] = [];
    const crossStack: CrossStackResolver = {
      importValue: async (name, ctx) => {
        seen.push({ name, stackName: ctx.stackName, path: ctx.path });
        return 'vpc-123';
      },
      getStackOutput: async (request, ctx) => {
        seen.push({ request, logicalId: ctx.logicalId });
        return 'out';
      },
    };
    const props = await resolveProps(
      {
        Vpc: { 'Fn::ImportValue': 'Shared-VpcId' },
        Out: {
          'Fn::GetStackOutput': {
            StackName: { Ref: 'AWS::StackName' },
            OutputName: 'X',
            Region: 'us-east-1',
            RoleArn: 'arn:aws:iam::111122223333:role/r',
          },
        },
      },
      {},
      { env: { crossStack } },
    );
    expect(props).toEqual({ Vpc: 'vpc-123', Out: 'out' });
    expect(seen).toEqual([
      { name: 'Shared-VpcId', stackName: 'MyStack', path: 'Properties.Vpc' },
      {
        request: {
          stackName: 'MyStack',
          outputName: 'X',
          region: 'us-east-1',
          roleArn: 'arn:aws:iam::111122223333:role/r',
        },
        logicalId: 'R',
      },
    ]);
    const err = await resolutionError(
      resolveProps(
        {
          V: { 'Fn::GetStackOutput': { StackName: 'A', OutputName: 'B', RoleArn: { Ref: 'AWS::NoValue' } } },
        },
        {},
        { env: { crossStack } },
      ),
    );
    expect(err.message).toContain('RoleArn of Fn::GetStackOutput must be a literal string');
  });
});

describe('parameters are resolved lazily', () => {
  it('never reads an SSM-typed parameter that only Rules use (CDK BootstrapVersion)', async () => {
    const { resolver, calls } = makeResolver({
      Parameters: {
        BootstrapVersion: {
          Type: 'AWS::SSM::Parameter::Value<String>',
          Default: '/cdk-bootstrap/hnb659fds/version',
        },
        Image: { Type: 'AWS::SSM::Parameter::Value<AWS::EC2::Image::Id>', Default: '/images/latest' },
      },
      Rules: {
        CheckBootstrapVersion: {
          Assertions: [{ Assert: { 'Fn::Not': [{ 'Fn::Contains': [['1'], { Ref: 'BootstrapVersion' }] }] } }],
        },
      },
      Resources: {
        A: { Type: 'AWS::Test::Thing', Properties: { Image: { Ref: 'Image' } } },
        B: { Type: 'AWS::Test::Thing', Properties: { Image: { 'Fn::Sub': '${Image}' } } },
      },
    });
    expect((await resolver.resolveResource('A')).properties).toEqual({ Image: 'ssm:/images/latest' });
    expect((await resolver.resolveResource('B')).properties).toEqual({ Image: 'ssm:/images/latest' });
    expect(calls.ssm).toEqual(['/images/latest']); // read once, BootstrapVersion never
    expect(resolver.parameters.isResolved('BootstrapVersion')).toBe(false);
  });

  it('reports an SSM parameter that cannot be read, naming the parameter and the property', async () => {
    const err = await resolutionError(
      resolveProps(
        { Image: { Ref: 'Image' } },
        { Parameters: { Image: { Type: 'AWS::SSM::Parameter::Value<String>', Default: '/missing' } } },
      ),
    );
    expect(err.message).toContain(
      'Parameter Image of stack MyStack: could not read SSM parameter /missing: ParameterNotFound',
    );
    expect(err.location.path).toBe('Properties.Image');
  });
});

describe('plan mode: values known only after deploy', () => {
  const template = {
    Resources: {
      Bucket: { Type: 'AWS::S3::Bucket' },
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: {
          Name: { Ref: 'Bucket' },
          Arn: { 'Fn::GetAtt': ['Bucket', 'Arn'] },
          Joined: { 'Fn::Join': ['/', ['prefix', { Ref: 'Bucket' }, { 'Fn::GetAtt': ['Bucket', 'Arn'] }]] },
          Sub: { 'Fn::Sub': 'x-${Bucket.Arn}' },
          Picked: { 'Fn::Select': [0, [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, 'b']] },
          Other: { 'Fn::Select': [1, [{ 'Fn::GetAtt': ['Bucket', 'Arn'] }, 'b']] },
          Encoded: { 'Fn::Base64': { Ref: 'Bucket' } },
          Json: { 'Fn::ToJsonString': { a: { Ref: 'Bucket' } } },
          Cidrs: { 'Fn::Cidr': [{ 'Fn::GetAtt': ['Bucket', 'Cidr'] }, 2, 8] },
          Literal: 'kept',
        },
      },
    },
  };

  it('yields Unknown markers that propagate, and keeps known values', async () => {
    const { resolver } = makeResolver(template, { options: { mode: 'plan' } });
    const p = (await resolver.resolveResource('Fn')).properties;
    expect(isUnknown(p.Name) && p.Name.description).toBe('Bucket.Ref');
    expect(isUnknown(p.Arn) && p.Arn.description).toBe('Bucket.Arn');
    expect(isUnknown(p.Joined) && p.Joined.description).toBe('Bucket.Ref, Bucket.Arn');
    expect(isUnknown(p.Sub) && p.Sub.description).toBe('Bucket.Arn');
    expect(isUnknown(p.Picked)).toBe(true);
    expect(p.Other).toBe('b');
    expect(isUnknown(p.Encoded)).toBe(true);
    expect(isUnknown(p.Json)).toBe(true);
    expect(isUnknown(p.Cidrs)).toBe(true);
    expect(p.Literal).toBe('kept');
  });

  it('is an error in strict mode', async () => {
    const { resolver } = makeResolver(template);
    const err = await resolutionError(resolver.resolveResource('Fn'));
    expect(err.message).toContain('resource Bucket has not been deployed yet');
    expect(err.location.path).toBe('Properties.Name');
  });
});

describe('dynamic references', () => {
  it('reads ssm, versioned ssm, ssm-secure and secretsmanager references, also inside built strings', async () => {
    const ssmCalls: unknown[] = [];
    const secretCalls: unknown[] = [];
    const secrets: string[] = [];
    const props = await resolveProps(
      {
        Plain: '{{resolve:ssm:/app/name}}',
        Versioned: 'v={{resolve:ssm:/app/name:3}}',
        Secure: '{{resolve:ssm-secure:/app/pw:2}}',
        Secret: {
          'Fn::Join': [
            '',
            ['{{resolve:secretsmanager:', { Ref: 'AWS::StackName' }, '-db:SecretString:password}}'],
          ],
        },
        Arn: '{{resolve:secretsmanager:arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf:SecretString::AWSPREVIOUS}}',
        Nested: ['{{resolve:ssm:/a}}-{{resolve:ssm:/b}}'],
      },
      {},
      {
        env: {
          ssmParameter: async (name, opts) => {
            ssmCalls.push({ name, ...opts });
            return `<${name}>`;
          },
          secretValue: async (req) => {
            secretCalls.push(req);
            return JSON.stringify({ password: 'hunter2', user: 'admin' });
          },
        },
        options: { onSecret: (ref) => secrets.push(ref) },
      },
    );
    expect(props).toEqual({
      Plain: '</app/name>',
      Versioned: 'v=</app/name>',
      Secure: '</app/pw>',
      Secret: 'hunter2',
      Arn: JSON.stringify({ password: 'hunter2', user: 'admin' }),
      Nested: ['</a>-</b>'],
    });
    expect(ssmCalls).toEqual(
      expect.arrayContaining([
        { name: '/app/name' },
        { name: '/app/name', version: '3' },
        { name: '/app/pw', version: '2', withDecryption: true },
      ]),
    );
    expect(secretCalls).toEqual(
      expect.arrayContaining([
        { secretId: 'MyStack-db' },
        {
          secretId: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf',
          versionStage: 'AWSPREVIOUS',
        },
      ]),
    );
    expect(secrets.sort()).toEqual(
      [
        '{{resolve:ssm-secure:/app/pw:2}}',
        '{{resolve:secretsmanager:MyStack-db:SecretString:password}}',
        '{{resolve:secretsmanager:arn:aws:secretsmanager:eu-west-1:123456789012:secret:db-AbCdEf:SecretString::AWSPREVIOUS}}',
      ].sort(),
    );
  });

  it('keeps references as written in preserve mode', async () => {
    const props = await resolveProps(
      { A: '{{resolve:secretsmanager:db:SecretString:password}}' },
      {},
      { options: { dynamicReferences: 'preserve' }, env: { secretValue: undefined } },
    );
    expect(props.A).toBe('{{resolve:secretsmanager:db:SecretString:password}}');
  });

  it('names the reference when no reader is available or the read fails', async () => {
    const err = await resolutionError(
      resolveProps({ A: '{{resolve:secretsmanager:db}}' }, {}, { env: { secretValue: undefined } }),
    );
    expect(err.message).toContain(
      '{{resolve:secretsmanager:db}} cannot be resolved: no Secrets Manager reader',
    );
    expect(err.location.path).toBe('Properties.A');
    const err2 = await resolutionError(resolveProps({ A: { B: ['{{resolve:ssm:/missing}}'] } }));
    expect(err2.message).toContain('{{resolve:ssm:/missing}} could not be resolved: ParameterNotFound');
    expect(err2.location.path).toBe('Properties.A.B[0]');
  });
});

describe('outputs', () => {
  it('resolves values and export names of outputs whose condition holds', async () => {
    const { resolver } = makeResolver(
      {
        Conditions: { No: { 'Fn::Equals': [1, 2] } },
        Resources: { Bucket: { Type: 'AWS::S3::Bucket' } },
        Outputs: {
          BucketArn: {
            Value: { 'Fn::GetAtt': ['Bucket', 'Arn'] },
            Export: { Name: { 'Fn::Sub': '${AWS::StackName}:BucketArn' } },
            Description: 'the bucket',
          },
          Hidden: { Value: 'x', Condition: 'No' },
        },
      },
      { resources: { Bucket: bucket } },
    );
    expect(await resolver.resolveOutputs()).toEqual([
      {
        name: 'BucketArn',
        value: 'arn:aws:s3:::my-bucket',
        exportName: 'MyStack:BucketArn',
        description: 'the bucket',
      },
    ]);
  });
});

describe('errors', () => {
  it('are ValidationErrors carrying the code TEMPLATE_RESOLUTION_ERROR', async () => {
    const err = await resolutionError(resolveProps({ A: { Ref: 'Nope' } }));
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.code).toBe('TEMPLATE_RESOLUTION_ERROR');
    expect(err.message).toBe(
      'Ref to Nope: the template has no parameter or resource of that name (resource R, at Properties.A, in {"Ref":"Nope"})',
    );
  });

  it('name the innermost failing expression inside nested intrinsics', async () => {
    const err = await resolutionError(
      resolveProps({ List: [{ 'Fn::Join': ['', ['a', { 'Fn::Select': [3, ['x']] }]] }] }),
    );
    expect(err.location.path).toBe('Properties.List[0]');
    expect(err.location.expression).toBe('{"Fn::Select":[3,["x"]]}');
  });
});

describe('names that look like object built-ins', () => {
  it('are not mistaken for template entries', async () => {
    expect((await resolutionError(resolveProps({ A: { Ref: 'constructor' } }))).message).toContain(
      'Ref to constructor',
    );
    expect(
      (
        await resolutionError(
          resolveProps(
            { A: { 'Fn::FindInMap': ['M', 'toString', 'x'] } },
            { Mappings: { M: { a: { x: 1 } } } },
          ),
        )
      ).message,
    ).toContain('mapping M has no key toString');
  });
});

describe('dynamic references: preserve-secrets', () => {
  it('reads plain ssm references and keeps secret ones as written, for reading later', async () => {
    const props = await resolveProps(
      {
        Name: 'n-{{resolve:ssm:/name}}',
        Pw: '{{resolve:ssm-secure:/pw}}',
        Secret: ['{{resolve:secretsmanager:s:SecretString:k}}'],
      },
      {},
      { options: { dynamicReferences: 'preserve-secrets' }, env: { secretValue: async () => '{"k":"v"}' } },
    );
    expect(props).toEqual({
      Name: 'n-ssm:/name',
      Pw: '{{resolve:ssm-secure:/pw}}',
      Secret: ['{{resolve:secretsmanager:s:SecretString:k}}'],
    });
    const read = await resolveDynamicReferencesIn(props, {
      ssmParameter: async (n) => `<${n}>`,
      secretValue: async () => '{"k":"v"}',
    });
    expect(read).toEqual({ Name: 'n-ssm:/name', Pw: '</pw>', Secret: ['v'] });
  });
});

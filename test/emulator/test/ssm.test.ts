import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import { CreateKeyCommand, DecryptCommand, DisableKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  AddTagsToResourceCommand,
  DeleteParameterCommand,
  DeleteParametersCommand,
  DescribeParametersCommand,
  GetParameterCommand,
  GetParameterHistoryCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  LabelParameterVersionCommand,
  ListTagsForResourceCommand,
  PutParameterCommand,
  RemoveTagsFromResourceCommand,
  SSMClient,
  UnlabelParameterVersionCommand,
} from '@aws-sdk/client-ssm';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ssm: SSMClient;

beforeAll(() => {
  ssm = new SSMClient(clientConfig(ctx.emulator));
});
afterAll(() => ssm.destroy());
beforeEach(() => ctx.emulator.control.reset());

describe('SSM Parameter Store', () => {
  test('put, get, overwrite with versions, delete', async () => {
    expect(
      (await ssm.send(new PutParameterCommand({ Name: '/app/db/host', Value: 'db1', Type: 'String' })))
        .Version,
    ).toBe(1);
    await expect(
      ssm.send(new PutParameterCommand({ Name: '/app/db/host', Value: 'db2', Type: 'String' })),
    ).rejects.toMatchObject({ name: 'ParameterAlreadyExists' });
    expect(
      (await ssm.send(new PutParameterCommand({ Name: '/app/db/host', Value: 'db2', Overwrite: true })))
        .Version,
    ).toBe(2);
    const got = await ssm.send(new GetParameterCommand({ Name: '/app/db/host' }));
    expect(got.Parameter).toMatchObject({
      Name: '/app/db/host',
      Type: 'String',
      Value: 'db2',
      Version: 2,
      ARN: 'arn:aws:ssm:us-east-1:123456789012:parameter/app/db/host',
      DataType: 'text',
    });
    expect(got.Parameter?.LastModifiedDate).toBeInstanceOf(Date);
    const v1 = await ssm.send(new GetParameterCommand({ Name: '/app/db/host:1' }));
    expect(v1.Parameter).toMatchObject({ Value: 'db1', Version: 1, Selector: ':1' });
    const history = await ssm.send(new GetParameterHistoryCommand({ Name: '/app/db/host' }));
    expect(history.Parameters?.map((p) => p.Value)).toEqual(['db1', 'db2']);
    await ssm.send(new DeleteParameterCommand({ Name: '/app/db/host' }));
    await expect(ssm.send(new GetParameterCommand({ Name: '/app/db/host' }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
      $metadata: { httpStatusCode: 400 },
    });
    await expect(ssm.send(new DeleteParameterCommand({ Name: '/app/db/host' }))).rejects.toMatchObject({
      name: 'ParameterNotFound',
    });
  });

  test('SecureString is decrypted only WithDecryption; StringList keeps its commas', async () => {
    await ssm.send(new PutParameterCommand({ Name: 'secret', Value: 'hunter2', Type: 'SecureString' }));
    const hidden = await ssm.send(new GetParameterCommand({ Name: 'secret' }));
    expect(hidden.Parameter?.Type).toBe('SecureString');
    expect(hidden.Parameter?.Value).not.toBe('hunter2');
    expect(
      (await ssm.send(new GetParameterCommand({ Name: 'secret', WithDecryption: true }))).Parameter?.Value,
    ).toBe('hunter2');
    await ssm.send(new PutParameterCommand({ Name: 'azs', Value: 'a,b,c', Type: 'StringList' }));
    expect((await ssm.send(new GetParameterCommand({ Name: 'azs' }))).Parameter).toMatchObject({
      Type: 'StringList',
      Value: 'a,b,c',
    });
  });

  test('GetParameters reports invalid names', async () => {
    await ssm.send(new PutParameterCommand({ Name: 'one', Value: '1', Type: 'String' }));
    const out = await ssm.send(new GetParametersCommand({ Names: ['one', 'missing'] }));
    expect(out.Parameters?.map((p) => p.Name)).toEqual(['one']);
    expect(out.InvalidParameters).toEqual(['missing']);
  });

  test('GetParametersByPath: one level or recursive, paginated', async () => {
    for (const name of ['/cfg/a', '/cfg/b', '/cfg/c', '/cfg/sub/d', '/other/e']) {
      await ssm.send(new PutParameterCommand({ Name: name, Value: name, Type: 'String' }));
    }
    const oneLevel = await ssm.send(new GetParametersByPathCommand({ Path: '/cfg' }));
    expect(oneLevel.Parameters?.map((p) => p.Name)).toEqual(['/cfg/a', '/cfg/b', '/cfg/c']);
    const names: string[] = [];
    let NextToken: string | undefined;
    do {
      const page = await ssm.send(
        new GetParametersByPathCommand({ Path: '/cfg/', Recursive: true, MaxResults: 2, NextToken }),
      );
      names.push(...(page.Parameters ?? []).map((p) => p.Name!));
      NextToken = page.NextToken;
    } while (NextToken);
    expect(names).toEqual(['/cfg/a', '/cfg/b', '/cfg/c', '/cfg/sub/d']);
  });

  test('DescribeParameters with filters', async () => {
    await ssm.send(
      new PutParameterCommand({ Name: '/x/plain', Value: 'v', Type: 'String', Description: 'plain one' }),
    );
    await ssm.send(new PutParameterCommand({ Name: '/x/secret', Value: 'v', Type: 'SecureString' }));
    const all = await ssm.send(new DescribeParametersCommand({}));
    expect(all.Parameters?.map((p) => [p.Name, p.Type, p.Version])).toEqual([
      ['/x/plain', 'String', 1],
      ['/x/secret', 'SecureString', 1],
    ]);
    const secure = await ssm.send(
      new DescribeParametersCommand({ ParameterFilters: [{ Key: 'Type', Values: ['SecureString'] }] }),
    );
    expect(secure.Parameters?.map((p) => p.Name)).toEqual(['/x/secret']);
    expect(secure.Parameters?.[0]?.KeyId).toBe('alias/aws/ssm');
    const named = await ssm.send(
      new DescribeParametersCommand({
        ParameterFilters: [{ Key: 'Name', Option: 'BeginsWith', Values: ['/x/pl'] }],
      }),
    );
    expect(named.Parameters?.[0]).toMatchObject({ Name: '/x/plain', Description: 'plain one' });
  });

  test('validation: missing type, reserved names, unqualified paths', async () => {
    await expect(ssm.send(new PutParameterCommand({ Name: 'untyped', Value: 'v' }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(
      ssm.send(new PutParameterCommand({ Name: 'aws-thing', Value: 'v', Type: 'String' })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 400 } });
    await expect(
      ssm.send(new PutParameterCommand({ Name: 'a/b', Value: 'v', Type: 'String' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  test('public parameters under reserved names are seeded through the control API', async () => {
    await ctx.emulator.control.seedParameter({
      name: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64',
      value: 'ami-0123456789abcdef0',
    });
    const got = await ssm.send(
      new GetParameterCommand({
        Name: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64',
      }),
    );
    expect(got.Parameter?.Value).toBe('ami-0123456789abcdef0');
  });

  test('an unsigned JSON-protocol request is refused with MissingAuthenticationTokenException', async () => {
    const res = await fetch(`${ctx.emulator.url}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amz-target': 'AmazonSSM.GetParameter' },
      body: JSON.stringify({ Name: 'x' }),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { __type: string }).__type).toMatch(/MissingAuthenticationTokenException$/);
  });
});

describe('SSM Parameter Store: SecureString, tiers, policies, labels, tags', () => {
  const put = (input: ConstructorParameters<typeof PutParameterCommand>[0]) =>
    ssm.send(new PutParameterCommand(input));

  test('SecureString under a customer key: the ciphertext form without decryption, KMS errors as InvalidKeyId', async () => {
    const kms = new KMSClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
    const { KeyMetadata } = await kms.send(new CreateKeyCommand({}));
    await put({ Name: '/s/db', Value: 'hunter2', Type: 'SecureString', KeyId: KeyMetadata!.KeyId });
    const hidden = (await ssm.send(new GetParameterCommand({ Name: '/s/db' }))).Parameter!;
    expect(hidden.Value).not.toBe('hunter2');
    const decrypted = await kms.send(
      new DecryptCommand({
        CiphertextBlob: Buffer.from(hidden.Value!, 'base64'),
        EncryptionContext: { PARAMETER_ARN: hidden.ARN! },
      }),
    );
    expect(Buffer.from(decrypted.Plaintext!).toString()).toBe('hunter2');
    expect(decrypted.KeyId).toBe(KeyMetadata!.Arn);
    const described = await ssm.send(
      new DescribeParametersCommand({ ParameterFilters: [{ Key: 'Name', Values: ['/s/db'] }] }),
    );
    expect(described.Parameters?.[0]?.KeyId).toBe(KeyMetadata!.KeyId);
    // A new version keeps the key unless another is named.
    await put({ Name: '/s/db', Value: 'hunter3', Overwrite: true });
    expect(
      (await ssm.send(new GetParameterCommand({ Name: '/s/db', WithDecryption: true }))).Parameter?.Value,
    ).toBe('hunter3');

    await expect(
      put({ Name: '/s/bad', Value: 'x', Type: 'SecureString', KeyId: 'alias/does-not-exist' }),
    ).rejects.toMatchObject({ name: 'InvalidKeyId' });
    await kms.send(new DisableKeyCommand({ KeyId: KeyMetadata!.KeyId }));
    await expect(
      ssm.send(new GetParameterCommand({ Name: '/s/db', WithDecryption: true })),
    ).rejects.toMatchObject({ name: 'InvalidKeyId' });
    await expect(
      put({ Name: '/s/plain', Value: 'x', Type: 'String', KeyId: 'alias/aws/ssm' }),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    // The type cannot change between String and SecureString.
    await put({ Name: '/s/typed', Value: 'x', Type: 'String' });
    await expect(
      put({ Name: '/s/typed', Value: 'x', Type: 'SecureString', Overwrite: true }),
    ).rejects.toMatchObject({
      name: 'HierarchyTypeMismatchException',
    });
    await put({ Name: '/s/typed', Value: 'x,y', Type: 'StringList', Overwrite: true });
    kms.destroy();
  });

  test('tiers: Standard 4 KB, Advanced 8 KB, Intelligent-Tiering, and no downgrade', async () => {
    const big = 'x'.repeat(5000);
    await expect(put({ Name: 'big', Value: big, Type: 'String' })).rejects.toMatchObject({
      name: 'ValidationException',
    });
    expect(await put({ Name: 'big', Value: big, Type: 'String', Tier: 'Intelligent-Tiering' })).toMatchObject(
      {
        Tier: 'Advanced',
        Version: 1,
      },
    );
    expect(
      await put({ Name: 'small', Value: 'x', Type: 'String', Tier: 'Intelligent-Tiering' }),
    ).toMatchObject({
      Tier: 'Standard',
    });
    await expect(put({ Name: 'big', Value: 'y', Tier: 'Standard', Overwrite: true })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringContaining("can't downgrade"),
    });
    // Without a tier, an advanced parameter stays advanced.
    expect(await put({ Name: 'big', Value: 'y', Overwrite: true })).toMatchObject({
      Tier: 'Advanced',
      Version: 2,
    });
    await expect(
      put({ Name: 'huge', Value: 'x'.repeat(9000), Type: 'String', Tier: 'Advanced' }),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  test('policies: advanced parameters only, validated, listed by DescribeParameters', async () => {
    const expiration = {
      Type: 'Expiration',
      Version: '1.0',
      Attributes: { Timestamp: '2030-01-01T00:00:00.000Z' },
    };
    const notify = {
      Type: 'NoChangeNotification',
      Version: '1.0',
      Attributes: { After: '30', Unit: 'Days' },
    };
    await expect(
      put({ Name: 'p', Value: 'v', Type: 'String', Policies: JSON.stringify([expiration]) }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await put({
      Name: 'p',
      Value: 'v',
      Type: 'String',
      Tier: 'Advanced',
      Policies: JSON.stringify([expiration, notify]),
    });
    const described = (await ssm.send(new DescribeParametersCommand({}))).Parameters![0]!;
    expect(described.Policies).toEqual([
      { PolicyText: JSON.stringify(expiration), PolicyType: 'Expiration', PolicyStatus: 'Pending' },
      { PolicyText: JSON.stringify(notify), PolicyType: 'NoChangeNotification', PolicyStatus: 'Pending' },
    ]);
    await put({ Name: 'p', Value: 'v2', Overwrite: true, Policies: '[]' });
    expect((await ssm.send(new DescribeParametersCommand({}))).Parameters![0]!.Policies).toEqual([]);
    for (const [policies, error] of [
      [[{ Type: 'Forever', Version: '1.0', Attributes: {} }], 'InvalidPolicyTypeException'],
      [
        [{ Type: 'Expiration', Version: '1.0', Attributes: { Timestamp: 'soon' } }],
        'InvalidPolicyAttributeException',
      ],
      [[expiration, expiration], 'IncompatiblePolicyException'],
    ] as const) {
      await expect(
        put({ Name: 'p', Value: 'v3', Overwrite: true, Policies: JSON.stringify(policies) }),
      ).rejects.toMatchObject({ name: error });
    }
  });

  test('allowed pattern and data types', async () => {
    await put({
      Name: 'num',
      Value: '42',
      Type: 'String',
      AllowedPattern: '^\\d+$',
      Description: 'a number',
    });
    await expect(put({ Name: 'num', Value: 'abc', Overwrite: true })).rejects.toMatchObject({
      name: 'ParameterPatternMismatchException',
    });
    // An empty pattern and description remove them.
    await put({ Name: 'num', Value: 'abc', Overwrite: true, AllowedPattern: '', Description: '' });
    const described = (await ssm.send(new DescribeParametersCommand({}))).Parameters![0]!;
    expect(described.AllowedPattern).toBeUndefined();
    expect(described.Description).toBeUndefined();
    await expect(
      put({ Name: 'bad-re', Value: 'x', Type: 'String', AllowedPattern: '(' }),
    ).rejects.toMatchObject({
      name: 'InvalidAllowedPatternException',
    });

    await put({ Name: 'image', Value: 'ami-0123456789abcdef0', Type: 'String', DataType: 'aws:ec2:image' });
    expect((await ssm.send(new GetParameterCommand({ Name: 'image' }))).Parameter?.DataType).toBe(
      'aws:ec2:image',
    );
    await expect(
      put({ Name: 'image2', Value: 'not-an-ami', Type: 'String', DataType: 'aws:ec2:image' }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(put({ Name: 'image3', Value: 'x', Type: 'String', DataType: 'Text' })).rejects.toMatchObject(
      {
        name: 'ValidationException',
      },
    );
  });

  test('version labels: label, read by label, move, invalid labels, limits, unlabel', async () => {
    for (const v of ['one', 'two', 'three'])
      await put({ Name: '/l/p', Value: v, Type: 'String', Overwrite: v !== 'one' });
    expect(
      await ssm.send(
        new LabelParameterVersionCommand({
          Name: '/l/p',
          ParameterVersion: 1,
          Labels: ['prod', '1bad', 'awsx'],
        }),
      ),
    ).toMatchObject({ ParameterVersion: 1, InvalidLabels: ['1bad', 'awsx'] });
    expect((await ssm.send(new GetParameterCommand({ Name: '/l/p:prod' }))).Parameter).toMatchObject({
      Value: 'one',
      Selector: ':prod',
    });
    // Labelling the latest version (no ParameterVersion) moves the label.
    expect(
      await ssm.send(new LabelParameterVersionCommand({ Name: '/l/p', Labels: ['prod'] })),
    ).toMatchObject({
      ParameterVersion: 3,
    });
    const history = await ssm.send(new GetParameterHistoryCommand({ Name: '/l/p' }));
    expect(history.Parameters?.map((p) => p.Labels)).toEqual([[], [], ['prod']]);
    await expect(
      ssm.send(new LabelParameterVersionCommand({ Name: '/l/p', ParameterVersion: 9, Labels: ['x'] })),
    ).rejects.toMatchObject({ name: 'ParameterVersionNotFound' });
    await expect(
      ssm.send(
        new LabelParameterVersionCommand({
          Name: '/l/p',
          ParameterVersion: 2,
          Labels: Array.from({ length: 10 }, (_, i) => `l${i}`),
        }),
      ),
    ).resolves.toMatchObject({ InvalidLabels: [] });
    await expect(
      ssm.send(new LabelParameterVersionCommand({ Name: '/l/p', ParameterVersion: 2, Labels: ['eleventh'] })),
    ).rejects.toMatchObject({ name: 'ParameterVersionLabelLimitExceeded' });
    expect(
      await ssm.send(
        new UnlabelParameterVersionCommand({ Name: '/l/p', ParameterVersion: 3, Labels: ['prod', 'nope'] }),
      ),
    ).toMatchObject({ RemovedLabels: ['prod'], InvalidLabels: ['nope'] });
    await expect(ssm.send(new GetParameterCommand({ Name: '/l/p:prod' }))).rejects.toMatchObject({
      name: 'ParameterVersionNotFound',
    });
  });

  test('100 versions: the oldest makes room unless it is labelled', async () => {
    await put({ Name: 'many', Value: 'v1', Type: 'String' });
    for (let i = 2; i <= 100; i++) await put({ Name: 'many', Value: `v${i}`, Overwrite: true });
    await put({ Name: 'many', Value: 'v101', Overwrite: true });
    const first = await ssm.send(new GetParameterHistoryCommand({ Name: 'many', MaxResults: 1 }));
    expect(first.Parameters?.[0]?.Version).toBe(2);
    await ssm.send(new LabelParameterVersionCommand({ Name: 'many', ParameterVersion: 2, Labels: ['keep'] }));
    await expect(put({ Name: 'many', Value: 'v102', Overwrite: true })).rejects.toMatchObject({
      name: 'ParameterMaxVersionLimitExceeded',
    });
    const names: number[] = [];
    let NextToken: string | undefined;
    do {
      const page = await ssm.send(new GetParameterHistoryCommand({ Name: 'many', NextToken }));
      names.push(...page.Parameters!.map((p) => p.Version!));
      NextToken = page.NextToken;
    } while (NextToken);
    expect(names).toHaveLength(100);
  }, 120_000);

  test('tags: with the create, not with Overwrite, added, removed, listed; bad resource ids and types', async () => {
    await put({ Name: 't', Value: 'v', Type: 'String', Tags: [{ Key: 'team', Value: 'a' }] });
    await expect(
      put({ Name: 't', Value: 'v2', Overwrite: true, Tags: [{ Key: 'team', Value: 'b' }] }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await ssm.send(
      new AddTagsToResourceCommand({
        ResourceType: 'Parameter',
        ResourceId: 't',
        Tags: [
          { Key: 'team', Value: 'b' },
          { Key: 'env', Value: 'dev' },
        ],
      }),
    );
    await ssm.send(
      new RemoveTagsFromResourceCommand({ ResourceType: 'Parameter', ResourceId: 't', TagKeys: ['env'] }),
    );
    expect(
      (await ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: 't' })))
        .TagList,
    ).toEqual([{ Key: 'team', Value: 'b' }]);
    await expect(
      ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: 'missing' })),
    ).rejects.toMatchObject({ name: 'InvalidResourceId' });
    await expect(
      ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Document', ResourceId: 't' })),
    ).rejects.toMatchObject({ name: 'InvalidResourceType' });
    const tagged = await ssm.send(
      new DescribeParametersCommand({ ParameterFilters: [{ Key: 'tag:team', Values: ['b'] }] }),
    );
    expect(tagged.Parameters?.map((p) => p.Name)).toEqual(['t']);
  });

  test('DescribeParameters: filters, invalid filter keys, pagination; DeleteParameters reports the missing', async () => {
    for (let i = 0; i < 7; i++) await put({ Name: `/d/p${i}`, Value: 'v', Type: 'String' });
    await put({ Name: '/d/adv', Value: 'v', Type: 'String', Tier: 'Advanced' });
    const advanced = await ssm.send(
      new DescribeParametersCommand({ ParameterFilters: [{ Key: 'Tier', Values: ['Advanced'] }] }),
    );
    expect(advanced.Parameters?.map((p) => p.Name)).toEqual(['/d/adv']);
    const all: string[] = [];
    let NextToken: string | undefined;
    do {
      const page = await ssm.send(new DescribeParametersCommand({ MaxResults: 3, NextToken }));
      expect(page.Parameters!.length).toBeLessThanOrEqual(3);
      all.push(...page.Parameters!.map((p) => p.Name!));
      NextToken = page.NextToken;
    } while (NextToken);
    expect(all).toHaveLength(8);
    await expect(
      ssm.send(new DescribeParametersCommand({ ParameterFilters: [{ Key: 'Colour', Values: ['x'] }] })),
    ).rejects.toMatchObject({ name: 'InvalidFilterKey' });
    await expect(
      ssm.send(
        new GetParametersByPathCommand({ Path: '/d', ParameterFilters: [{ Key: 'Name', Values: ['x'] }] }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidFilterKey' });
    expect(await ssm.send(new DeleteParametersCommand({ Names: ['/d/p0', '/d/nope'] }))).toMatchObject({
      DeletedParameters: ['/d/p0'],
      InvalidParameters: ['/d/nope'],
    });
  });

  test('throttling answers as SSM does, and the SDK retries it', async () => {
    await ctx.emulator.control.addFault({
      service: 'ssm',
      operation: 'PutParameter',
      error: 'ThrottlingException',
      count: 1,
    });
    const out = await put({ Name: 'throttled', Value: 'v', Type: 'String' });
    expect(out.$metadata.attempts).toBe(2);
  });
});

describe('SSM parameters and Cloud Control', () => {
  let cc: CloudControlClient;
  beforeAll(() => (cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 })));
  afterAll(() => cc.destroy());
  const settle = async (send: Promise<{ ProgressEvent?: { RequestToken?: string } }>) =>
    (
      await cc.send(
        new GetResourceRequestStatusCommand({ RequestToken: (await send).ProgressEvent!.RequestToken! }),
      )
    ).ProgressEvent!;

  test('native and Cloud Control parameters are one object; a tags-only update makes no new version', async () => {
    await ssm.send(
      new PutParameterCommand({
        Name: '/native',
        Value: 'v',
        Type: 'String',
        Description: 'd',
        Tags: [{ Key: 'k', Value: 'v' }],
      }),
    );
    const model = JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName: 'AWS::SSM::Parameter', Identifier: '/native' })))
        .ResourceDescription!.Properties!,
    );
    expect(model).toEqual({
      Name: '/native',
      Type: 'String',
      Value: 'v',
      DataType: 'text',
      Arn: 'arn:aws:ssm:us-east-1:123456789012:parameter/native',
    });
    const inventory = await ctx.emulator.control.inventory();
    expect(inventory.filter((i) => i.type === 'AWS::SSM::Parameter').map((i) => i.identifier)).toEqual([
      '/native',
    ]);

    const created = await settle(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SSM::Parameter',
          DesiredState: JSON.stringify({
            Name: '/by-cc',
            Type: 'StringList',
            Value: 'a,b',
            Tags: { team: 'x' },
          }),
        }),
      ),
    );
    expect(created.OperationStatus).toBe('SUCCESS');
    expect((await ssm.send(new GetParameterCommand({ Name: '/by-cc' }))).Parameter).toMatchObject({
      Type: 'StringList',
      Value: 'a,b',
      Version: 1,
    });
    await settle(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SSM::Parameter',
          Identifier: '/by-cc',
          PatchDocument: JSON.stringify([{ op: 'replace', path: '/Tags', value: { team: 'y' } }]),
        }),
      ),
    );
    expect((await ssm.send(new GetParameterCommand({ Name: '/by-cc' }))).Parameter?.Version).toBe(1);
    expect(
      (await ssm.send(new ListTagsForResourceCommand({ ResourceType: 'Parameter', ResourceId: '/by-cc' })))
        .TagList,
    ).toEqual([{ Key: 'team', Value: 'y' }]);
    const secure = await settle(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SSM::Parameter',
          DesiredState: JSON.stringify({ Name: '/secure', Type: 'SecureString', Value: 'x' }),
        }),
      ),
    );
    expect(secure).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'InvalidRequest' });
  });
});

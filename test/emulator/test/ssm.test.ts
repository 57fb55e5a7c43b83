import {
  DeleteParameterCommand,
  DescribeParametersCommand,
  GetParameterCommand,
  GetParameterHistoryCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  PutParameterCommand,
  SSMClient,
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

import {
  CloudFormationClient,
  DescribeStacksCommand,
  ListExportsCommand,
  ListImportsCommand,
} from '@aws-sdk/client-cloudformation';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let cfn: CloudFormationClient;

beforeAll(() => {
  cfn = new CloudFormationClient(clientConfig(ctx.emulator));
});
afterAll(() => cfn.destroy());
beforeEach(() => ctx.emulator.control.reset());

describe('CloudFormation (seeded producer stacks)', () => {
  test('DescribeStacks returns seeded outputs, ListExports the exported ones', async () => {
    const seeded = await ctx.emulator.control.seedStack({
      stackName: 'Producer',
      outputs: [
        {
          OutputKey: 'BucketName',
          OutputValue: 'producer-bucket',
          ExportName: 'Producer:BucketName',
          Description: 'the bucket',
        },
        { OutputKey: 'Internal', OutputValue: 'not-exported' },
      ],
      tags: [{ Key: 'team', Value: 'data' }],
    });
    expect(seeded.stackId).toMatch(
      /^arn:aws:cloudformation:us-east-1:123456789012:stack\/Producer\/[0-9a-f-]{36}$/,
    );

    const described = await cfn.send(new DescribeStacksCommand({ StackName: 'Producer' }));
    expect(described.Stacks).toHaveLength(1);
    expect(described.Stacks?.[0]).toMatchObject({
      StackName: 'Producer',
      StackId: seeded.stackId,
      StackStatus: 'CREATE_COMPLETE',
      Tags: [{ Key: 'team', Value: 'data' }],
      Outputs: [
        {
          OutputKey: 'BucketName',
          OutputValue: 'producer-bucket',
          ExportName: 'Producer:BucketName',
          Description: 'the bucket',
        },
        { OutputKey: 'Internal', OutputValue: 'not-exported' },
      ],
    });
    expect(described.Stacks?.[0]?.CreationTime).toBeInstanceOf(Date);
    expect(
      (await cfn.send(new DescribeStacksCommand({ StackName: seeded.stackId }))).Stacks?.[0]?.StackName,
    ).toBe('Producer');

    const exports = await cfn.send(new ListExportsCommand({}));
    expect(exports.Exports).toEqual([
      { ExportingStackId: seeded.stackId, Name: 'Producer:BucketName', Value: 'producer-bucket' },
    ]);
  });

  test('a missing stack is a ValidationError; stacks are per account and region', async () => {
    await ctx.emulator.control.seedStack({
      stackName: 'West',
      region: 'us-west-2',
      outputs: [{ OutputKey: 'A', OutputValue: '1', ExportName: 'West-A' }],
    });
    await expect(cfn.send(new DescribeStacksCommand({ StackName: 'West' }))).rejects.toMatchObject({
      name: 'ValidationError',
      message: 'Stack with id West does not exist',
      $metadata: { httpStatusCode: 400 },
    });
    expect((await cfn.send(new ListExportsCommand({}))).Exports ?? []).toEqual([]);
    const west = new CloudFormationClient(clientConfig(ctx.emulator, 'us-west-2'));
    expect((await west.send(new ListExportsCommand({}))).Exports?.map((e) => e.Name)).toEqual(['West-A']);
    expect((await west.send(new DescribeStacksCommand({}))).Stacks?.map((s) => s.StackName)).toEqual([
      'West',
    ]);
    west.destroy();
  });

  test('export names are unique per account and region; stacks can be removed', async () => {
    await ctx.emulator.control.seedStack({
      stackName: 'One',
      outputs: [{ OutputKey: 'X', OutputValue: '1', ExportName: 'Shared' }],
    });
    await expect(
      ctx.emulator.control.seedStack({
        stackName: 'Two',
        outputs: [{ OutputKey: 'X', OutputValue: '2', ExportName: 'Shared' }],
      }),
    ).rejects.toThrow(/already exported/);
    await ctx.emulator.control.removeStack('One');
    expect(await ctx.emulator.control.stacks()).toEqual([]);
    await expect(cfn.send(new DescribeStacksCommand({ StackName: 'One' }))).rejects.toMatchObject({
      name: 'ValidationError',
    });
  });

  test('ListImports: seeded exports are imported by no stack', async () => {
    await ctx.emulator.control.seedStack({
      stackName: 'One',
      outputs: [{ OutputKey: 'X', OutputValue: '1', ExportName: 'Shared' }],
    });
    await expect(cfn.send(new ListImportsCommand({ ExportName: 'Shared' }))).rejects.toMatchObject({
      name: 'ValidationError',
      message: "Export 'Shared' is not imported by any stack.",
    });
  });
});

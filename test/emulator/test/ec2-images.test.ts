/**
 * EC2 DescribeImages through the real SDK: the public catalogue CDK's AMI
 * lookup searches (owners, the filters it sends, the newest release), ids,
 * deprecated releases, paging, the agreement with the public SSM aliases, and
 * the documented errors.
 */
import { DescribeImagesCommand, EC2Client, paginateDescribeImages, type Image } from '@aws-sdk/client-ec2';
import { GetParameterCommand, SSMClient } from '@aws-sdk/client-ssm';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let ec2: EC2Client;

beforeAll(() => {
  ec2 = new EC2Client(clientConfig(ctx.emulator, 'eu-central-1'));
});
afterAll(() => ec2.destroy());

/** What CDK's `MachineImage.lookup({ name, owners })` sends. */
const lookup = (name: string, owners?: string[], extra: Record<string, string[]> = {}) =>
  ec2.send(
    new DescribeImagesCommand({
      Owners: owners,
      Filters: Object.entries({
        name: [name],
        state: ['available'],
        'image-type': ['machine'],
        ...extra,
      }).map(([Name, Values]) => ({ Name, Values })),
    }),
  );

describe('DescribeImages', () => {
  it('finds Amazon Linux 2023 by name pattern and owner alias, the newest release only', async () => {
    const { Images } = await lookup('al2023-ami-2023.*-kernel-6.1-x86_64', ['amazon']);
    expect(Images).toHaveLength(1);
    expect(Images![0]).toMatchObject({
      ImageId: expect.stringMatching(/^ami-[0-9a-f]{17}$/),
      Name: expect.stringMatching(/^al2023-ami-2023\.6\.\d{8}\.0-kernel-6\.1-x86_64$/),
      OwnerId: '137112412989',
      ImageOwnerAlias: 'amazon',
      Architecture: 'x86_64',
      State: 'available',
      ImageType: 'machine',
      Public: true,
      RootDeviceType: 'ebs',
      VirtualizationType: 'hvm',
      PlatformDetails: 'Linux/UNIX',
    });
    expect(Images![0]!.Platform).toBeUndefined();
    expect(Images![0]!.BlockDeviceMappings![0]!.Ebs!.VolumeSize).toBe(8);
  });

  it('gives the image the public SSM alias of the family points at', async () => {
    const ssm = new SSMClient(clientConfig(ctx.emulator, 'eu-central-1'));
    try {
      const { Parameter } = await ssm.send(
        new GetParameterCommand({ Name: '/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-6.1-arm64' }),
      );
      const { Images } = await lookup('al2023-ami-2023.*', ['amazon'], { architecture: ['arm64'] });
      expect(Images!.map((i) => i.ImageId)).toEqual([Parameter!.Value]);
    } finally {
      ssm.destroy();
    }
  });

  it('lists the superseded release only with IncludeDeprecated, and by id', async () => {
    const all = await ec2.send(
      new DescribeImagesCommand({
        Owners: ['099720109477'],
        IncludeDeprecated: true,
        Filters: [{ Name: 'name', Values: ['ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-*'] }],
      }),
    );
    expect(all.Images).toHaveLength(2);
    const [older, newer] = [...all.Images!].sort((a, b) => a.CreationDate!.localeCompare(b.CreationDate!));
    expect(older!.DeprecationTime).toBe(newer!.CreationDate);
    expect(newer!.DeprecationTime).toBeUndefined();
    const byId = await ec2.send(new DescribeImagesCommand({ ImageIds: [older!.ImageId!] }));
    expect(byId.Images!.map((i) => i.Name)).toEqual([older!.Name]);
  });

  it('filters Windows images by platform; other owners and self have none of them', async () => {
    const windows = await lookup('Windows_Server-2022-English-Full-Base-*', ['amazon'], {
      platform: ['windows'],
    });
    expect(windows.Images!.map((i) => [i.Platform, i.OwnerId])).toEqual([['windows', '801119661308']]);
    expect((await lookup('Windows_Server-*', ['self'])).Images).toEqual([]);
    expect((await lookup('Windows_Server-*', ['123456789012'])).Images).toEqual([]);
    expect((await lookup('al2023-ami-*', undefined, { platform: ['windows'] })).Images).toEqual([]);
  });

  it('pages with MaxResults and NextToken', async () => {
    const seen: Image[] = [];
    for await (const page of paginateDescribeImages({ client: ec2, pageSize: 5 }, {})) {
      expect(page.Images!.length).toBeLessThanOrEqual(5);
      seen.push(...page.Images!);
    }
    const unpaged = await ec2.send(new DescribeImagesCommand({}));
    expect(seen.map((i) => i.ImageId)).toEqual(unpaged.Images!.map((i) => i.ImageId));
    expect(new Set(seen.map((i) => i.ImageId)).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThan(5);
  });

  it('answers the documented errors', async () => {
    await expect(
      ec2.send(new DescribeImagesCommand({ ImageIds: ['ami-0123456789abcdef0'] })),
    ).rejects.toMatchObject({ name: 'InvalidAMIID.NotFound', $metadata: { httpStatusCode: 400 } });
    await expect(ec2.send(new DescribeImagesCommand({ ImageIds: ['image-1'] }))).rejects.toMatchObject({
      name: 'InvalidAMIID.Malformed',
    });
    await expect(
      ec2.send(new DescribeImagesCommand({ ImageIds: ['ami-0123456789abcdef0'], MaxResults: 5 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterCombination' });
    await expect(ec2.send(new DescribeImagesCommand({ MaxResults: 2 }))).rejects.toMatchObject({
      name: 'InvalidParameterValue',
    });
    await expect(
      ec2.send(new DescribeImagesCommand({ Filters: [{ Name: 'colour', Values: ['blue'] }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterValue' });
    await expect(ec2.send(new DescribeImagesCommand({ Owners: ['nobody'] }))).rejects.toMatchObject({
      name: 'InvalidUserID.Malformed',
    });
    await expect(ec2.send(new DescribeImagesCommand({ DryRun: true }))).rejects.toMatchObject({
      name: 'DryRunOperation',
    });
  });
});

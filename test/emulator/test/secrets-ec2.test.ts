import { CloudControlClient, CreateResourceCommand, GetResourceCommand } from '@aws-sdk/client-cloudcontrol';
import { DescribeAvailabilityZonesCommand, EC2Client } from '@aws-sdk/client-ec2';
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let sm: SecretsManagerClient;

beforeAll(() => {
  sm = new SecretsManagerClient(clientConfig(ctx.emulator));
});
afterAll(() => sm.destroy());
beforeEach(() => ctx.emulator.control.reset());

describe('Secrets Manager', () => {
  test('create, read by name and ARN, new versions move AWSCURRENT, delete', async () => {
    const created = await sm.send(
      new CreateSecretCommand({ Name: 'app/db', SecretString: '{"password":"one"}', Description: 'db' }),
    );
    expect(created.ARN).toMatch(/^arn:aws:secretsmanager:us-east-1:123456789012:secret:app\/db-[A-Za-z]{6}$/);
    const byName = await sm.send(new GetSecretValueCommand({ SecretId: 'app/db' }));
    expect(byName).toMatchObject({
      Name: 'app/db',
      SecretString: '{"password":"one"}',
      VersionStages: ['AWSCURRENT'],
      VersionId: created.VersionId,
    });
    expect((await sm.send(new GetSecretValueCommand({ SecretId: created.ARN }))).SecretString).toBe(
      '{"password":"one"}',
    );
    const partialArn = created.ARN!.slice(0, -7);
    expect((await sm.send(new GetSecretValueCommand({ SecretId: partialArn }))).Name).toBe('app/db');

    const second = await sm.send(
      new PutSecretValueCommand({ SecretId: 'app/db', SecretString: '{"password":"two"}' }),
    );
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'app/db' }))).SecretString).toBe(
      '{"password":"two"}',
    );
    const previous = await sm.send(
      new GetSecretValueCommand({ SecretId: 'app/db', VersionStage: 'AWSPREVIOUS' }),
    );
    expect(previous).toMatchObject({ SecretString: '{"password":"one"}', VersionId: created.VersionId });
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'app/db' }));
    expect(described.VersionIdsToStages).toEqual({
      [created.VersionId!]: ['AWSPREVIOUS'],
      [second.VersionId!]: ['AWSCURRENT'],
    });

    await expect(
      sm.send(new CreateSecretCommand({ Name: 'app/db', SecretString: 'x' })),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
    await sm.send(new DeleteSecretCommand({ SecretId: 'app/db', RecoveryWindowInDays: 7 }));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'app/db' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
    });
    expect((await sm.send(new ListSecretsCommand({}))).SecretList).toEqual([]);
    await sm.send(new DeleteSecretCommand({ SecretId: 'app/db', ForceDeleteWithoutRecovery: true }));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'app/db' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
      message: "Secrets Manager can't find the specified secret.",
    });
  });

  test('a secret made through Cloud Control (GenerateSecretString) is readable with GetSecretValue', async () => {
    const cc = new CloudControlClient(clientConfig(ctx.emulator));
    const out = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::SecretsManager::Secret',
        DesiredState: JSON.stringify({
          Name: 'generated',
          GenerateSecretString: {
            SecretStringTemplate: '{"username":"admin"}',
            GenerateStringKey: 'password',
            PasswordLength: 20,
            ExcludePunctuation: true,
          },
        }),
      }),
    );
    const arn = out.ProgressEvent!.Identifier;
    const value = await sm.send(new GetSecretValueCommand({ SecretId: 'generated' }));
    expect(value.ARN).toBe(arn);
    const parsed = JSON.parse(value.SecretString!) as { username: string; password: string };
    expect(parsed.username).toBe('admin');
    expect(parsed.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const resource = await cc.send(
      new GetResourceCommand({ TypeName: 'AWS::SecretsManager::Secret', Identifier: value.ARN }),
    );
    expect(JSON.parse(resource.ResourceDescription!.Properties!)).toEqual({
      Id: value.ARN,
      Name: 'generated',
    });
    cc.destroy();
  });
});

describe('EC2', () => {
  test('DescribeAvailabilityZones lists the region zones, filtered', async () => {
    const ec2 = new EC2Client(clientConfig(ctx.emulator, 'eu-west-1'));
    const out = await ec2.send(
      new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'state', Values: ['available'] }] }),
    );
    expect(out.AvailabilityZones?.map((z) => [z.ZoneName, z.ZoneId, z.State, z.RegionName])).toEqual([
      ['eu-west-1a', 'euw1-az1', 'available', 'eu-west-1'],
      ['eu-west-1b', 'euw1-az2', 'available', 'eu-west-1'],
      ['eu-west-1c', 'euw1-az3', 'available', 'eu-west-1'],
    ]);
    const one = await ec2.send(new DescribeAvailabilityZonesCommand({ ZoneNames: ['eu-west-1b'] }));
    expect(one.AvailabilityZones?.map((z) => z.ZoneName)).toEqual(['eu-west-1b']);
    await expect(
      ec2.send(new DescribeAvailabilityZonesCommand({ Filters: [{ Name: 'colour', Values: ['x'] }] })),
    ).rejects.toMatchObject({
      name: 'InvalidParameterValue',
      $metadata: { httpStatusCode: 400 },
    });
    const east = new EC2Client(clientConfig(ctx.emulator, 'us-east-1'));
    expect((await east.send(new DescribeAvailabilityZonesCommand({}))).AvailabilityZones).toHaveLength(6);
    east.destroy();
    ec2.destroy();
  });
});

/**
 * Secrets Manager through the real SDK client: ClientRequestToken
 * idempotency, UpdateSecret, values encrypted under KMS keys, recovery and
 * restore, tags, resource policies, replication, random passwords, listing
 * with filters and pages, errors and faults, and the shared view with Cloud
 * Control's AWS::SecretsManager::Secret.
 */
import {
  CloudControlClient,
  CreateResourceCommand,
  DeleteResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
  ListResourcesCommand,
  UpdateResourceCommand,
} from '@aws-sdk/client-cloudcontrol';
import { CreateKeyCommand, DisableKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import {
  CreateSecretCommand,
  DeleteResourcePolicyCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetRandomPasswordCommand,
  GetResourcePolicyCommand,
  GetSecretValueCommand,
  ListSecretsCommand,
  type ListSecretsCommandInput,
  ListSecretVersionIdsCommand,
  PutResourcePolicyCommand,
  PutSecretValueCommand,
  RemoveRegionsFromReplicationCommand,
  ReplicateSecretToRegionsCommand,
  RestoreSecretCommand,
  SecretsManagerClient,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateSecretCommand,
} from '@aws-sdk/client-secrets-manager';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let sm: SecretsManagerClient;
let west: SecretsManagerClient;
let kms: KMSClient;
let cc: CloudControlClient;

const TOKEN_A = 'a'.repeat(32);
const TOKEN_B = 'b'.repeat(32);

beforeAll(() => {
  sm = new SecretsManagerClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
  west = new SecretsManagerClient({ ...clientConfig(ctx.emulator, 'us-west-2'), maxAttempts: 1 });
  kms = new KMSClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
  cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => {
  for (const c of [sm, west, kms, cc]) c.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

async function ccRequest(send: Promise<{ ProgressEvent?: { RequestToken?: string } }>) {
  const token = (await send).ProgressEvent!.RequestToken!;
  return (await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }))).ProgressEvent!;
}

describe('versions and idempotency', () => {
  test('CreateSecret repeated with its ClientRequestToken returns the same secret and version', async () => {
    const first = await sm.send(
      new CreateSecretCommand({ Name: 'db', SecretString: 'one', ClientRequestToken: TOKEN_A }),
    );
    const again = await sm.send(
      new CreateSecretCommand({ Name: 'db', SecretString: 'one', ClientRequestToken: TOKEN_A }),
    );
    expect(again).toMatchObject({ ARN: first.ARN, VersionId: TOKEN_A });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'db', SecretString: 'two', ClientRequestToken: TOKEN_A })),
    ).rejects.toMatchObject({
      name: 'ResourceExistsException',
      message: expect.stringMatching(/existing version/),
    });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'db', SecretString: 'one', ClientRequestToken: TOKEN_B })),
    ).rejects.toMatchObject({
      name: 'ResourceExistsException',
      message: expect.stringMatching(/already exists/),
    });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'short', SecretString: 'x', ClientRequestToken: 'abc' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'bad name!', SecretString: 'x' })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  test('PutSecretValue and UpdateSecret: retries are answered by the same version, labels move', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'app', SecretString: 'v1' }));
    const put = await sm.send(
      new PutSecretValueCommand({ SecretId: 'app', SecretString: 'v2', ClientRequestToken: TOKEN_A }),
    );
    const retried = await sm.send(
      new PutSecretValueCommand({ SecretId: 'app', SecretString: 'v2', ClientRequestToken: TOKEN_A }),
    );
    expect(retried.VersionId).toBe(put.VersionId);
    await expect(
      sm.send(
        new PutSecretValueCommand({ SecretId: 'app', SecretString: 'other', ClientRequestToken: TOKEN_A }),
      ),
    ).rejects.toMatchObject({ name: 'ResourceExistsException' });
    await expect(sm.send(new PutSecretValueCommand({ SecretId: 'app' }))).rejects.toMatchObject({
      name: 'InvalidRequestException',
    });

    const pending = await sm.send(
      new PutSecretValueCommand({ SecretId: 'app', SecretString: 'staged', VersionStages: ['AWSPENDING'] }),
    );
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'app' }))).SecretString).toBe('v2');
    expect(
      (await sm.send(new GetSecretValueCommand({ SecretId: 'app', VersionStage: 'AWSPENDING' }))).VersionId,
    ).toBe(pending.VersionId);

    const updated = await sm.send(
      new UpdateSecretCommand({
        SecretId: 'app',
        Description: 'the app',
        SecretString: 'v3',
        ClientRequestToken: TOKEN_B,
      }),
    );
    const updatedAgain = await sm.send(
      new UpdateSecretCommand({
        SecretId: 'app',
        Description: 'the app',
        SecretString: 'v3',
        ClientRequestToken: TOKEN_B,
      }),
    );
    expect(updatedAgain.VersionId).toBe(updated.VersionId);
    const described = await sm.send(new DescribeSecretCommand({ SecretId: 'app' }));
    expect(described.Description).toBe('the app');
    expect(described.VersionIdsToStages).toEqual({
      [put.VersionId!]: ['AWSPREVIOUS'],
      [pending.VersionId!]: ['AWSPENDING'],
      [TOKEN_B]: ['AWSCURRENT'],
    });
    // Metadata only: no new version.
    const metadataOnly = await sm.send(new UpdateSecretCommand({ SecretId: 'app', Description: '' }));
    expect(metadataOnly.VersionId).toBeUndefined();
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'app' }))).Description).toBeUndefined();

    const versions = await sm.send(new ListSecretVersionIdsCommand({ SecretId: 'app', MaxResults: 2 }));
    expect(versions.Versions).toHaveLength(2);
    const rest = await sm.send(
      new ListSecretVersionIdsCommand({ SecretId: 'app', MaxResults: 2, NextToken: versions.NextToken }),
    );
    expect(rest.NextToken).toBeUndefined();
    expect([...versions.Versions!, ...rest.Versions!].map((v) => v.VersionId).sort()).toEqual(
      [put.VersionId!, pending.VersionId!, TOKEN_B].sort(),
    );
    const all = await sm.send(new ListSecretVersionIdsCommand({ SecretId: 'app', IncludeDeprecated: true }));
    expect(all.Versions).toHaveLength(4);
  });

  test('a binary secret round-trips; string and binary together are refused', async () => {
    const bytes = Uint8Array.from([0, 1, 2, 250]);
    await sm.send(new CreateSecretCommand({ Name: 'bin', SecretBinary: bytes }));
    expect(
      Buffer.from((await sm.send(new GetSecretValueCommand({ SecretId: 'bin' }))).SecretBinary!),
    ).toEqual(Buffer.from(bytes));
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'both', SecretBinary: bytes, SecretString: 'x' })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
  });
});

describe('KMS keys', () => {
  test('a secret under a customer key: unknown keys refused, a disabled key fails decryption', async () => {
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'k', SecretString: 'x', KmsKeyId: 'alias/missing' })),
    ).rejects.toMatchObject({ name: 'EncryptionFailure' });
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    await sm.send(new CreateSecretCommand({ Name: 'k', SecretString: 'x', KmsKeyId: key.Arn }));
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'k' }))).KmsKeyId).toBe(key.Arn);
    await kms.send(new DisableKeyCommand({ KeyId: key.KeyId }));
    await expect(sm.send(new GetSecretValueCommand({ SecretId: 'k' }))).rejects.toMatchObject({
      name: 'DecryptionFailure',
    });
    // Back to the AWS managed key: DescribeSecret names no key.
    await sm.send(new UpdateSecretCommand({ SecretId: 'k', KmsKeyId: 'alias/aws/secretsmanager' }));
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'k' }))).KmsKeyId).toBeUndefined();
  });
});

describe('deletion and recovery', () => {
  test('recovery windows, restore, forced deletion, and the name lag behind its switch', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'gone', SecretString: 'x' }));
    await expect(
      sm.send(new DeleteSecretCommand({ SecretId: 'gone', RecoveryWindowInDays: 6 })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sm.send(
        new DeleteSecretCommand({
          SecretId: 'gone',
          RecoveryWindowInDays: 7,
          ForceDeleteWithoutRecovery: true,
        }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    const scheduled = await sm.send(new DeleteSecretCommand({ SecretId: 'gone', RecoveryWindowInDays: 7 }));
    expect(scheduled.DeletionDate!.getTime() - Date.now()).toBeGreaterThan(6 * 86_400_000);
    await expect(sm.send(new CreateSecretCommand({ Name: 'gone', SecretString: 'y' }))).rejects.toMatchObject(
      {
        name: 'InvalidRequestException',
      },
    );
    await expect(
      sm.send(new UpdateSecretCommand({ SecretId: 'gone', Description: 'd' })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestException',
    });
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 'gone' }))).DeletedDate).toBeInstanceOf(Date);
    expect((await sm.send(new ListSecretsCommand({}))).SecretList).toEqual([]);
    expect(
      (await sm.send(new ListSecretsCommand({ IncludePlannedDeletion: true }))).SecretList!.map(
        (s) => s.Name,
      ),
    ).toEqual(['gone']);
    await sm.send(new RestoreSecretCommand({ SecretId: 'gone' }));
    expect((await sm.send(new GetSecretValueCommand({ SecretId: 'gone' }))).SecretString).toBe('x');

    await sm.send(new DeleteSecretCommand({ SecretId: 'gone', ForceDeleteWithoutRecovery: true }));
    await expect(sm.send(new DescribeSecretCommand({ SecretId: 'gone' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    // Forcing the deletion of a secret that is not there is not an error.
    await sm.send(new DeleteSecretCommand({ SecretId: 'never', ForceDeleteWithoutRecovery: true }));
    await expect(sm.send(new DeleteSecretCommand({ SecretId: 'never' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });

    await ctx.emulator.control.setConsistency('secretsmanager.delete-lag', {
      enabled: true,
      delayMs: 3_600_000,
    });
    await sm.send(new CreateSecretCommand({ Name: 'lagging', SecretString: 'x' }));
    await sm.send(new DeleteSecretCommand({ SecretId: 'lagging', ForceDeleteWithoutRecovery: true }));
    await expect(
      sm.send(new CreateSecretCommand({ Name: 'lagging', SecretString: 'y' })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestException',
    });
    await expect(sm.send(new RestoreSecretCommand({ SecretId: 'lagging' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
  });
});

describe('tags and resource policies', () => {
  test('TagResource merges, UntagResource removes, reserved keys are refused', async () => {
    await sm.send(
      new CreateSecretCommand({ Name: 't', SecretString: 'x', Tags: [{ Key: 'a', Value: '1' }] }),
    );
    await sm.send(
      new TagResourceCommand({
        SecretId: 't',
        Tags: [
          { Key: 'a', Value: '2' },
          { Key: 'b', Value: '3' },
        ],
      }),
    );
    await sm.send(new UntagResourceCommand({ SecretId: 't', TagKeys: ['b', 'absent'] }));
    expect((await sm.send(new DescribeSecretCommand({ SecretId: 't' }))).Tags).toEqual([
      { Key: 'a', Value: '2' },
    ]);
    await expect(
      sm.send(new TagResourceCommand({ SecretId: 't', Tags: [{ Key: 'aws:x', Value: '1' }] })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(
      sm.send(new TagResourceCommand({ SecretId: 'missing', Tags: [{ Key: 'k', Value: 'v' }] })),
    ).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
  });

  test('PutResourcePolicy validates, blocks public policies on request, and round-trips', async () => {
    await sm.send(new CreateSecretCommand({ Name: 'p', SecretString: 'x' }));
    expect((await sm.send(new GetResourcePolicyCommand({ SecretId: 'p' }))).ResourcePolicy).toBeUndefined();
    await expect(
      sm.send(new PutResourcePolicyCommand({ SecretId: 'p', ResourcePolicy: '{not json' })),
    ).rejects.toMatchObject({ name: 'MalformedPolicyDocumentException' });
    const open = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Principal: '*', Action: 'secretsmanager:GetSecretValue', Resource: '*' },
      ],
    });
    await expect(
      sm.send(new PutResourcePolicyCommand({ SecretId: 'p', ResourcePolicy: open, BlockPublicPolicy: true })),
    ).rejects.toMatchObject({ name: 'PublicPolicyException' });
    const policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::123456789012:root' },
          Action: 'secretsmanager:GetSecretValue',
          Resource: '*',
        },
      ],
    });
    await sm.send(
      new PutResourcePolicyCommand({ SecretId: 'p', ResourcePolicy: policy, BlockPublicPolicy: true }),
    );
    expect((await sm.send(new GetResourcePolicyCommand({ SecretId: 'p' }))).ResourcePolicy).toBe(policy);
    await sm.send(new DeleteResourcePolicyCommand({ SecretId: 'p' }));
    expect((await sm.send(new GetResourcePolicyCommand({ SecretId: 'p' }))).ResourcePolicy).toBeUndefined();
  });
});

describe('replication', () => {
  test('a replica reads its primary, refuses writes, and blocks deletion until removed', async () => {
    const created = await sm.send(
      new CreateSecretCommand({ Name: 'r', SecretString: 'x', AddReplicaRegions: [{ Region: 'us-west-2' }] }),
    );
    expect(created.ReplicationStatus).toEqual([{ Region: 'us-west-2', Status: 'InSync' }]);
    const replica = await west.send(new DescribeSecretCommand({ SecretId: 'r' }));
    expect(replica).toMatchObject({
      PrimaryRegion: 'us-east-1',
      ARN: expect.stringContaining(':us-west-2:'),
    });
    expect((await west.send(new GetSecretValueCommand({ SecretId: 'r' }))).SecretString).toBe('x');
    await sm.send(new PutSecretValueCommand({ SecretId: 'r', SecretString: 'y' }));
    expect((await west.send(new GetSecretValueCommand({ SecretId: 'r' }))).SecretString).toBe('y');
    await expect(
      west.send(new PutSecretValueCommand({ SecretId: 'r', SecretString: 'z' })),
    ).rejects.toMatchObject({
      name: 'InvalidRequestException',
    });
    await expect(
      sm.send(new DeleteSecretCommand({ SecretId: 'r', ForceDeleteWithoutRecovery: true })),
    ).rejects.toMatchObject({ name: 'InvalidRequestException' });

    // A name already taken in the target Region fails that replica unless overwriting is forced.
    await west.send(new CreateSecretCommand({ Name: 'taken', SecretString: 'local' }));
    await sm.send(new CreateSecretCommand({ Name: 'taken', SecretString: 'primary' }));
    const failed = await sm.send(
      new ReplicateSecretToRegionsCommand({
        SecretId: 'taken',
        AddReplicaRegions: [{ Region: 'us-west-2' }],
      }),
    );
    expect(failed.ReplicationStatus).toMatchObject([{ Region: 'us-west-2', Status: 'Failed' }]);

    const removed = await sm.send(
      new RemoveRegionsFromReplicationCommand({ SecretId: 'r', RemoveReplicaRegions: ['us-west-2'] }),
    );
    expect(removed.ReplicationStatus).toEqual([]);
    await expect(west.send(new DescribeSecretCommand({ SecretId: 'r' }))).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    await sm.send(new DeleteSecretCommand({ SecretId: 'r', ForceDeleteWithoutRecovery: true }));
  });
});

describe('passwords and listing', () => {
  test('GetRandomPassword honours every option and refuses impossible ones', async () => {
    const plain = (await sm.send(new GetRandomPasswordCommand({}))).RandomPassword!;
    expect(plain).toHaveLength(32);
    expect(plain).toMatch(/[a-z]/);
    expect(plain).toMatch(/[A-Z]/);
    expect(plain).toMatch(/[0-9]/);
    expect(plain).not.toContain(' ');
    const digits = await sm.send(
      new GetRandomPasswordCommand({
        PasswordLength: 50,
        ExcludeLowercase: true,
        ExcludeUppercase: true,
        ExcludePunctuation: true,
        ExcludeCharacters: '0123',
      }),
    );
    expect(digits.RandomPassword).toMatch(/^[4-9]{50}$/);
    const spaced = await sm.send(
      new GetRandomPasswordCommand({ PasswordLength: 5, IncludeSpace: true, ExcludePunctuation: true }),
    );
    expect(spaced.RandomPassword).toContain(' ');
    await expect(
      sm.send(new GetRandomPasswordCommand({ PasswordLength: 2, ExcludePunctuation: true })),
    ).rejects.toMatchObject({ name: 'InvalidParameterException' });
    await expect(sm.send(new GetRandomPasswordCommand({ PasswordLength: 4097 }))).rejects.toMatchObject({
      name: expect.stringMatching(/InvalidParameterException|ValidationException/),
    });
  });

  test('ListSecrets filters (negation, case rules) and pages', async () => {
    for (const name of ['prod/db', 'prod/api', 'dev/db'])
      await sm.send(
        new CreateSecretCommand({
          Name: name,
          SecretString: 'x',
          Description: `The ${name.toUpperCase()} secret`,
          Tags: [{ Key: 'env', Value: name.split('/')[0]! }],
        }),
      );
    const names = async (input: ListSecretsCommandInput) =>
      ((await sm.send(new ListSecretsCommand(input))).SecretList ?? []).map((s) => s.Name);
    expect(await names({ Filters: [{ Key: 'name', Values: ['prod/'] }] })).toEqual(['prod/db', 'prod/api']);
    expect(await names({ Filters: [{ Key: 'name', Values: ['!prod/'] }] })).toEqual(['dev/db']);
    expect(await names({ Filters: [{ Key: 'description', Values: ['the dev'] }] })).toEqual(['dev/db']);
    expect(await names({ Filters: [{ Key: 'tag-value', Values: ['dev'] }] })).toEqual(['dev/db']);
    expect(await names({ Filters: [{ Key: 'all', Values: ['api'] }] })).toEqual(['prod/api']);
    expect(await names({ SortOrder: 'desc' })).toEqual(['dev/db', 'prod/api', 'prod/db']);
    await expect(
      sm.send(new ListSecretsCommand({ Filters: [{ Key: 'colour' as never, Values: ['x'] }] })),
    ).rejects.toMatchObject({ name: expect.stringMatching(/InvalidParameterException|ValidationException/) });

    const first = await sm.send(new ListSecretsCommand({ MaxResults: 2 }));
    expect(first.SecretList).toHaveLength(2);
    const second = await sm.send(new ListSecretsCommand({ MaxResults: 2, NextToken: first.NextToken }));
    expect(second.SecretList!.map((s) => s.Name)).toEqual(['dev/db']);
    expect(second.NextToken).toBeUndefined();
    await expect(sm.send(new ListSecretsCommand({ NextToken: 'garbage!' }))).rejects.toMatchObject({
      name: 'InvalidNextTokenException',
    });
  });

  test('throttling (through a fault) is retried by the SDK', async () => {
    const retrying = new SecretsManagerClient({ ...clientConfig(ctx.emulator), maxAttempts: 3 });
    await ctx.emulator.control.addFault({
      service: 'secretsmanager',
      operation: 'CreateSecret',
      error: 'ThrottlingException',
      count: 1,
    });
    const out = await retrying.send(new CreateSecretCommand({ Name: 'throttled', SecretString: 'x' }));
    expect(out.$metadata.attempts).toBe(2);
    retrying.destroy();
  });
});

describe('the shared view with Cloud Control', () => {
  test('a native secret is an AWS::SecretsManager::Secret resource and an inventory item; replicas are not', async () => {
    const created = await sm.send(
      new CreateSecretCommand({
        Name: 'native',
        SecretString: 'x',
        Description: 'd',
        Tags: [{ Key: 'a', Value: '1' }],
        AddReplicaRegions: [{ Region: 'us-west-2' }],
      }),
    );
    const model = JSON.parse(
      (
        await cc.send(
          new GetResourceCommand({ TypeName: 'AWS::SecretsManager::Secret', Identifier: created.ARN }),
        )
      ).ResourceDescription!.Properties!,
    );
    expect(model).toEqual({
      Id: created.ARN,
      Name: 'native',
      Description: 'd',
      ReplicaRegions: [{ Region: 'us-west-2' }],
      Tags: [{ Key: 'a', Value: '1' }],
    });
    const inventory = await ctx.emulator.control.inventory();
    expect(
      inventory.filter((i) => i.type === 'AWS::SecretsManager::Secret').map((i) => i.identifier),
    ).toEqual([created.ARN]);
  });

  test('a secret made, updated and deleted through Cloud Control behaves as the CloudFormation handler', async () => {
    const key = (await kms.send(new CreateKeyCommand({}))).KeyMetadata!;
    const made = await ccRequest(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::SecretsManager::Secret',
          DesiredState: JSON.stringify({
            Name: 'by-cc',
            Description: 'first',
            KmsKeyId: key.Arn,
            SecretString: 'v1',
            ReplicaRegions: [{ Region: 'us-west-2' }],
            Tags: [
              { Key: 'keep', Value: '1' },
              { Key: 'drop', Value: '2' },
            ],
          }),
        }),
      ),
    );
    expect(made.OperationStatus).toBe('SUCCESS');
    const arn = made.Identifier!;
    expect((await sm.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString).toBe('v1');

    const updated = await ccRequest(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::SecretsManager::Secret',
          Identifier: arn,
          PatchDocument: JSON.stringify([
            { op: 'remove', path: '/Description' },
            { op: 'remove', path: '/KmsKeyId' },
            { op: 'remove', path: '/ReplicaRegions' },
            { op: 'replace', path: '/Tags', value: [{ Key: 'keep', Value: '9' }] },
            { op: 'add', path: '/SecretString', value: 'v2' },
          ]),
        }),
      ),
    );
    expect(updated.OperationStatus).toBe('SUCCESS');
    const described = await sm.send(new DescribeSecretCommand({ SecretId: arn }));
    expect(described).toMatchObject({ Tags: [{ Key: 'keep', Value: '9' }] });
    expect(described.Description).toBeUndefined();
    expect(described.KmsKeyId).toBeUndefined();
    expect(described.ReplicationStatus).toBeUndefined();
    expect((await sm.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString).toBe('v2');

    const deleted = await ccRequest(
      cc.send(new DeleteResourceCommand({ TypeName: 'AWS::SecretsManager::Secret', Identifier: arn })),
    );
    expect(deleted.OperationStatus).toBe('SUCCESS');
    // Deleted without a recovery window: the name is free again.
    await sm.send(new CreateSecretCommand({ Name: 'by-cc', SecretString: 'again' }));
    expect(
      (
        await cc.send(new ListResourcesCommand({ TypeName: 'AWS::SecretsManager::Secret' }))
      ).ResourceDescriptions!.map((d) => d.Identifier),
    ).toHaveLength(1);
    const gone = await ccRequest(
      cc.send(new DeleteResourceCommand({ TypeName: 'AWS::SecretsManager::Secret', Identifier: arn })),
    );
    expect(gone).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'NotFound' });
  });
});

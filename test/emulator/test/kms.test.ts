/**
 * KMS through the real SDK client: keys (specs, usages, states, deletion),
 * rotation, key policies, tags, aliases, envelope cryptography, pagination,
 * errors, and the shared view with Cloud Control's AWS::KMS::Key / Alias.
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
import {
  CancelKeyDeletionCommand,
  CreateAliasCommand,
  CreateKeyCommand,
  DecryptCommand,
  DeleteAliasCommand,
  DescribeKeyCommand,
  DisableKeyCommand,
  DisableKeyRotationCommand,
  EnableKeyCommand,
  EnableKeyRotationCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  GetKeyPolicyCommand,
  GetKeyRotationStatusCommand,
  KMSClient,
  ListAliasesCommand,
  ListKeysCommand,
  ListResourceTagsCommand,
  PutKeyPolicyCommand,
  ScheduleKeyDeletionCommand,
  TagResourceCommand,
  UntagResourceCommand,
  UpdateAliasCommand,
  UpdateKeyDescriptionCommand,
} from '@aws-sdk/client-kms';
import { clientConfig, useEmulator } from './helpers';

const ctx = useEmulator();
let kms: KMSClient;
let cc: CloudControlClient;
const ACCOUNT = '123456789012';

beforeAll(() => {
  kms = new KMSClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
  cc = new CloudControlClient({ ...clientConfig(ctx.emulator), maxAttempts: 1 });
});
afterAll(() => {
  kms.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

const newKey = async (input: ConstructorParameters<typeof CreateKeyCommand>[0] = {}) =>
  (await kms.send(new CreateKeyCommand(input))).KeyMetadata!;

async function ccRequest(send: Promise<{ ProgressEvent?: { RequestToken?: string } }>) {
  const token = (await send).ProgressEvent!.RequestToken!;
  return (await cc.send(new GetResourceRequestStatusCommand({ RequestToken: token }))).ProgressEvent!;
}

describe('keys', () => {
  test('CreateKey defaults, DescribeKey by id, ARN and alias, and the default key policy', async () => {
    const key = await newKey({ Description: 'app key' });
    expect(key).toMatchObject({
      AWSAccountId: ACCOUNT,
      Enabled: true,
      KeyState: 'Enabled',
      KeyUsage: 'ENCRYPT_DECRYPT',
      KeySpec: 'SYMMETRIC_DEFAULT',
      CustomerMasterKeySpec: 'SYMMETRIC_DEFAULT',
      Origin: 'AWS_KMS',
      KeyManager: 'CUSTOMER',
      MultiRegion: false,
      EncryptionAlgorithms: ['SYMMETRIC_DEFAULT'],
      Description: 'app key',
    });
    expect(key.KeyId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(key.Arn).toBe(`arn:aws:kms:us-east-1:${ACCOUNT}:key/${key.KeyId}`);
    expect(key.CreationDate).toBeInstanceOf(Date);
    expect((await kms.send(new DescribeKeyCommand({ KeyId: key.Arn }))).KeyMetadata?.KeyId).toBe(key.KeyId);
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/app', TargetKeyId: key.KeyId }));
    expect((await kms.send(new DescribeKeyCommand({ KeyId: 'alias/app' }))).KeyMetadata?.KeyId).toBe(
      key.KeyId,
    );
    expect(
      (await kms.send(new DescribeKeyCommand({ KeyId: `arn:aws:kms:us-east-1:${ACCOUNT}:alias/app` })))
        .KeyMetadata?.KeyId,
    ).toBe(key.KeyId);

    const policy = JSON.parse((await kms.send(new GetKeyPolicyCommand({ KeyId: key.KeyId }))).Policy!);
    expect(policy).toEqual({
      Version: '2012-10-17',
      Id: 'key-default-1',
      Statement: [
        {
          Sid: 'Enable IAM User Permissions',
          Effect: 'Allow',
          Principal: { AWS: `arn:aws:iam::${ACCOUNT}:root` },
          Action: 'kms:*',
          Resource: '*',
        },
      ],
    });
  });

  test('key specs and usages: asymmetric, HMAC, multi-Region, external; incompatible combinations', async () => {
    const rsa = await newKey({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' });
    expect(rsa.SigningAlgorithms).toContain('RSASSA_PSS_SHA_256');
    expect(rsa.EncryptionAlgorithms).toBeUndefined();
    const hmac = await newKey({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
    expect(hmac.MacAlgorithms).toEqual(['HMAC_SHA_256']);
    const multi = await newKey({ MultiRegion: true });
    expect(multi.KeyId).toMatch(/^mrk-[0-9a-f]{32}$/);
    expect(multi.MultiRegionConfiguration).toEqual({
      MultiRegionKeyType: 'PRIMARY',
      PrimaryKey: { Arn: multi.Arn, Region: 'us-east-1' },
      ReplicaKeys: [],
    });
    const external = await newKey({ Origin: 'EXTERNAL' });
    expect(external).toMatchObject({ KeyState: 'PendingImport', Enabled: false, Origin: 'EXTERNAL' });

    await expect(newKey({ KeySpec: 'HMAC_256' })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(newKey({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'ENCRYPT_DECRYPT' })).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(newKey({ KeySpec: 'AES_999' as never })).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  test('not found, invalid ids and ARNs, another region', async () => {
    const missing = '11111111-2222-3333-4444-555555555555';
    await expect(kms.send(new DescribeKeyCommand({ KeyId: missing }))).rejects.toMatchObject({
      name: 'NotFoundException',
      message: `Key 'arn:aws:kms:us-east-1:${ACCOUNT}:key/${missing}' does not exist`,
    });
    await expect(kms.send(new DescribeKeyCommand({ KeyId: 'alias/none' }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    await expect(kms.send(new DescribeKeyCommand({ KeyId: 'arn:aws:kms:nope' }))).rejects.toMatchObject({
      name: 'InvalidArnException',
    });
    const key = await newKey();
    const west = new KMSClient({ ...clientConfig(ctx.emulator, 'us-west-2'), maxAttempts: 1 });
    await expect(west.send(new DescribeKeyCommand({ KeyId: key.KeyId }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
    west.destroy();
    // Operations that take a key id or ARN only refuse alias names.
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/k', TargetKeyId: key.KeyId }));
    await expect(kms.send(new DisableKeyCommand({ KeyId: 'alias/k' }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
  });

  test('ListKeys paginates with Limit and Marker', async () => {
    const made = [];
    for (let i = 0; i < 5; i++) made.push((await newKey()).KeyId);
    const seen: string[] = [];
    let Marker: string | undefined;
    do {
      const page = await kms.send(new ListKeysCommand({ Limit: 2, Marker }));
      expect(page.Keys!.length).toBeLessThanOrEqual(2);
      seen.push(...page.Keys!.map((k) => k.KeyId!));
      expect(page.Truncated).toBe(page.NextMarker !== undefined);
      Marker = page.NextMarker;
    } while (Marker);
    expect(seen).toEqual(made);
    await expect(kms.send(new ListKeysCommand({ Marker: 'bm90LWEtbWFya2Vy' }))).rejects.toMatchObject({
      name: 'InvalidMarkerException',
    });
  });

  test('enable, disable, schedule and cancel deletion with the key-state rules', async () => {
    const { KeyId } = await newKey();
    await kms.send(new DisableKeyCommand({ KeyId }));
    expect((await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata).toMatchObject({
      Enabled: false,
      KeyState: 'Disabled',
    });
    await kms.send(new EnableKeyCommand({ KeyId }));
    await expect(
      kms.send(new ScheduleKeyDeletionCommand({ KeyId, PendingWindowInDays: 6 })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    const scheduled = await kms.send(new ScheduleKeyDeletionCommand({ KeyId, PendingWindowInDays: 7 }));
    expect(scheduled).toMatchObject({ KeyState: 'PendingDeletion', PendingWindowInDays: 7 });
    expect(scheduled.KeyId).toMatch(/^arn:aws:kms:/);
    const days = (scheduled.DeletionDate!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(6.9);
    expect(days).toBeLessThanOrEqual(7);
    expect((await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata).toMatchObject({
      KeyState: 'PendingDeletion',
      PendingDeletionWindowInDays: 7,
    });
    for (const command of [
      new EnableKeyCommand({ KeyId }),
      new ScheduleKeyDeletionCommand({ KeyId }),
      new TagResourceCommand({ KeyId, Tags: [{ TagKey: 'a', TagValue: 'b' }] }),
      new EncryptCommand({ KeyId, Plaintext: Buffer.from('x') }),
    ]) {
      await expect(kms.send(command as never)).rejects.toMatchObject({ name: 'KMSInvalidStateException' });
    }
    await kms.send(new CancelKeyDeletionCommand({ KeyId }));
    const restored = (await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata!;
    expect(restored.KeyState).toBe('Disabled');
    expect(restored.DeletionDate).toBeUndefined();
    await expect(kms.send(new CancelKeyDeletionCommand({ KeyId }))).rejects.toMatchObject({
      name: 'KMSInvalidStateException',
    });
  });

  test('automatic rotation with a rotation period', async () => {
    const { KeyId } = await newKey();
    const initial = await kms.send(new GetKeyRotationStatusCommand({ KeyId }));
    expect(initial.KeyRotationEnabled).toBe(false);
    expect(initial.RotationPeriodInDays).toBeUndefined();
    await kms.send(new EnableKeyRotationCommand({ KeyId, RotationPeriodInDays: 180 }));
    const status = await kms.send(new GetKeyRotationStatusCommand({ KeyId }));
    expect(status).toMatchObject({ KeyRotationEnabled: true, RotationPeriodInDays: 180 });
    expect(status.NextRotationDate).toBeInstanceOf(Date);
    await kms.send(new EnableKeyRotationCommand({ KeyId }));
    expect((await kms.send(new GetKeyRotationStatusCommand({ KeyId }))).RotationPeriodInDays).toBe(365);
    await expect(
      kms.send(new EnableKeyRotationCommand({ KeyId, RotationPeriodInDays: 89 })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await kms.send(new DisableKeyRotationCommand({ KeyId }));
    expect((await kms.send(new GetKeyRotationStatusCommand({ KeyId }))).KeyRotationEnabled).toBe(false);

    const rsa = await newKey({ KeySpec: 'RSA_2048', KeyUsage: 'ENCRYPT_DECRYPT' });
    await expect(kms.send(new EnableKeyRotationCommand({ KeyId: rsa.KeyId }))).rejects.toMatchObject({
      name: 'UnsupportedOperationException',
    });
    await kms.send(new DisableKeyCommand({ KeyId }));
    await expect(kms.send(new EnableKeyRotationCommand({ KeyId }))).rejects.toMatchObject({
      name: 'DisabledException',
    });
  });

  test('key policies: put and get, malformed, and the lockout safety check', async () => {
    const { KeyId } = await newKey();
    const policy = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Principal: { AWS: ACCOUNT }, Action: 'kms:*', Resource: '*' }],
    });
    await kms.send(new PutKeyPolicyCommand({ KeyId, Policy: policy, PolicyName: 'default' }));
    expect(await kms.send(new GetKeyPolicyCommand({ KeyId }))).toMatchObject({
      Policy: policy,
      PolicyName: 'default',
    });
    await expect(kms.send(new PutKeyPolicyCommand({ KeyId, Policy: '{not json' }))).rejects.toMatchObject({
      name: 'MalformedPolicyDocumentException',
    });
    const lockout = JSON.stringify({
      Statement: [
        {
          Effect: 'Allow',
          Principal: { AWS: 'arn:aws:iam::999999999999:root' },
          Action: 'kms:*',
          Resource: '*',
        },
      ],
    });
    await expect(kms.send(new PutKeyPolicyCommand({ KeyId, Policy: lockout }))).rejects.toMatchObject({
      name: 'MalformedPolicyDocumentException',
    });
    await kms.send(new PutKeyPolicyCommand({ KeyId, Policy: lockout, BypassPolicyLockoutSafetyCheck: true }));
    await expect(newKey({ Policy: lockout })).rejects.toMatchObject({
      name: 'MalformedPolicyDocumentException',
    });
    await kms.send(new UpdateKeyDescriptionCommand({ KeyId, Description: 'described' }));
    expect((await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata?.Description).toBe('described');
  });

  test('tags: create, tag (overwriting a value), untag, list paginated, reserved prefix', async () => {
    const { KeyId } = await newKey({ Tags: [{ TagKey: 'team', TagValue: 'a' }] });
    await kms.send(
      new TagResourceCommand({
        KeyId,
        Tags: [
          { TagKey: 'team', TagValue: 'b' },
          { TagKey: 'env', TagValue: 'dev' },
        ],
      }),
    );
    expect((await kms.send(new ListResourceTagsCommand({ KeyId }))).Tags).toEqual([
      { TagKey: 'team', TagValue: 'b' },
      { TagKey: 'env', TagValue: 'dev' },
    ]);
    const first = await kms.send(new ListResourceTagsCommand({ KeyId, Limit: 1 }));
    expect(first).toMatchObject({ Truncated: true, Tags: [{ TagKey: 'team', TagValue: 'b' }] });
    const second = await kms.send(new ListResourceTagsCommand({ KeyId, Limit: 1, Marker: first.NextMarker }));
    expect(second).toMatchObject({ Truncated: false, Tags: [{ TagKey: 'env', TagValue: 'dev' }] });
    await kms.send(new UntagResourceCommand({ KeyId, TagKeys: ['team'] }));
    expect((await kms.send(new ListResourceTagsCommand({ KeyId }))).Tags).toEqual([
      { TagKey: 'env', TagValue: 'dev' },
    ]);
    await expect(
      kms.send(new TagResourceCommand({ KeyId, Tags: [{ TagKey: 'aws:x', TagValue: 'y' }] })),
    ).rejects.toMatchObject({ name: 'TagException' });
  });
});

describe('aliases', () => {
  test('create, list (by key, paginated), update target, delete, and their errors', async () => {
    const one = await newKey();
    const two = await newKey();
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/app/main', TargetKeyId: one.Arn }));
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/app/other', TargetKeyId: one.KeyId }));
    await expect(
      kms.send(new CreateAliasCommand({ AliasName: 'alias/app/main', TargetKeyId: two.KeyId })),
    ).rejects.toMatchObject({
      name: 'AlreadyExistsException',
      message: `An alias with the name arn:aws:kms:us-east-1:${ACCOUNT}:alias/app/main already exists`,
    });
    await expect(
      kms.send(new CreateAliasCommand({ AliasName: 'alias/aws/mine', TargetKeyId: one.KeyId })),
    ).rejects.toMatchObject({ name: 'InvalidAliasNameException' });
    await expect(
      kms.send(new CreateAliasCommand({ AliasName: 'app', TargetKeyId: one.KeyId })),
    ).rejects.toMatchObject({
      name: 'InvalidAliasNameException',
    });
    await expect(
      kms.send(
        new CreateAliasCommand({ AliasName: 'alias/x', TargetKeyId: '11111111-2222-3333-4444-555555555555' }),
      ),
    ).rejects.toMatchObject({ name: 'NotFoundException' });

    const listed = await kms.send(new ListAliasesCommand({}));
    expect(listed.Aliases!.map((a) => [a.AliasName, a.TargetKeyId, a.AliasArn])).toEqual([
      ['alias/app/main', one.KeyId, `arn:aws:kms:us-east-1:${ACCOUNT}:alias/app/main`],
      ['alias/app/other', one.KeyId, `arn:aws:kms:us-east-1:${ACCOUNT}:alias/app/other`],
    ]);
    const paged = await kms.send(new ListAliasesCommand({ Limit: 1 }));
    expect(paged.Truncated).toBe(true);
    expect(
      (await kms.send(new ListAliasesCommand({ Limit: 1, Marker: paged.NextMarker }))).Aliases,
    ).toHaveLength(1);

    await kms.send(new UpdateAliasCommand({ AliasName: 'alias/app/main', TargetKeyId: two.KeyId }));
    expect(
      (await kms.send(new ListAliasesCommand({ KeyId: two.Arn }))).Aliases!.map((a) => a.AliasName),
    ).toEqual(['alias/app/main']);
    const hmac = await newKey({ KeySpec: 'HMAC_256', KeyUsage: 'GENERATE_VERIFY_MAC' });
    await expect(
      kms.send(new UpdateAliasCommand({ AliasName: 'alias/app/main', TargetKeyId: hmac.KeyId })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      kms.send(new UpdateAliasCommand({ AliasName: 'alias/none', TargetKeyId: two.KeyId })),
    ).rejects.toMatchObject({ name: 'NotFoundException' });
    await kms.send(new DeleteAliasCommand({ AliasName: 'alias/app/main' }));
    await expect(kms.send(new DeleteAliasCommand({ AliasName: 'alias/app/main' }))).rejects.toMatchObject({
      name: 'NotFoundException',
    });
  });
});

describe('cryptography', () => {
  test('Encrypt and Decrypt (no KeyId needed), encryption context, data keys, disabled keys', async () => {
    const { KeyId, Arn } = await newKey();
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/crypt', TargetKeyId: KeyId }));
    const encrypted = await kms.send(
      new EncryptCommand({
        KeyId: 'alias/crypt',
        Plaintext: Buffer.from('hello'),
        EncryptionContext: { app: 'x' },
      }),
    );
    expect(encrypted).toMatchObject({ KeyId: Arn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' });
    expect(Buffer.from(encrypted.CiphertextBlob!).toString()).not.toContain('hello');
    const decrypted = await kms.send(
      new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob, EncryptionContext: { app: 'x' } }),
    );
    expect(Buffer.from(decrypted.Plaintext!).toString()).toBe('hello');
    expect(decrypted.KeyId).toBe(Arn);
    await expect(
      kms.send(
        new DecryptCommand({ CiphertextBlob: encrypted.CiphertextBlob, EncryptionContext: { app: 'y' } }),
      ),
    ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(
      kms.send(new DecryptCommand({ CiphertextBlob: Buffer.from('garbage') })),
    ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    const other = await newKey();
    await expect(
      kms.send(
        new DecryptCommand({
          CiphertextBlob: encrypted.CiphertextBlob,
          EncryptionContext: { app: 'x' },
          KeyId: other.KeyId,
        }),
      ),
    ).rejects.toMatchObject({ name: 'IncorrectKeyException' });

    const dataKey = await kms.send(new GenerateDataKeyCommand({ KeyId, KeySpec: 'AES_256' }));
    expect(dataKey.Plaintext).toHaveLength(32);
    const unwrapped = await kms.send(new DecryptCommand({ CiphertextBlob: dataKey.CiphertextBlob }));
    expect(Buffer.from(unwrapped.Plaintext!).equals(Buffer.from(dataKey.Plaintext!))).toBe(true);
    await expect(kms.send(new GenerateDataKeyCommand({ KeyId }))).rejects.toMatchObject({
      name: 'ValidationException',
    });

    await kms.send(new DisableKeyCommand({ KeyId }));
    await expect(kms.send(new EncryptCommand({ KeyId, Plaintext: Buffer.from('x') }))).rejects.toMatchObject({
      name: 'DisabledException',
    });
    const signing = await newKey({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
    await expect(
      kms.send(new EncryptCommand({ KeyId: signing.KeyId, Plaintext: Buffer.from('x') })),
    ).rejects.toMatchObject({ name: 'InvalidKeyUsageException' });
  });

  test('an AWS managed key exists once a service alias is used, and cannot be changed', async () => {
    const out = await kms.send(new EncryptCommand({ KeyId: 'alias/aws/ssm', Plaintext: Buffer.from('x') }));
    const managed = (await kms.send(new DescribeKeyCommand({ KeyId: 'alias/aws/ssm' }))).KeyMetadata!;
    expect(managed).toMatchObject({ KeyManager: 'AWS', Arn: out.KeyId });
    await expect(kms.send(new DisableKeyCommand({ KeyId: managed.KeyId }))).rejects.toMatchObject({
      name: 'UnsupportedOperationException',
    });
  });

  test('throttling is answered as KMS answers it (through a fault) and retried by the SDK', async () => {
    const retrying = new KMSClient({ ...clientConfig(ctx.emulator), maxAttempts: 3 });
    await ctx.emulator.control.addFault({
      service: 'kms',
      operation: 'CreateKey',
      error: 'ThrottlingException',
      count: 1,
    });
    const out = await retrying.send(new CreateKeyCommand({}));
    expect(out.$metadata.attempts).toBe(2);
    retrying.destroy();
  });
});

describe('the shared view with Cloud Control', () => {
  test('a native key and alias are AWS::KMS::Key / Alias resources and inventory items', async () => {
    const key = await newKey({ Description: 'native', Tags: [{ TagKey: 'a', TagValue: '1' }] });
    await kms.send(new EnableKeyRotationCommand({ KeyId: key.KeyId }));
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/native', TargetKeyId: key.KeyId }));
    const model = JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName: 'AWS::KMS::Key', Identifier: key.KeyId })))
        .ResourceDescription!.Properties!,
    );
    expect(model).toMatchObject({
      KeyId: key.KeyId,
      Arn: key.Arn,
      Description: 'native',
      Enabled: true,
      EnableKeyRotation: true,
      KeySpec: 'SYMMETRIC_DEFAULT',
      KeyPolicy: { Id: 'key-default-1' },
      Tags: [{ Key: 'a', Value: '1' }],
    });
    expect(model.RotationPeriodInDays).toBeUndefined(); // write-only
    const alias = JSON.parse(
      (await cc.send(new GetResourceCommand({ TypeName: 'AWS::KMS::Alias', Identifier: 'alias/native' })))
        .ResourceDescription!.Properties!,
    );
    expect(alias).toEqual({ AliasName: 'alias/native', TargetKeyId: key.KeyId });
    const inventory = await ctx.emulator.control.inventory();
    expect(
      inventory.filter((i) => i.type.startsWith('AWS::KMS::')).map((i) => [i.type, i.identifier]),
    ).toEqual([
      ['AWS::KMS::Key', key.KeyId],
      ['AWS::KMS::Alias', 'alias/native'],
    ]);
  });

  test('a key made through Cloud Control follows the CloudFormation handler, and its deletion is scheduled', async () => {
    const created = await ccRequest(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::KMS::Key',
          DesiredState: JSON.stringify({
            Description: 'by cc',
            EnableKeyRotation: true,
            RotationPeriodInDays: 200,
            Enabled: false,
            PendingWindowInDays: 9,
            Tags: [{ Key: 'team', Value: 'x' }],
          }),
        }),
      ),
    );
    expect(created.OperationStatus).toBe('SUCCESS');
    const KeyId = created.Identifier!;
    expect((await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata).toMatchObject({
      Description: 'by cc',
      KeyState: 'Disabled',
    });
    expect(await kms.send(new GetKeyRotationStatusCommand({ KeyId }))).toMatchObject({
      KeyRotationEnabled: true,
      RotationPeriodInDays: 200,
    });

    const refused = await ccRequest(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::KMS::Key',
          Identifier: KeyId,
          PatchDocument: JSON.stringify([{ op: 'add', path: '/KeySpec', value: 'RSA_2048' }]),
        }),
      ),
    );
    expect(refused).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'InvalidRequest' });

    const updated = await ccRequest(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::KMS::Key',
          Identifier: KeyId,
          PatchDocument: JSON.stringify([
            { op: 'replace', path: '/Enabled', value: true },
            { op: 'replace', path: '/Description', value: 'changed' },
          ]),
        }),
      ),
    );
    expect(updated.OperationStatus).toBe('SUCCESS');
    expect((await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata).toMatchObject({
      Description: 'changed',
      KeyState: 'Enabled',
    });

    const deleted = await ccRequest(
      cc.send(new DeleteResourceCommand({ TypeName: 'AWS::KMS::Key', Identifier: KeyId })),
    );
    expect(deleted.OperationStatus).toBe('SUCCESS');
    expect((await kms.send(new DescribeKeyCommand({ KeyId }))).KeyMetadata).toMatchObject({
      KeyState: 'PendingDeletion',
      PendingDeletionWindowInDays: 9,
    });
    // Pending deletion is deleted from the stack's point of view.
    await expect(
      cc.send(new GetResourceCommand({ TypeName: 'AWS::KMS::Key', Identifier: KeyId })),
    ).rejects.toMatchObject({
      name: 'ResourceNotFoundException',
    });
    expect(
      (await cc.send(new ListResourcesCommand({ TypeName: 'AWS::KMS::Key' }))).ResourceDescriptions,
    ).toEqual([]);
    expect((await ctx.emulator.control.inventory()).filter((i) => i.type === 'AWS::KMS::Key')).toEqual([]);
    const again = await ccRequest(
      cc.send(new DeleteResourceCommand({ TypeName: 'AWS::KMS::Key', Identifier: KeyId })),
    );
    expect(again).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'NotFound' });
  });

  test('an alias made through Cloud Control is a KMS alias, and can be retargeted', async () => {
    const one = await newKey();
    const two = await newKey();
    const created = await ccRequest(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::KMS::Alias',
          DesiredState: JSON.stringify({ AliasName: 'alias/cc', TargetKeyId: one.Arn }),
        }),
      ),
    );
    expect(created).toMatchObject({ OperationStatus: 'SUCCESS', Identifier: 'alias/cc' });
    expect((await kms.send(new DescribeKeyCommand({ KeyId: 'alias/cc' }))).KeyMetadata?.KeyId).toBe(
      one.KeyId,
    );
    await ccRequest(
      cc.send(
        new UpdateResourceCommand({
          TypeName: 'AWS::KMS::Alias',
          Identifier: 'alias/cc',
          PatchDocument: JSON.stringify([{ op: 'replace', path: '/TargetKeyId', value: two.KeyId }]),
        }),
      ),
    );
    expect((await kms.send(new DescribeKeyCommand({ KeyId: 'alias/cc' }))).KeyMetadata?.KeyId).toBe(
      two.KeyId,
    );
    const clash = await ccRequest(
      cc.send(
        new CreateResourceCommand({
          TypeName: 'AWS::KMS::Alias',
          DesiredState: JSON.stringify({ AliasName: 'alias/cc', TargetKeyId: one.KeyId }),
        }),
      ),
    );
    expect(clash).toMatchObject({ OperationStatus: 'FAILED', ErrorCode: 'AlreadyExists' });
  });
});

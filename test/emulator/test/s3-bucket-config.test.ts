import {
  CloudControlClient,
  CreateResourceCommand,
  GetResourceCommand,
  GetResourceRequestStatusCommand,
} from '@aws-sdk/client-cloudcontrol';
import type { S3ServiceException } from '@aws-sdk/client-s3';
import {
  CreateBucketCommand,
  DeleteBucketCorsCommand,
  DeleteBucketLifecycleCommand,
  DeleteBucketOwnershipControlsCommand,
  DeleteBucketWebsiteCommand,
  GetBucketCorsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketTaggingCommand,
  GetBucketWebsiteCommand,
  PutBucketCorsCommand,
  PutBucketLifecycleConfigurationCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketWebsiteCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { clientConfig, useEmulator } from './helpers';

// Bucket configurations a CDK app's buckets set: ownership controls, lifecycle,
// CORS, website hosting, and tags at create, through the real SDK.
const ctx = useEmulator();
let s3: S3Client;
let cc: CloudControlClient;

beforeAll(() => {
  s3 = new S3Client(clientConfig(ctx.emulator));
  cc = new CloudControlClient(clientConfig(ctx.emulator));
});
afterAll(() => {
  s3.destroy();
  cc.destroy();
});
beforeEach(() => ctx.emulator.control.reset());

async function failure(promise: Promise<unknown>): Promise<S3ServiceException> {
  try {
    await promise;
  } catch (err) {
    return err as S3ServiceException;
  }
  throw new Error('expected the call to fail');
}

/** Polls a Cloud Control request until it leaves PENDING/IN_PROGRESS. */
async function settled(RequestToken: string): Promise<string> {
  for (;;) {
    const { ProgressEvent: event } = await cc.send(new GetResourceRequestStatusCommand({ RequestToken }));
    const status = event!.OperationStatus!;
    if (status !== 'PENDING' && status !== 'IN_PROGRESS') return status;
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function bucket(name: string): Promise<string> {
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  return name;
}

describe('ownership controls', () => {
  test('a new bucket enforces bucket ownership; put, get and delete', async () => {
    const name = await bucket('own-bucket');
    const initial = await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name }));
    expect(initial.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerEnforced' }]);
    await s3.send(
      new PutBucketOwnershipControlsCommand({
        Bucket: name,
        OwnershipControls: { Rules: [{ ObjectOwnership: 'ObjectWriter' }] },
      }),
    );
    const changed = await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name }));
    expect(changed.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'ObjectWriter' }]);
    await s3.send(new DeleteBucketOwnershipControlsCommand({ Bucket: name }));
    const gone = await failure(s3.send(new GetBucketOwnershipControlsCommand({ Bucket: name })));
    expect(gone.name).toBe('OwnershipControlsNotFoundError');
    expect(gone.$metadata.httpStatusCode).toBe(404);
  });

  test('CreateBucket takes the ownership header, and refuses an unknown value', async () => {
    await s3.send(
      new CreateBucketCommand({ Bucket: 'writer-owned', ObjectOwnership: 'BucketOwnerPreferred' }),
    );
    const out = await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: 'writer-owned' }));
    expect(out.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'BucketOwnerPreferred' }]);
    const bad = await failure(
      s3.send(new CreateBucketCommand({ Bucket: 'bad-owned', ObjectOwnership: 'Nobody' as never })),
    );
    expect(bad.name).toBe('InvalidArgument');
    const badPut = await failure(
      s3.send(
        new PutBucketOwnershipControlsCommand({
          Bucket: 'writer-owned',
          OwnershipControls: { Rules: [{ ObjectOwnership: 'Nobody' as never }] },
        }),
      ),
    );
    expect(badPut.name).toBe('MalformedXML');
  });
});

describe('CreateBucket tags', () => {
  test('tags given at create are the bucket tags; a repeated key is refused', async () => {
    await s3.send(
      new CreateBucketCommand({
        Bucket: 'tagged-at-create',
        CreateBucketConfiguration: { Tags: [{ Key: 'team', Value: 'data' }] },
      }),
    );
    const tags = await s3.send(new GetBucketTaggingCommand({ Bucket: 'tagged-at-create' }));
    expect(tags.TagSet).toEqual([{ Key: 'team', Value: 'data' }]);
    const dup = await failure(
      s3.send(
        new CreateBucketCommand({
          Bucket: 'tagged-twice',
          CreateBucketConfiguration: {
            Tags: [
              { Key: 'a', Value: '1' },
              { Key: 'a', Value: '2' },
            ],
          },
        }),
      ),
    );
    expect(dup.name).toBe('InvalidTag');
  });
});

describe('lifecycle configuration', () => {
  test('put, get (rules, filters, transitions, the minimum size header), delete', async () => {
    const name = await bucket('lifecycle-bucket');
    const none = await failure(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name })));
    expect(none.name).toBe('NoSuchLifecycleConfiguration');
    const put = await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: name,
        LifecycleConfiguration: {
          Rules: [
            {
              ID: 'logs',
              Status: 'Enabled',
              Filter: { Prefix: 'logs/' },
              Expiration: { Days: 90 },
              Transitions: [
                { Days: 30, StorageClass: 'STANDARD_IA' },
                { Days: 60, StorageClass: 'GLACIER' },
              ],
            },
            {
              ID: 'tagged',
              Status: 'Disabled',
              Filter: { And: { Prefix: 'tmp/', Tags: [{ Key: 'kind', Value: 'scratch' }] } },
              NoncurrentVersionExpiration: { NoncurrentDays: 7 },
            },
            { Status: 'Enabled', Filter: {}, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
          ],
        },
      }),
    );
    expect(put.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    const out = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name }));
    expect(out.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    expect(out.Rules?.[0]).toEqual({
      ID: 'logs',
      Status: 'Enabled',
      Filter: { Prefix: 'logs/' },
      Expiration: { Days: 90 },
      Transitions: [
        { Days: 30, StorageClass: 'STANDARD_IA' },
        { Days: 60, StorageClass: 'GLACIER' },
      ],
    });
    expect(out.Rules?.[1]).toMatchObject({
      ID: 'tagged',
      Status: 'Disabled',
      Filter: { And: { Prefix: 'tmp/', Tags: [{ Key: 'kind', Value: 'scratch' }] } },
      NoncurrentVersionExpiration: { NoncurrentDays: 7 },
    });
    // S3 names a rule the request left unnamed.
    expect(out.Rules?.[2]?.ID).toMatch(/^\w{20}$/);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: name }));
    expect((await failure(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: name })))).name).toBe(
      'NoSuchLifecycleConfiguration',
    );
  });

  test.each([
    ['a rule without an action', { ID: 'a', Status: 'Enabled', Filter: {} }, 'InvalidRequest'],
    [
      'an early STANDARD_IA transition',
      { ID: 'a', Status: 'Enabled', Filter: {}, Transitions: [{ Days: 5, StorageClass: 'STANDARD_IA' }] },
      'InvalidArgument',
    ],
    [
      'a zero-day expiration',
      { ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Days: 0 } },
      'InvalidArgument',
    ],
    [
      'a rule without a filter or prefix',
      { ID: 'a', Status: 'Enabled', Expiration: { Days: 1 } },
      'MalformedXML',
    ],
    ['an unknown status', { ID: 'a', Status: 'On', Filter: {}, Expiration: { Days: 1 } }, 'MalformedXML'],
  ])('refuses %s', async (_what, rule, code) => {
    const name = await bucket('lifecycle-invalid');
    const err = await failure(
      s3.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket: name,
          LifecycleConfiguration: { Rules: [rule as never] },
        }),
      ),
    );
    expect(err.name).toBe(code);
    expect(err.$metadata.httpStatusCode).toBe(400);
  });

  test('refuses two rules with one ID', async () => {
    const name = await bucket('lifecycle-dup');
    const rule = { ID: 'same', Status: 'Enabled' as const, Filter: {}, Expiration: { Days: 1 } };
    const err = await failure(
      s3.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket: name,
          LifecycleConfiguration: { Rules: [rule, rule] },
        }),
      ),
    );
    expect(err.name).toBe('InvalidArgument');
  });
});

describe('CORS configuration', () => {
  test('put, get, delete, and the refusals', async () => {
    const name = await bucket('cors-bucket');
    expect((await failure(s3.send(new GetBucketCorsCommand({ Bucket: name })))).name).toBe(
      'NoSuchCORSConfiguration',
    );
    const rules = [
      {
        ID: 'web',
        AllowedMethods: ['GET', 'PUT'],
        AllowedOrigins: ['https://example.com'],
        AllowedHeaders: ['*'],
        ExposeHeaders: ['ETag'],
        MaxAgeSeconds: 300,
      },
      { AllowedMethods: ['HEAD'], AllowedOrigins: ['*'] },
    ];
    await s3.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: { CORSRules: rules } }));
    const out = await s3.send(new GetBucketCorsCommand({ Bucket: name }));
    expect(out.CORSRules).toEqual(rules);
    const bad = await failure(
      s3.send(
        new PutBucketCorsCommand({
          Bucket: name,
          CORSConfiguration: { CORSRules: [{ AllowedMethods: ['PATCH'], AllowedOrigins: ['*'] }] },
        }),
      ),
    );
    expect(bad.name).toBe('InvalidRequest');
    expect(bad.message).toContain('PATCH');
    await s3.send(new DeleteBucketCorsCommand({ Bucket: name }));
    expect((await failure(s3.send(new GetBucketCorsCommand({ Bucket: name })))).name).toBe(
      'NoSuchCORSConfiguration',
    );
  });
});

describe('website configuration', () => {
  test('index and error documents with routing rules; redirect-all; delete', async () => {
    const name = await bucket('site-bucket');
    expect((await failure(s3.send(new GetBucketWebsiteCommand({ Bucket: name })))).name).toBe(
      'NoSuchWebsiteConfiguration',
    );
    await s3.send(
      new PutBucketWebsiteCommand({
        Bucket: name,
        WebsiteConfiguration: {
          IndexDocument: { Suffix: 'index.html' },
          ErrorDocument: { Key: 'error.html' },
          RoutingRules: [
            { Condition: { KeyPrefixEquals: 'docs/' }, Redirect: { ReplaceKeyPrefixWith: 'documents/' } },
          ],
        },
      }),
    );
    const site = await s3.send(new GetBucketWebsiteCommand({ Bucket: name }));
    expect(site.IndexDocument).toEqual({ Suffix: 'index.html' });
    expect(site.ErrorDocument).toEqual({ Key: 'error.html' });
    expect(site.RoutingRules).toEqual([
      { Condition: { KeyPrefixEquals: 'docs/' }, Redirect: { ReplaceKeyPrefixWith: 'documents/' } },
    ]);
    await s3.send(
      new PutBucketWebsiteCommand({
        Bucket: name,
        WebsiteConfiguration: { RedirectAllRequestsTo: { HostName: 'example.com', Protocol: 'https' } },
      }),
    );
    const redirect = await s3.send(new GetBucketWebsiteCommand({ Bucket: name }));
    expect(redirect.RedirectAllRequestsTo).toEqual({ HostName: 'example.com', Protocol: 'https' });
    expect(redirect.IndexDocument).toBeUndefined();
    const missingIndex = await failure(
      s3.send(
        new PutBucketWebsiteCommand({ Bucket: name, WebsiteConfiguration: { ErrorDocument: { Key: 'e' } } }),
      ),
    );
    expect(missingIndex.name).toBe('InvalidArgument');
    await s3.send(new DeleteBucketWebsiteCommand({ Bucket: name }));
    expect((await failure(s3.send(new GetBucketWebsiteCommand({ Bucket: name })))).name).toBe(
      'NoSuchWebsiteConfiguration',
    );
  });
});

describe('the shared view', () => {
  test('native configuration reads through Cloud Control in CloudFormation terms', async () => {
    const name = await bucket('shared-view');
    await s3.send(
      new PutBucketLifecycleConfigurationCommand({
        Bucket: name,
        LifecycleConfiguration: {
          Rules: [{ ID: 'expire', Status: 'Enabled', Filter: { Prefix: 'a/' }, Expiration: { Days: 3 } }],
        },
      }),
    );
    await s3.send(
      new PutBucketCorsCommand({
        Bucket: name,
        CORSConfiguration: {
          CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAgeSeconds: 60 }],
        },
      }),
    );
    await s3.send(
      new PutBucketWebsiteCommand({
        Bucket: name,
        WebsiteConfiguration: { IndexDocument: { Suffix: 'index.html' } },
      }),
    );
    const out = await cc.send(new GetResourceCommand({ TypeName: 'AWS::S3::Bucket', Identifier: name }));
    const model = JSON.parse(out.ResourceDescription!.Properties!) as Record<string, unknown>;
    expect(model.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
    expect(model.LifecycleConfiguration).toEqual({
      Rules: [{ Id: 'expire', Status: 'Enabled', Prefix: 'a/', ExpirationInDays: 3 }],
      TransitionDefaultMinimumObjectSize: 'all_storage_classes_128K',
    });
    expect(model.CorsConfiguration).toEqual({
      CorsRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAge: 60 }],
    });
    expect(model.WebsiteConfiguration).toEqual({ IndexDocument: 'index.html' });
  });

  test('a bucket Cloud Control creates answers the native configuration APIs', async () => {
    const created = await cc.send(
      new CreateResourceCommand({
        TypeName: 'AWS::S3::Bucket',
        DesiredState: JSON.stringify({
          BucketName: 'cc-configured',
          OwnershipControls: { Rules: [{ ObjectOwnership: 'ObjectWriter' }] },
          LifecycleConfiguration: {
            Rules: [{ Id: 'old', Status: 'Enabled', NoncurrentVersionExpiration: { NoncurrentDays: 5 } }],
          },
          CorsConfiguration: {
            CorsRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['https://a.example'] }],
          },
          WebsiteConfiguration: { IndexDocument: 'index.html', ErrorDocument: '404.html' },
        }),
      }),
    );
    expect(await settled(created.ProgressEvent!.RequestToken!)).toBe('SUCCESS');
    const bucketName = 'cc-configured';
    const ownership = await s3.send(new GetBucketOwnershipControlsCommand({ Bucket: bucketName }));
    expect(ownership.OwnershipControls?.Rules).toEqual([{ ObjectOwnership: 'ObjectWriter' }]);
    const lifecycle = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucketName }));
    expect(lifecycle.Rules).toEqual([
      { ID: 'old', Status: 'Enabled', Filter: {}, NoncurrentVersionExpiration: { NoncurrentDays: 5 } },
    ]);
    const cors = await s3.send(new GetBucketCorsCommand({ Bucket: bucketName }));
    expect(cors.CORSRules).toEqual([{ AllowedMethods: ['GET'], AllowedOrigins: ['https://a.example'] }]);
    const site = await s3.send(new GetBucketWebsiteCommand({ Bucket: bucketName }));
    expect(site).toMatchObject({
      IndexDocument: { Suffix: 'index.html' },
      ErrorDocument: { Key: '404.html' },
    });
  });
});

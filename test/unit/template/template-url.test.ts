import { parseS3Url } from '../../../src/template/template-url';
import { nestedStackId, parseNestedStackId } from '../../../src/engine/nested-stack';

describe('parseS3Url', () => {
  it.each([
    [
      'https://s3.us-east-1.amazonaws.com/cdkd-assets-1-us-east-1/abc.json',
      'cdkd-assets-1-us-east-1',
      'abc.json',
      'us-east-1',
    ],
    ['https://s3.amazonaws.com/bucket/dir/key.json', 'bucket', 'dir/key.json', undefined],
    ['https://s3-eu-west-1.amazonaws.com/bucket/key.json', 'bucket', 'key.json', 'eu-west-1'],
    ['https://my.bucket.s3.eu-central-1.amazonaws.com/a%20b.json', 'my.bucket', 'a b.json', 'eu-central-1'],
    ['https://bucket.s3.amazonaws.com/key.json', 'bucket', 'key.json', undefined],
    ['https://s3.cn-north-1.amazonaws.com.cn/bucket/key.json', 'bucket', 'key.json', 'cn-north-1'],
    ['s3://bucket/key.json', 'bucket', 'key.json', undefined],
  ])('%s', (url, bucket, key, region) => {
    expect(parseS3Url(url)).toEqual({ bucket, key, ...(region ? { region } : {}) });
  });

  it.each([
    'https://example.com/bucket/key.json',
    'https://s3.us-east-1.amazonaws.com/bucket-only',
    'https://s3.us-east-1.amazonaws.com/bucket/',
    'not a url',
    'ftp://s3.amazonaws.com/b/k',
  ])('is not an S3 object: %s', (url) => {
    expect(parseS3Url(url)).toBeUndefined();
  });
});

describe('nested stack ids', () => {
  it('are ARNs minted from the child name and the create intent, stable for a re-sent create', () => {
    const id = nestedStackId('us-east-1', '123456789012', 'Parent~Child', 'token-1');
    expect(id).toMatch(
      /^arn:aws:cloudformation:us-east-1:123456789012:stack\/Parent~Child\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(nestedStackId('us-east-1', '123456789012', 'Parent~Child', 'token-1')).toBe(id);
    expect(nestedStackId('us-east-1', '123456789012', 'Parent~Child', 'token-2')).not.toBe(id);
    expect(nestedStackId('cn-north-1', '1', 'P~C', 't')).toMatch(/^arn:aws-cn:/);
    expect(parseNestedStackId(id)).toEqual({ childName: 'Parent~Child', region: 'us-east-1' });
    expect(parseNestedStackId('arn:aws:cloudformation:us-east-1:1:stack/Plain/x')).toBeUndefined();
  });
});

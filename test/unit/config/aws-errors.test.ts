import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { explainConnectionError } from '../../../src/config/aws-errors';
import type { ConnectionContext } from '../../../src/config/aws-errors';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cdkd-aws-errors-'));
fs.writeFileSync(
  path.join(dir, 'config'),
  '[default]\nregion = us-east-1\n[profile dev]\nregion = eu-west-1\n',
);
fs.writeFileSync(path.join(dir, 'credentials'), '[ci]\naws_access_key_id = a\naws_secret_access_key = b\n');
const env = {
  AWS_CONFIG_FILE: path.join(dir, 'config'),
  AWS_SHARED_CREDENTIALS_FILE: path.join(dir, 'credentials'),
};
const ctx = (extra: Partial<ConnectionContext> = {}): ConnectionContext => ({
  serviceId: 'STS',
  region: 'us-east-1',
  env,
  ...extra,
});
const sdkError = (name: string, message: string, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { name, ...extra });

describe('explainConnectionError', () => {
  it('names an unknown profile and the profiles that exist', async () => {
    const err = await explainConnectionError(
      sdkError('CredentialsProviderError', 'Could not load credentials from any providers'),
      ctx({ profile: 'prod' }),
    );
    expect(err?.code).toBe('UNKNOWN_PROFILE');
    expect(err?.message).toContain("The AWS profile 'prod' is not defined");
    expect(err?.message).toContain('(profiles there: ci, default, dev)');
  });

  it('says no credentials were found, and how to provide them', async () => {
    const err = await explainConnectionError(
      sdkError('CredentialsProviderError', 'Could not load credentials from any providers'),
      ctx(),
    );
    expect(err?.code).toBe('NO_CREDENTIALS');
    expect(err?.remedy).toContain('--profile');
    expect(err?.remedy).toContain('AWS_ACCESS_KEY_ID');
  });

  it('names the endpoint override and where it came from when it does not answer; retryable when refused', async () => {
    const refused = sdkError('Error', 'connect ECONNREFUSED 127.0.0.1:1', { code: 'ECONNREFUSED' });
    const err = await explainConnectionError(
      refused,
      ctx({ endpoint: { url: 'http://127.0.0.1:1', source: 'AWS_ENDPOINT_URL' } }),
    );
    expect(err?.code).toBe('ENDPOINT_UNREACHABLE');
    expect(err?.message).toBe(
      'Cannot reach the AWS endpoint http://127.0.0.1:1 (set by AWS_ENDPOINT_URL) for STS: connect ECONNREFUSED 127.0.0.1:1.',
    );
    expect(err?.remedy).toContain('unset AWS_ENDPOINT_URL');
    expect(err?.retryable).toBe(true);
  });

  it('names the AWS host and region when AWS itself is out of reach, and suggests AWS_ENDPOINT_URL', async () => {
    const err = await explainConnectionError(
      sdkError('Error', 'getaddrinfo ENOTFOUND sts.xx-east-1.amazonaws.com', {
        code: 'ENOTFOUND',
        hostname: 'sts.xx-east-1.amazonaws.com',
      }),
      ctx({ region: 'xx-east-1' }),
    );
    expect(err?.message).toContain('Cannot reach STS in xx-east-1 at sts.xx-east-1.amazonaws.com');
    expect(err?.remedy).toContain("the region 'xx-east-1'");
    expect(err?.remedy).toContain('AWS_ENDPOINT_URL');
    expect(err?.retryable).toBe(false);
  });

  it('explains credentials AWS rejects, and leaves every other error alone', async () => {
    const rejected = await explainConnectionError(
      sdkError('InvalidClientTokenId', 'The security token included in the request is invalid.'),
      ctx({ profile: 'dev' }),
    );
    expect(rejected?.code).toBe('CREDENTIALS_REJECTED');
    expect(rejected?.message).toContain("the profile 'dev'");
    expect(rejected?.remedy).toContain('set AWS_ENDPOINT_URL');
    expect(await explainConnectionError(sdkError('NoSuchKey', 'gone'), ctx())).toBeUndefined();
    expect(await explainConnectionError(sdkError('AccessDenied', 'no'), ctx())).toBeUndefined();
  });
});

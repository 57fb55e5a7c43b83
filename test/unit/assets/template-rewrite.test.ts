import { replaceNames, rewriteStorageNames } from '../../../src/assets/template-rewrite';

const CDK_BUCKET = 'cdk-hnb659fds-assets-${AWS::AccountId}-${AWS::Region}';
const CDK_REPO = 'cdk-hnb659fds-container-assets-${AWS::AccountId}-${AWS::Region}';

describe('rewriteStorageNames', () => {
  const template = {
    Resources: {
      Fn: {
        Type: 'AWS::Lambda::Function',
        Properties: { Code: { S3Bucket: { 'Fn::Sub': CDK_BUCKET }, S3Key: 'abc.zip' } },
      },
      Policy: {
        Type: 'AWS::IAM::Policy',
        Properties: {
          Resource: [
            {
              'Fn::Join': [
                '',
                ['arn:', { Ref: 'AWS::Partition' }, ':s3:::', { 'Fn::Sub': CDK_BUCKET }, '/*'],
              ],
            },
            'arn:aws:s3:::cdk-hnb659fds-assets-123456789012-eu-west-1/*',
          ],
        },
      },
      Task: {
        Type: 'AWS::ECS::TaskDefinition',
        Properties: {
          Image: {
            'Fn::Sub': `\${AWS::AccountId}.dkr.ecr.\${AWS::Region}.\${AWS::URLSuffix}/${CDK_REPO}:tag1`,
          },
        },
      },
    },
    Outputs: {
      Url: { Value: { 'Fn::Sub': `https://s3.\${AWS::Region}.\${AWS::URLSuffix}/${CDK_BUCKET}/file.js` } },
    },
  };
  const replacements = [
    { from: CDK_BUCKET, to: 'cdkd-assets-111-eu-west-1' },
    { from: 'cdk-hnb659fds-assets-123456789012-eu-west-1', to: 'cdkd-assets-123456789012-eu-west-1' },
    { from: CDK_REPO, to: 'cdkd-container-assets-111-eu-west-1' },
  ];

  test('replaces names in plain strings, Fn::Sub format strings, ARNs, URLs and image URIs', () => {
    const out = rewriteStorageNames(template, replacements) as typeof template;
    expect(out.Resources.Fn.Properties.Code).toEqual({
      S3Bucket: { 'Fn::Sub': 'cdkd-assets-111-eu-west-1' },
      S3Key: 'abc.zip',
    });
    expect(out.Resources.Policy.Properties.Resource).toEqual([
      {
        'Fn::Join': [
          '',
          ['arn:', { Ref: 'AWS::Partition' }, ':s3:::', { 'Fn::Sub': 'cdkd-assets-111-eu-west-1' }, '/*'],
        ],
      },
      'arn:aws:s3:::cdkd-assets-123456789012-eu-west-1/*',
    ]);
    expect(out.Resources.Task.Properties.Image).toEqual({
      'Fn::Sub':
        '${AWS::AccountId}.dkr.ecr.${AWS::Region}.${AWS::URLSuffix}/cdkd-container-assets-111-eu-west-1:tag1',
    });
    expect(out.Outputs.Url.Value).toEqual({
      'Fn::Sub': 'https://s3.${AWS::Region}.${AWS::URLSuffix}/cdkd-assets-111-eu-west-1/file.js',
    });
  });

  test('leaves the input untouched and keys alone', () => {
    const input = { [CDK_BUCKET]: CDK_BUCKET };
    const out = rewriteStorageNames(input, replacements);
    expect(out).toEqual({ [CDK_BUCKET]: 'cdkd-assets-111-eu-west-1' });
    expect(input).toEqual({ [CDK_BUCKET]: CDK_BUCKET });
  });

  test('without replacements the template is returned as is', () => {
    expect(rewriteStorageNames(template, [])).toBe(template);
  });
});

describe('replaceNames', () => {
  const r = [{ from: 'cdk-assets-1-us-east-1', to: 'cdkd-assets' }];
  test.each([
    ['cdk-assets-1-us-east-1', 'cdkd-assets'],
    ['arn:aws:s3:::cdk-assets-1-us-east-1/*', 'arn:aws:s3:::cdkd-assets/*'],
    ['s3://cdk-assets-1-us-east-1/a s3://cdk-assets-1-us-east-1/b', 's3://cdkd-assets/a s3://cdkd-assets/b'],
    // Part of a longer bucket name: not the same bucket.
    ['cdk-assets-1-us-east-1-backup', 'cdk-assets-1-us-east-1-backup'],
    ['my-cdk-assets-1-us-east-1', 'my-cdk-assets-1-us-east-1'],
    ['cdk-assets-1-us-east-1.logs', 'cdk-assets-1-us-east-1.logs'],
  ])('%s -> %s', (input, expected) => {
    expect(replaceNames(input, r)).toBe(expected);
  });
});

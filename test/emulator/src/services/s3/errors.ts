/** S3 error codes with AWS's messages. */
import { AwsError } from '../../core/errors';

export const s3Errors = {
  noSuchBucket: (bucket: string) =>
    new AwsError('NoSuchBucket', 'The specified bucket does not exist', 404, { BucketName: bucket }),
  noSuchKey: (key: string, headers: Record<string, string> = {}) =>
    new AwsError('NoSuchKey', 'The specified key does not exist.', 404, { Key: key }, headers),
  noSuchVersion: (key: string, versionId: string) =>
    new AwsError('NoSuchVersion', 'The specified version does not exist.', 404, {
      Key: key,
      VersionId: versionId,
    }),
  preconditionFailed: (condition: string) =>
    new AwsError('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', 412, {
      Condition: condition,
    }),
  conditionalConflict: () =>
    new AwsError(
      'ConditionalRequestConflict',
      'A conflicting operation occurred. If using PutObject you can retry the request. If using multipart upload you should initiate another CreateMultipartUpload request and re-upload each part.',
      409,
    ),
  accessDenied: (message = 'Access Denied') => new AwsError('AccessDenied', message, 403),
  malformedXml: () =>
    new AwsError(
      'MalformedXML',
      'The XML you provided was not well-formed or did not validate against our published schema',
      400,
    ),
  invalidArgument: (message: string, name?: string, value?: string) =>
    new AwsError(
      'InvalidArgument',
      message,
      400,
      name ? { ArgumentName: name, ArgumentValue: value ?? '' } : {},
    ),
  invalidRequest: (message: string) => new AwsError('InvalidRequest', message, 400),
  notImplemented: (header?: string) =>
    new AwsError(
      'NotImplemented',
      'A header you provided implies functionality that is not implemented',
      501,
      header ? { Header: header } : {},
    ),
  methodNotAllowed: (method: string, resourceType: string, headers: Record<string, string> = {}) =>
    new AwsError(
      'MethodNotAllowed',
      'The specified method is not allowed against this resource.',
      405,
      { Method: method, ResourceType: resourceType },
      headers,
    ),
  noSuchUpload: (uploadId: string) =>
    new AwsError(
      'NoSuchUpload',
      'The specified upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.',
      404,
      { UploadId: uploadId },
    ),
};

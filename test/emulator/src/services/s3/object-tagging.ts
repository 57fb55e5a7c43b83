/** Object tags: get, put, delete (by version too). */
import type { EmulatorRequest, EmulatorResponse } from '../../core/http';
import type { CallContext } from '../../core/service';
import { S3Base, type S3Target as Target } from './base';
import { s3Errors } from './errors';
import { liveObject, type ObjectVersion } from './store';
import { parseTagging } from './tags';
import { findVersion } from './versions';

export class ObjectTaggingHandlers extends S3Base {
  getObjectTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const object = this.taggedObject(ctx, req, target, 's3:GetObjectTagging');
    const headers: Record<string, string> =
      object.versionId !== 'null' ? { 'x-amz-version-id': object.versionId } : {};
    return this.xml(200, 'Tagging', { TagSet: { Tag: object.tags } }, headers);
  }

  putObjectTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const object = this.taggedObject(ctx, req, target, 's3:PutObjectTagging');
    object.tags = parseTagging(req.body);
    return {
      status: 200,
      headers: object.versionId !== 'null' ? { 'x-amz-version-id': object.versionId } : {},
    };
  }

  deleteObjectTagging(ctx: CallContext, req: EmulatorRequest, target: Target): EmulatorResponse {
    const object = this.taggedObject(ctx, req, target, 's3:DeleteObjectTagging');
    object.tags = [];
    return {
      status: 204,
      headers: object.versionId !== 'null' ? { 'x-amz-version-id': object.versionId } : {},
    };
  }

  private taggedObject(
    ctx: CallContext,
    req: EmulatorRequest,
    target: Target,
    action: string,
  ): ObjectVersion {
    const bucket = this.bucketFor(ctx, target.Bucket!, action);
    const versionId = req.query.get('versionId');
    const object =
      versionId !== null ? findVersion(bucket, target.Key!, versionId) : liveObject(bucket, target.Key!);
    if (!object)
      throw versionId !== null
        ? s3Errors.noSuchVersion(target.Key!, versionId)
        : s3Errors.noSuchKey(target.Key!);
    if (object.deleteMarker) throw s3Errors.methodNotAllowed(req.method, 'DeleteMarker');
    return object;
  }
}

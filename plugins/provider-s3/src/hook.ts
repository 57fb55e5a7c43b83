/**
 * The pack's `cdkd:providers` hook: registers AWS::S3::Bucket and
 * AWS::S3::BucketPolicy. It loads no SDK: each provider module (and with it
 * `@aws-sdk/client-s3`) is required only when cdkd first provisions that type.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
import {
  BUCKET_HANDLED_PROPERTIES,
  BUCKET_POLICY_HANDLED_PROPERTIES,
  BUCKET_POLICY_TYPE,
  BUCKET_TYPE,
} from './bucket-properties';

export const PACK_NAME = '@cdkd/provider-s3';

/** The pack this hook returns (exported for tests). */
export function s3ProviderPack(): ProviderPack {
  return {
    apiVersion: 1,
    name: PACK_NAME,
    providers: [
      {
        resourceType: BUCKET_TYPE,
        handledProperties: [...BUCKET_HANDLED_PROPERTIES],
        // The bucket name is the physical id and Cloud Control's identifier of a bucket.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: (ctx) => {
          const { S3BucketProvider } = require('./bucket-provider') as typeof import('./bucket-provider');
          return new S3BucketProvider(ctx);
        },
      },
      {
        resourceType: BUCKET_POLICY_TYPE,
        handledProperties: [...BUCKET_POLICY_HANDLED_PROPERTIES],
        // The bucket name, as Cloud Control identifies a bucket policy.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: (ctx) => {
          const { S3BucketPolicyProvider } =
            require('./bucket-policy-provider') as typeof import('./bucket-policy-provider');
          return new S3BucketPolicyProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return s3ProviderPack();
};

export default hook;

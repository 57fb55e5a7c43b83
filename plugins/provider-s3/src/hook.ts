/**
 * The pack's `cdkd:providers` hook: registers AWS::S3::Bucket and
 * AWS::S3::BucketPolicy. It loads no SDK: each provider module (and with it
 * `@aws-sdk/client-s3`) is required only when cdkd first provisions that type.
 */
import type { ProviderPack, ProvidersHook } from '@cdkd/plugin-api';
// Types only: erased from the built hook, so neither module (nor the SDK) loads with it.
import type { S3BucketPolicyProvider } from './bucket-policy-provider';
import type { S3BucketProvider } from './bucket-provider';
import {
  BUCKET_CLOUD_CONTROL_PROPERTIES,
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
        cloudControlByDesign: { ...BUCKET_CLOUD_CONTROL_PROPERTIES },
        // The bucket name is the physical id and Cloud Control's identifier of a bucket.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: (ctx) => {
          const loaded = require('./bucket-provider') as { S3BucketProvider: typeof S3BucketProvider };
          return new loaded.S3BucketProvider(ctx);
        },
      },
      {
        resourceType: BUCKET_POLICY_TYPE,
        handledProperties: [...BUCKET_POLICY_HANDLED_PROPERTIES],
        // The bucket name, as Cloud Control identifies a bucket policy.
        physicalIdIsPrimaryIdentifier: true,
        createProvider: (ctx) => {
          const loaded = require('./bucket-policy-provider') as {
            S3BucketPolicyProvider: typeof S3BucketPolicyProvider;
          };
          return new loaded.S3BucketPolicyProvider(ctx);
        },
      },
    ],
  };
}

const hook: ProvidersHook = async function () {
  return s3ProviderPack();
};

export default hook;

/** S3 figures for the `realistic` latency profile (sources in the README, "Latency profiles"). */
import type { LatencyFigures } from '../../core/service';

export const s3Latency: LatencyFigures = {
  operations: { '*': 30, PutObject: 40, CompleteMultipartUpload: 80, CreateBucket: 150, DeleteBucket: 100 },
  resourceTypes: {
    'AWS::S3::Bucket': { create: 4000, update: 3000, delete: 3000 },
    'AWS::S3::BucketPolicy': { create: 2000, update: 2000, delete: 2000 },
  },
  sources: [
    'AWS whitepaper "Best Practices Design Patterns: Optimizing Amazon S3 Performance", Timeouts and Retries: small requests (< 512 KB) have median latencies in the tens of milliseconds',
    'bucket and bucket-policy creates: typical CloudFormation stack-event durations (seconds)',
  ],
};

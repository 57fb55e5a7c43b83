// The state layer: state files, locks, the exports index and bootstrap, in S3.
export * from './types';
export * from './keys';
export * from './schema';
export * from './s3-errors';
export * from './bucket-region';
export * from './state-bucket';
export * from './state-backend';
export * from './lock-manager';
export * from './purge';
export * from './exports-index';
export * from './bootstrap-marker';
export * from './bucket-policy';
export * from './bootstrap';
export * from './migrate';
export * from './inspect';
export * from './state-store';

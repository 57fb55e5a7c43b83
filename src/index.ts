// Programmatic entry point: the engine without the CLI.
export * from './util/errors';
export * from './util/io-host';
export * from './util/retry';
export * from './config/config';
export * from './config/aws-clients';

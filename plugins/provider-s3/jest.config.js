'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'provider-s3',
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
};

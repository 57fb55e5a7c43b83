'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'provider-kms',
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
};

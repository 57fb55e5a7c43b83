'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'e2e',
  rootDir: '../..',
  testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
  testTimeout: 240_000,
  setupFilesAfterEnv: ['<rootDir>/test/e2e/support/timeout.ts'],
};

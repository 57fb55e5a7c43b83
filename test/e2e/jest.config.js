'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'e2e',
  rootDir: '../..',
  testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
  testTimeout: 180_000,
};

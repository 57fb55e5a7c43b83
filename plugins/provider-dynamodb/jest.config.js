'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'provider-dynamodb',
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
};

'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'emulator',
  rootDir: '.',
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  testTimeout: 60_000,
};

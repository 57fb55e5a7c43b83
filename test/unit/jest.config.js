'use strict';
module.exports = {
  ...require('../../jest.preset'),
  displayName: 'unit',
  rootDir: '../..',
  testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/unit/support/timeout.ts'],
};

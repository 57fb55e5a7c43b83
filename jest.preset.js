// Shared jest settings for every workspace: ts-jest without type-checking
// (the build type-checks), node environment.
'use strict';
const path = require('node:path');

// Tests run on Node 20 with the pinned SDK; its Node 22 notice is noise here.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

module.exports = {
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: path.join(__dirname, 'tsconfig.jest.json') }],
  },
  moduleFileExtensions: ['ts', 'js', 'json'],
};

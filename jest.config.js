// `npm test` runs every workspace's tests: unit, emulator, provider packs, end-to-end.
'use strict';
module.exports = {
  projects: ['<rootDir>/test/unit', '<rootDir>/test/emulator', '<rootDir>/plugins/*', '<rootDir>/test/e2e'],
};

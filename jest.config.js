// `npm test` runs every workspace's tests: unit, emulator, provider packs, end-to-end.
'use strict';
module.exports = {
  // Every core: the end-to-end suites wait on child processes (the CLI, the app's synthesis) as much
  // as they compute, and jest's default (cores - 1) runs them one at a time on a 2-core CI machine.
  maxWorkers: '100%',
  // The slowest files first, so the run does not end on one long file (test/slowest-first-sequencer.js).
  testSequencer: '<rootDir>/test/slowest-first-sequencer.js',
  projects: ['<rootDir>/test/unit', '<rootDir>/test/emulator', '<rootDir>/plugins/*', '<rootDir>/test/e2e'],
};

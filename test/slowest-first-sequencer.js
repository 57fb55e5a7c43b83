// Runs the slowest test files first. On a fresh clone (CI) jest has no timings
// cache and orders files by size, which put two of the slowest end-to-end files
// (crash-harness, lost-replies: small files, minutes each) near the end, so one
// worker ran on alone while the other sat idle. The seconds in
// slow-test-files.json are one whole-suite run's (a fresh clone, 2 cores);
// files not listed keep jest's own order after them. Refresh the list when the
// slow files change (it only orders; a stale entry costs a little time, nothing else).
'use strict';
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const seconds = require('./slow-test-files.json');

const ROOT = path.resolve(__dirname, '..');

class SlowestFirstSequencer extends Sequencer {
  sort(tests) {
    const known = (test) => seconds[path.relative(ROOT, test.path).split(path.sep).join('/')] ?? 0;
    const ordered = super.sort(tests);
    // Array.prototype.sort is stable: files with no entry keep jest's order.
    return Promise.resolve(ordered).then((list) => [...list].sort((a, b) => known(b) - known(a)));
  }
}

module.exports = SlowestFirstSequencer;

// Unit tests that talk to the emulator (through the real SDK) take seconds on a
// loaded machine: give each a minute rather than jest's default five seconds, so
// load never fails a test. (A project's `testTimeout` is not applied when jest
// runs from the repository root; a setup file is.)
jest.setTimeout(60_000);

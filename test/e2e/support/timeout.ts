// End-to-end tests synthesize real CDK apps and run the CLI: give each test
// minutes, not jest's default seconds. (A project's `testTimeout` is not applied
// when jest runs from the repository root; a setup file is.)
jest.setTimeout(240_000);

/** Shared test setup: one emulator per test file, real SDK clients pointed at it. */
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../src/index';

// A project's `testTimeout` is not applied when jest runs from the repository root
// (it is a global option), so every file importing this sets its own.
jest.setTimeout(60_000);

export interface TestCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export const TEST_CREDENTIALS: TestCredentials = {
  accessKeyId: 'AKIAEMULATORTEST0001',
  secretAccessKey: 'emulator-secret',
};

/** Client config for an SDK client talking to the emulator. */
export function clientConfig(
  emulator: RunningEmulator,
  region = 'us-east-1',
  credentials: TestCredentials = TEST_CREDENTIALS,
) {
  return { endpoint: emulator.url, region, credentials, forcePathStyle: true, maxAttempts: 3 };
}

/** Starts an emulator before the file's tests and stops it after. */
export function useEmulator(options: EmulatorOptions = {}): { readonly emulator: RunningEmulator } {
  const holder: { emulator?: RunningEmulator } = {};
  beforeAll(async () => {
    holder.emulator = await startEmulator({ port: 0, ...options });
  });
  afterAll(async () => {
    await holder.emulator?.stop();
  });
  return {
    get emulator() {
      if (!holder.emulator) throw new Error('emulator not started');
      return holder.emulator;
    },
  };
}

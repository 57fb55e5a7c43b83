/** `aws-emulator --port 4566 [--host H] [--account 123456789012] [--state-dir DIR] [--schemas-dir DIR] [--latency-profile P]` */
import { parseLatencyProfile } from './core/latency';
import { startEmulator, type EmulatorOptions } from './index';

const USAGE =
  'usage: aws-emulator [--port 4566] [--host 127.0.0.1] [--account 123456789012] [--state-dir DIR] [--schemas-dir DIR] [--latency-profile zero|realistic|flat:<callMs>[:<cloudControlMs>]] [--profile realistic]';

export function parseArgs(argv: string[]): EmulatorOptions {
  const options: EmulatorOptions = { port: 4566 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=')
      ? (arg.split(/=(.*)/s, 2) as [string, string])
      : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
      return v;
    };
    switch (flag) {
      case '--port': {
        const port = Number(value());
        if (!Number.isInteger(port) || port < 0 || port > 65535)
          throw new Error(`--port must be a port number (0-65535)\n${USAGE}`);
        options.port = port;
        break;
      }
      case '--host':
        options.host = value();
        break;
      case '--account': {
        const account = value();
        if (!/^\d{12}$/.test(account)) throw new Error(`--account must be a 12-digit account id\n${USAGE}`);
        options.account = account;
        break;
      }
      case '--state-dir':
        options.stateDir = value();
        break;
      case '--schemas-dir':
        options.schemasDir = value();
        break;
      case '--latency-profile':
      case '--profile':
        try {
          options.latencyProfile = parseLatencyProfile(value());
        } catch (err) {
          throw new Error(`${flag}: ${(err as Error).message}\n${USAGE}`);
        }
        break;
      case '--help':
      case '-h':
        process.stdout.write(`${USAGE}\n`);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${arg}\n${USAGE}`);
    }
  }
  return options;
}

export async function main(argv: string[]): Promise<void> {
  let options: EmulatorOptions;
  try {
    options = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exitCode = 2;
    return;
  }
  const emulator = await startEmulator(options);
  process.stdout.write(`aws-emulator listening on ${emulator.url}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`aws-emulator: ${signal}, stopping\n`);
    emulator.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`aws-emulator: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** The command line's dispatcher: `chat-realm <command> [options]`, returning the exit code. */
import { createRequire } from 'node:module';
import { SnapshotError } from '../core/snapshot/issues';
import { processIO, UsageError, type CliIO } from './common';
import { DOCTOR_HELP, runDoctor } from './doctor';
import { describeError, SERVE_HELP, startServe } from './serve';
import { runSimulate } from './simulate';
import { EXPORT_HELP, IMPORT_HELP, runExport, runImport } from './transfer';

export const MAIN_HELP = `Usage: chat-realm <command> [options]

A Zulip-compatible REST API over a realm kept in an embedded SQLite file.

Commands:
  serve      Serve a realm over HTTP (port $PORT or 9991; file $CHAT_REALM_DB or ./chat-realm.db)
  export     Write a store's realm as a snapshot
  import     Create a store from a snapshot
  simulate   Generate a realistic organization
  doctor     Check that a store replays; repair or export it when it does not
  help [command]

Options:
  -h, --help     Show this help (also shown when no command is given)
  -v, --version  Print the version

Run chat-realm <command> --help for a command's options. Hosting guide: docs/hosting.md.`;

/** The package's version, from its package.json (two levels up from src/cli and from dist/cli). */
export function packageVersion(): string {
  const pkg = createRequire(import.meta.url)('../../package.json') as { version: string };
  return pkg.version;
}

const HELP: Readonly<Record<string, string>> = {
  serve: SERVE_HELP,
  export: EXPORT_HELP,
  import: IMPORT_HELP,
  doctor: DOCTOR_HELP,
};

/** Runs one command. `serve` resolves only after SIGINT/SIGTERM stopped it. */
export async function run(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const [first, ...rest] = argv;
  // No arguments: help (starting a server on the current folder's file by surprise helps nobody).
  if (first === undefined) {
    io.out(MAIN_HELP);
    return 0;
  }
  // Options only (`chat-realm --port 8000`): serve.
  const defaulted = first.startsWith('-') && !['-h', '--help', '-v', '--version'].includes(first);
  const command = defaulted ? 'serve' : first;
  try {
    switch (command) {
      case '-v':
      case '--version':
        io.out(packageVersion());
        return 0;
      case '-h':
      case '--help':
        io.out(MAIN_HELP);
        return 0;
      case 'help': {
        const topic = rest[0];
        if (topic === 'simulate') return await runSimulate(['--help']);
        io.out(topic !== undefined && HELP[topic] !== undefined ? HELP[topic] : MAIN_HELP);
        return 0;
      }
      case 'serve':
        return await serveUntilSignal(defaulted ? argv : rest, io);
      case 'export':
        return await runExport(rest, io);
      case 'import':
        return await runImport(rest, io);
      case 'simulate':
        return await runSimulateCommand(rest);
      case 'doctor':
        return await runDoctor(rest, io);
      default:
        throw new UsageError(`Unknown command ${JSON.stringify(command)}; see chat-realm --help`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`chat-realm: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof SnapshotError) {
      io.err(`chat-realm: ${error.message}`);
      return 2;
    }
    io.err(`chat-realm: ${describeError(error)}`);
    return 1;
  }
}

async function serveUntilSignal(argv: readonly string[], io: CliIO): Promise<number> {
  // Listen for signals before anything starts, so a signal during start-up still stops cleanly.
  let signals = 0;
  let requested: (signal: NodeJS.Signals) => void = () => undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signals++;
    if (signals > 1) {
      io.err(`chat-realm: ${signal} again, exiting without waiting`);
      process.exit(1);
    }
    requested(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const orphaned = watchParent(() => onSignal('SIGTERM'));
  const stopListening = () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    orphaned.stop();
  };
  let serving: Awaited<ReturnType<typeof startServe>>;
  try {
    serving = await startServe(argv, io);
  } catch (error) {
    stopListening();
    throw error;
  }
  if (serving === 'help') {
    stopListening();
    return 0;
  }
  const running = serving;
  io.out(running.banner);
  return new Promise<number>((resolve) => {
    requested = (signal) => {
      io.err(`chat-realm: ${signal}, stopping`);
      running.stop().then(
        () => {
          stopListening();
          io.err(
            running.realm ? `chat-realm: stopped at version ${running.realm.version}` : 'chat-realm: stopped',
          );
          resolve(0);
        },
        (error: unknown) => {
          stopListening();
          io.err(`chat-realm: stopping failed: ${describeError(error)}`);
          resolve(1);
        },
      );
    };
    // A signal that came while starting.
    if (signals > 0) requested('SIGTERM');
  });
}

/**
 * Under npm (`npm start`, `npx chat-realm serve`), npm passes a SIGTERM on to the shell that runs
 * the command, not to this process: the shell exits and this process is left running, adopted by
 * another parent. So under npm a change of parent counts as SIGTERM. (Elsewhere it does not: a
 * server started with `nohup … &` outlives its shell on purpose.)
 */
function watchParent(onOrphaned: () => void): { stop(): void } {
  if (process.env['npm_lifecycle_event'] === undefined) return { stop: () => undefined };
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned();
  }, 250);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** `simulate` is written separately (./simulate.ts); its errors are reported like the others'. */
async function runSimulateCommand(argv: readonly string[]): Promise<number> {
  return runSimulate(argv);
}

/**
 * The `chat-realm` command (the package's bin). `npm start` runs `chat-realm serve`.
 * Usage: chat-realm --help
 */
import { run } from './run';

// `chat-realm export | head`: a reader that stops early is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await run(process.argv.slice(2));

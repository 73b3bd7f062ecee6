/**
 * The `chat-realm` command (the package's bin). `npm start` runs `chat-realm serve`.
 * Usage: chat-realm --help
 */
import { run } from './run';

process.exitCode = await run(process.argv.slice(2));

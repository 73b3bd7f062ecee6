/**
 * The send bench alone, printed rather than written into bench/README.md (`npm run bench --
 * --only=send` writes it): `node --expose-gc --import tsx bench/send-cli.ts [--quick]`.
 */
import { runSendBench } from './send';

console.log(runSendBench({ quick: process.argv.includes('--quick'), log: (s) => console.error(s) }));

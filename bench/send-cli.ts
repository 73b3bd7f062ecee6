import { runSendBench } from './send';
console.log(runSendBench({ quick: process.argv.includes('--quick'), log: (s) => console.error(s) }));

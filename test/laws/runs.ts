/** Bounded runs in `npm test`; `npm run fuzz` (FUZZ=1) runs each property much longer. */
export const runs = (n: number): number => (process.env['FUZZ'] ? n * 100 : n);

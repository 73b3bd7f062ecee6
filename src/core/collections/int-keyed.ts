/**
 * A plain object keyed by integers (`message_details` of a flag event: message id → entry), built
 * at once. Such an object with sparse keys is a dictionary in V8 whatever is done; adding its keys
 * one by one costs a runtime call each (~0.35 µs: 1.9 ms of CPU for 5,000 keys), while JSON.parse
 * creates the same dictionary natively and then storing into the existing keys stays on the fast
 * path: ~3.5× less CPU in all, the same object.
 *
 * `keys` are non-negative safe integers, distinct; `values[k]` goes with `keys[k]`.
 */
export function intKeyedObject<V>(keys: readonly number[], values: readonly V[]): Record<number, V> {
  const n = keys.length;
  if (n === 0) return {};
  const parts = new Array<string>(n);
  for (let k = 0; k < n; k++) parts[k] = `"${keys[k]!}":0`;
  const out = JSON.parse(`{${parts.join(',')}}`) as Record<number, V>;
  for (let k = 0; k < n; k++) out[keys[k]!] = values[k]!;
  return out;
}

/**
 * A bounded memo of a value by method and then path. Clients call the same few paths again and
 * again, so what is found from them (a route, a request's parameter names) is worth keeping; a
 * hostile client can send endless distinct paths, so the memo holds at most `maxEntries` values
 * (then starts again) and never keeps a path longer than `maxPathLength`. By method first, so no
 * key string is built per request.
 */
export class PathMemo<V> {
  private readonly byMethod = new Map<string, Map<string, V>>();
  private kept = 0;

  constructor(
    private readonly find: (method: string, path: string) => V,
    private readonly maxEntries = 4096,
    private readonly maxPathLength = 256,
  ) {}

  get(method: string, path: string): V {
    if (path.length > this.maxPathLength) return this.find(method, path);
    const byPath = this.byMethod.get(method);
    if (byPath !== undefined) {
      const hit = byPath.get(path);
      if (hit !== undefined || byPath.has(path)) return hit as V;
    }
    const value = this.find(method, path);
    this.remember(method, path, value);
    return value;
  }

  private remember(method: string, path: string, value: V): void {
    // Methods count against the bound too: a client may send any token as its method.
    if (this.kept >= this.maxEntries) {
      this.byMethod.clear();
      this.kept = 0;
    }
    let byPath = this.byMethod.get(method);
    if (byPath === undefined) this.byMethod.set(method, (byPath = new Map()));
    byPath.set(path, value);
    this.kept++;
  }
}

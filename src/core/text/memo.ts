/**
 * Remembers a pure function of one string. Hot read paths (GET /users, /users/me, /register)
 * recompute the same derived text for every request: the Gravatar MD5 of each address, the HTML of
 * each profile text. The function must be pure, so the memo is invisible to callers; it is bounded
 * (cleared when full), so a realm with more distinct inputs than `max` only loses the speed-up.
 */
export function memoText(fn: (text: string) => string, max: number): (text: string) => string {
  const memo = new Map<string, string>();
  return (text) => {
    let out = memo.get(text);
    if (out === undefined) {
      out = fn(text);
      if (memo.size >= max) memo.clear();
      memo.set(text, out);
    }
    return out;
  };
}

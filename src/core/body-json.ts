/**
 * The JSON text of answer bodies that an operation gives again unchanged (the same object, from a
 * memo keyed by the immutable records it was built from): serialized once, however often it is
 * answered. Bodies are immutable, so the text stays right for as long as the object lives; a
 * WeakMap, so it goes with it. Only bodies marked reusable are remembered: remembering every
 * body would cost each answer a WeakMap entry for nothing.
 */
const texts = new WeakMap<object, string | null>();

/** Marks `body` as given again unchanged (its text is kept from its first serialization). */
export function reusableBody<B extends object>(body: B): B {
  texts.set(body, null);
  return body;
}

/** `JSON.stringify(body)`, remembered for reusable bodies. */
export function bodyJson(body: object): string {
  const known = texts.get(body);
  if (known !== undefined && known !== null) return known;
  const text = JSON.stringify(body);
  if (known === null) texts.set(body, text);
  return text;
}

/**
 * Narrow terms as Zulip's `NarrowParameter` model accepts them: the object form
 * `{operator, operand, negated?}` or the legacy pair `[operator, operand]`, with each operator's
 * operand type rules. Errors are Zulip's exact messages (some carry the `narrow[i]` prefix,
 * operand-type errors do not).
 */
export type Operand = string | number | boolean | readonly number[];

export interface NarrowTerm {
  readonly operator: string;
  readonly operand: Operand;
  readonly negated: boolean;
}

export type TermsResult =
  { readonly ok: true; readonly terms: NarrowTerm[] } | { readonly ok: false; readonly msg: string };

/** Operators whose operand is a string or an integer (JSON booleans pass: Python's bool is an int). */
const STRING_OR_INT = new Set(['channel', 'stream', 'id', 'sender', 'group-pm-with', 'dm-including', 'with']);
/** Operators whose operand is a comma-separated email list or a list of user ids. */
const USER_LIST = new Set(['dm', 'pm-with']);

const isInt = (v: unknown): v is number | boolean =>
  typeof v === 'boolean' || (typeof v === 'number' && Number.isInteger(v));

/**
 * Validates the decoded `narrow` value: `null` or a list of terms. `name` is the parameter name
 * used in messages (`narrow`).
 *
 * @example
 * ```ts
 * const parsed = parseNarrow([{ operator: 'channel', operand: 'Verona' }, { operator: 'is', operand: 'unread' }]);
 * expect(parsed).toMatchObject({ ok: true, terms: [{ operator: 'channel' }, { operator: 'is' }] });
 * expect(parseNarrow([{ operator: 'is' }])).toMatchObject({ ok: false });
 * ```
 */
export function parseNarrow(value: unknown, name = 'narrow'): TermsResult {
  if (value === null) return { ok: true, terms: [] };
  if (!Array.isArray(value)) return { ok: false, msg: `${name} is not a list` };
  const terms: NarrowTerm[] = [];
  for (let i = 0; i < value.length; i++) {
    const parsed = parseTerm(value[i] as unknown, `${name}[${i}]`);
    if (typeof parsed === 'string') return { ok: false, msg: parsed };
    terms.push(parsed);
  }
  return { ok: true, terms };
}

function parseTerm(raw: unknown, at: string): NarrowTerm | string {
  if (Array.isArray(raw)) {
    if (raw.length !== 2 || typeof raw[0] !== 'string' || typeof raw[1] !== 'string') {
      return `Invalid ${at}: Value error, element is not a string pair`;
    }
    return checkOperand({ operator: raw[0], operand: raw[1], negated: false });
  }
  if (typeof raw !== 'object' || raw === null) return `Invalid ${at}: Value error, dict or list required`;
  const r = raw as Record<string, unknown>;
  // Zulip's model validator looks at the operand first, then the operator.
  if (r['operand'] === undefined || r['operand'] === null)
    return `Invalid ${at}: Value error, operand is missing`;
  if (r['operator'] === undefined || r['operator'] === null)
    return `Invalid ${at}: Value error, operator is missing`;
  if (typeof r['operator'] !== 'string') return `${at}["operator"] is not a string`;
  const negated = r['negated'] ?? false;
  if (typeof negated !== 'boolean') return `${at}["negated"] is not a boolean`;
  return checkOperand({ operator: r['operator'], operand: r['operand'] as Operand, negated });
}

function checkOperand(term: { operator: string; operand: unknown; negated: boolean }): NarrowTerm | string {
  const { operator, operand } = term;
  if (STRING_OR_INT.has(operator)) {
    if (typeof operand !== 'string' && !isInt(operand)) return 'operand is not a string or integer';
  } else if (USER_LIST.has(operator)) {
    if (Array.isArray(operand)) {
      const bad = operand.findIndex((x: unknown) => !isInt(x));
      if (bad >= 0) return `operand[${bad}] is not an integer`;
      return { ...term, operand: operand.map(Number) };
    }
    if (typeof operand !== 'string') return 'operand is not a string or an integer list';
  } else if (operator === 'search') {
    if (typeof operand !== 'string') return 'operand is not a string';
    if (operand.trim() === '') return 'operand cannot be blank.';
  } else if (typeof operand !== 'string') {
    return 'operand is not a string';
  }
  return term as NarrowTerm;
}

/** Python's `str()` of an operand, for error descriptions. */
export function pyStr(operand: Operand): string {
  if (typeof operand === 'boolean') return operand ? 'True' : 'False';
  if (Array.isArray(operand)) return `[${operand.join(', ')}]`;
  return String(operand);
}

/** An operand as a number when it is an integer (booleans are 0/1, as in Python). */
export function intOperand(operand: Operand): number | undefined {
  if (typeof operand === 'boolean') return operand ? 1 : 0;
  if (typeof operand === 'number') return operand;
  return undefined;
}

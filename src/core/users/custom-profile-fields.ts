import { memoText } from '../text/memo';
import { renderMarkdown } from '../markdown';
import type { CustomProfileField, CustomProfileFieldType, User } from '../model/records';
import { isPlainObject } from '../params';
import type { RealmState } from '../state';
import { isUrl } from '../url';

/** Zulip's custom profile field types. */
export const FieldType = {
  shortText: 1,
  longText: 2,
  select: 3,
  date: 4,
  url: 5,
  user: 6,
  externalAccount: 7,
  pronouns: 8,
} as const satisfies Record<string, CustomProfileFieldType>;

export const isFieldType = (n: number): n is CustomProfileFieldType =>
  Number.isInteger(n) && n >= 1 && n <= 8;

/** Short and long text values carry a Markdown `rendered_value`. */
export const isRenderable = (type: CustomProfileFieldType): boolean =>
  type === FieldType.shortText || type === FieldType.longText;

/** A stored value as Zulip keeps it: the string, or compact JSON for a users list (`[8,9]`). */
export function storedValueText(value: string | readonly number[]): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The realm's fields in display order (then id). */
export function fieldsInOrder(state: RealmState): CustomProfileField[] {
  return state.customProfileFields.toArray().sort((a, b) => a.order - b.order || a.id - b.id);
}

/** A field as events and `custom_profile_fields` lists show it; flags appear only when true. */
export function formatCustomProfileField(field: CustomProfileField): Record<string, unknown> {
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    hint: field.hint,
    field_data: field.field_data,
    order: field.order,
    required: field.required,
    editable_by_user: field.editable_by_user,
    ...(field.display_in_profile_summary ? { display_in_profile_summary: true } : {}),
    ...(field.use_for_user_matching ? { use_for_user_matching: true } : {}),
  };
}

export interface ProfileDataValue {
  readonly value: string;
  readonly rendered_value?: string;
}

/** One value as `profile_data` shows it: `{value}`, plus `rendered_value` for text types. */
export function profileDataValue(
  field: CustomProfileField,
  value: string | readonly number[],
): ProfileDataValue {
  const text = storedValueText(value);
  return isRenderable(field.type) ? { value: text, rendered_value: renderedText(text) } : { value: text };
}

/** `renderMarkdown` of a profile value, remembered: every read of a user renders its text fields again. */
const renderedText = memoText(renderMarkdown, 4096);

/** A human's `profile_data`: field id (string) → value, for fields that still exist, in field id order. */
export function profileDataFor(state: RealmState, user: User): Record<string, ProfileDataValue> {
  const out: Record<string, ProfileDataValue> = {};
  const ids = Object.keys(user.profile_data)
    .map(Number)
    .sort((a, b) => a - b);
  for (const id of ids) {
    const field = state.customProfileFields.get(id);
    const value = user.profile_data[String(id)];
    if (field !== undefined && value !== undefined) out[String(id)] = profileDataValue(field, value);
  }
  return out;
}

/** The option keys of a select field's `field_data` (empty when it is not a JSON object). */
export function selectOptionKeys(field: CustomProfileField): string[] {
  try {
    const data: unknown = JSON.parse(field.field_data);
    return isPlainObject(data) ? Object.keys(data) : [];
  } catch {
    return [];
  }
}

const TEXT_LIMITS: Partial<Record<CustomProfileFieldType, number>> = {
  [FieldType.shortText]: 50,
  [FieldType.longText]: 500,
  [FieldType.externalAccount]: 50,
  [FieldType.pronouns]: 50,
};

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Exactly `YYYY-MM-DD` naming a real calendar day (Python's `date.fromisoformat` round-trip). */
export function isIsoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return false;
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mo - 1]!;
  return d <= days;
}

/**
 * Zulip's per-type validation of a new value (the field's name is the variable name in messages).
 * Returns the error message, or undefined when the value is acceptable.
 */
export function validateProfileValue(
  state: RealmState,
  field: CustomProfileField,
  value: string | readonly number[],
): string | undefined {
  const name = field.name;
  switch (field.type) {
    case FieldType.shortText:
    case FieldType.longText:
    case FieldType.externalAccount:
    case FieldType.pronouns: {
      if (typeof value !== 'string') return `${name} is not a string`;
      const limit = TEXT_LIMITS[field.type]!;
      return codePoints(value) > limit ? `${name} is too long (limit: ${limit} characters)` : undefined;
    }
    case FieldType.select:
      if (typeof value !== 'string') return `${name} is not a string`;
      return selectOptionKeys(field).includes(value)
        ? undefined
        : `'${value}' is not a valid choice for '${name}'.`;
    case FieldType.date:
      if (typeof value !== 'string') return `${name} is not a string`;
      return isIsoDate(value) ? undefined : `${name} is not a date`;
    case FieldType.url:
      if (typeof value !== 'string') return `${name} is not a string`;
      return isUrl(value) ? undefined : `${name} is not a URL`;
    case FieldType.user:
      return validateUserIds(state, value);
    default: {
      const never: never = field.type;
      return `Invalid field type ${String(never)}`;
    }
  }
}

/** The users type: every id a user of the realm, then each active and human (in list order). */
function validateUserIds(state: RealmState, value: string | readonly number[]): string | undefined {
  if (typeof value === 'string') return 'User IDs is not a list';
  const unknown = value.filter((id) => !state.users.has(id));
  if (unknown.length > 0) return `Invalid user IDs: ${unknown.join(', ')}`;
  for (const id of value) {
    const u = state.users.get(id)!;
    if (!u.is_active) return `User with ID ${id} is deactivated`;
    if (u.is_bot) return `User with ID ${id} is a bot`;
  }
  return undefined;
}

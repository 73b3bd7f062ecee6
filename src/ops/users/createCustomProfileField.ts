import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { to } from '../../core/events';
import type { CustomProfileField, CustomProfileFieldType } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, codePointLength, isPlainObject, param, rawParam, zulipIssue } from '../../core/params';
import { isRealmAdmin } from '../../core/permissions/roles';
import { edit, failure, success } from '../../core/result';
import { pythonStrip } from '../../core/text/whitespace';
import { activeUserIds } from '../../core/users/realm-users';
import { isUrl } from '../../core/url';
import {
  FieldType,
  fieldsInOrder,
  formatCustomProfileField,
  isFieldType,
} from '../../core/users/custom-profile-fields';

/** `field_data`: an object whose values are strings or string → string objects. */
type FieldData = Readonly<Record<string, string | Readonly<Record<string, string>>>>;

/** Zulip parses each value as `dict[str, str] | str`; a wrong value reports the dict branch. */
const fieldDataSchema = accepts<FieldData>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx): FieldData => {
      if (!isPlainObject(value)) {
        zulipIssue(ctx, '{var} is not a dict');
        return z.NEVER;
      }
      for (const [key, v] of Object.entries(value)) {
        if (typeof v === 'string') continue;
        const at = `{var}[${JSON.stringify(key)}]["dict[str,str]"]`;
        if (!isPlainObject(v)) {
          zulipIssue(ctx, `${at} is not a dict`);
          return z.NEVER;
        }
        for (const [k, s] of Object.entries(v)) {
          if (typeof s !== 'string') {
            zulipIssue(ctx, `${at}[${JSON.stringify(k)}] is not a string`);
            return z.NEVER;
          }
        }
      }
      return value as FieldData;
    }),
  ),
);

const DEFAULT_EXTERNAL_ACCOUNTS: Readonly<Record<string, string>> = {
  twitter: 'Twitter username',
  github: 'GitHub username',
};

const MAX_SUMMARY_FIELDS = 2;
const NAME_MAX = 40;
const HINT_MAX = 80;
const fail = (msg: string) => zulipError(msg);

/** Zulip's `check_required_string` under `field_data["key"]`. */
function requiredString(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string') return `field_data["${key}"] is not a string`;
  return pythonStrip(value) === '' ? `field_data["${key}"] cannot be blank.` : undefined;
}

/** Dropdown choices: emptiness, then each choice in order, duplicates last. */
function checkSelectData(data: FieldData): string | undefined {
  const entries = Object.entries(data);
  if (entries.length < 1) return 'Field must have at least one choice.';
  for (const [key, choice] of entries) {
    if (pythonStrip(key) === '') return "'value' cannot be blank.";
    if (typeof choice === 'string') return 'field_data is not a dict';
    for (const k of ['text', 'order']) {
      if (!(k in choice)) return `${k} key is missing from field_data`;
      const bad = requiredString(k, choice[k]);
      if (bad) return bad;
    }
    const extra = Object.keys(choice).filter((k) => k !== 'text' && k !== 'order');
    if (extra.length > 0) return `Unexpected arguments: ${extra.sort().join(', ')}`;
  }
  const texts = entries.map(([, c]) => (typeof c === 'string' ? c : c['text']));
  return new Set(texts).size !== texts.length ? 'Field must not have duplicate choices.' : undefined;
}

/** External accounts: `subtype` (required) and `url_pattern` (optional) only. */
function checkExternalAccountData(data: FieldData): string | undefined {
  if (!('subtype' in data)) return 'subtype key is missing from field_data';
  const badSubtype = requiredString('subtype', data['subtype']);
  if (badSubtype) return badSubtype;
  if ('url_pattern' in data) {
    const pattern = data['url_pattern'];
    if (typeof pattern !== 'string') return 'field_data["url_pattern"] is not a string';
    if (pattern.split('%(username)s').length !== 2) return "URL pattern must contain '%(username)s'.";
    if (!isUrl(pattern.replace('%(username)s', 'username'))) return 'field_data["url_pattern"] is not a URL';
  }
  const extra = Object.keys(data).filter((k) => k !== 'subtype' && k !== 'url_pattern');
  if (extra.length > 0) return `Unexpected arguments: ${extra.sort().join(', ')}`;
  const subtype = data['subtype'] as string;
  if (subtype in DEFAULT_EXTERNAL_ACCOUNTS) return undefined;
  if (subtype !== 'custom') return 'Invalid external account type';
  return 'url_pattern' in data ? undefined : 'Custom external account must define URL pattern';
}

/**
 * POST /api/v1/realm/profile_fields — https://zulip.com/api/create-custom-profile-field
 *
 * Organization administrators create a custom profile field. Checks follow Zulip's order: the
 * two-field summary limit, `field_data` by type (select choices; external account subtype and URL
 * pattern), label and hint (skipped for the default external accounts, whose label comes from the
 * subtype), the field type, summary display for long text and users fields, then the label's
 * uniqueness. The new field's id is the largest id + 1 and its `order` equals its id. Event:
 * `custom_profile_fields` with every field in order, to all active users.
 *
 * Differences from Zulip: `use_for_user_matching` (FL 455) is newer than our digest; its error
 * message for other field types is our own (docs/differences/users.md).
 *
 * @example
 * ```ts
 * const r = createCustomProfileField(realm, { userId: 2 }, { field_type: 1, name: 'Team', hint: 'Your team' }, { now });
 * expect(r.status).toBe(200);
 * expect(r.body['id']).toBe(10);
 * ```
 */
export const createCustomProfileField = defineOperation({
  name: 'createCustomProfileField',
  method: 'POST',
  path: '/realm/profile_fields',
  operationId: 'create-custom-profile-field',
  guard: (_state, user) => (isRealmAdmin(user) ? undefined : errors.mustBeAdmin()),
  params: [
    param('field_type', z.int(), { required: true }),
    rawParam('name', z.pipe(z.string(), z.transform(pythonStrip))),
    rawParam('hint'),
    param('field_data', fieldDataSchema),
    param('display_in_profile_summary', z.boolean()),
    param('required', z.boolean()),
    param('editable_by_user', z.boolean()),
    param('use_for_user_matching', z.boolean()),
  ],
  handler: ({ state, params, ignored }) => {
    const type = params.field_type;
    const name = params.name ?? '';
    const hint = params.hint ?? '';
    const data = params.field_data ?? {};
    const summary = params.display_in_profile_summary ?? false;
    const matching = params.use_for_user_matching ?? false;

    if (summary) {
      const shown = state.customProfileFields.toArray().filter((f) => f.display_in_profile_summary).length;
      if (shown >= MAX_SUMMARY_FIELDS) {
        return failure(state, fail('Only 2 custom profile fields can be displayed in the profile summary.'));
      }
    }
    const dataError =
      type === FieldType.select
        ? checkSelectData(data)
        : type === FieldType.externalAccount
          ? checkExternalAccountData(data)
          : undefined;
    if (dataError) return failure(state, fail(dataError));

    const defaultAccount =
      type === FieldType.externalAccount ? DEFAULT_EXTERNAL_ACCOUNTS[data['subtype'] as string] : undefined;
    if (defaultAccount === undefined) {
      if (name === '') return failure(state, fail('Label cannot be blank.'));
      if (codePointLength(hint) > HINT_MAX)
        return failure(state, fail(`hint is too long (limit: ${HINT_MAX} characters)`));
      if (codePointLength(name) > NAME_MAX)
        return failure(state, fail(`name is too long (limit: ${NAME_MAX} characters)`));
    }
    if (!isFieldType(type)) return failure(state, fail('Invalid field type.'));
    if (summary && (type === FieldType.longText || type === FieldType.user)) {
      return failure(state, fail('Field type not supported for display in profile summary.'));
    }
    if (matching && type !== FieldType.shortText && type !== FieldType.externalAccount) {
      return failure(state, fail('Field type not supported for user matching.'));
    }

    const finalName = defaultAccount ?? name;
    if (state.customProfileFields.toArray().some((f) => f.name === finalName)) {
      return failure(state, fail('A field with that label already exists.'));
    }
    const id = state.customProfileFields.maxKey() + 1;
    const field: CustomProfileField = Object.freeze({
      id,
      name: finalName,
      hint: defaultAccount === undefined ? hint : '',
      type: type as CustomProfileFieldType,
      field_data: storedFieldData(type, data, defaultAccount !== undefined),
      order: id,
      display_in_profile_summary: summary,
      required: params.required ?? false,
      editable_by_user: params.editable_by_user ?? true,
      use_for_user_matching: matching,
    });
    const next = edit(state, (draft) => {
      draft.customProfileFields = draft.customProfileFields.set(id, field);
    });
    const event = {
      type: 'custom_profile_fields' as const,
      fields: fieldsInOrder(next).map(formatCustomProfileField),
    };
    return success(next, { data: { id }, ignored, events: [to(activeUserIds(next), event)] });
  },
});

/** JSON text for dropdowns and external accounts (defaults keep only the subtype); "" otherwise. */
function storedFieldData(type: number, data: FieldData, isDefaultAccount: boolean): string {
  if (isDefaultAccount) return JSON.stringify({ subtype: data['subtype'] });
  return type === FieldType.select || type === FieldType.externalAccount ? JSON.stringify(data) : '';
}

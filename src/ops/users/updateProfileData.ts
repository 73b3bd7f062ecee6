import * as z from 'zod/mini';
import { errors, zulipError } from '../../core/errors';
import { to, type AddressedEvent } from '../../core/events';
import type { User } from '../../core/model/records';
import { defineOperation } from '../../core/operation';
import { accepts, isPlainObject, param, zulipIssue } from '../../core/params';
import { isRealmAdmin } from '../../core/permissions/roles';
import { userIdsWhoCanAccess } from '../../core/permissions/user-access';
import { edit, editRecord, failure, success } from '../../core/result';
import { putUser } from '../../core/state-edit';
import { isRenderable, storedValueText, validateProfileValue } from '../../core/users/custom-profile-fields';
import { renderMarkdown } from '../../core/markdown';

type ProfileValue = string | readonly number[] | null;

export interface ProfileDataItem {
  readonly id: number;
  readonly value: ProfileValue;
}

const isInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v);

/**
 * `list[{id: int, value: str | list[int] | null}]`, strict, extra keys ignored. A wrong value
 * reports the first union branch (`data[0]["value"]["str"] is not a string`), as pydantic does.
 */
const dataSchema = accepts<readonly ProfileDataItem[]>()(
  z.pipe(
    z.unknown(),
    z.transform((value, ctx): readonly ProfileDataItem[] => {
      if (!Array.isArray(value)) {
        zulipIssue(ctx, '{var} is not a list');
        return z.NEVER;
      }
      const items: ProfileDataItem[] = [];
      for (const [i, item] of value.entries()) {
        const at = `{var}[${i}]`;
        if (!isPlainObject(item)) {
          zulipIssue(ctx, `${at} is not a dict`);
          return z.NEVER;
        }
        if (!('id' in item)) {
          zulipIssue(ctx, `${at}["id"] field is missing: Field required`);
          return z.NEVER;
        }
        if (!isInt(item['id'])) {
          zulipIssue(ctx, `${at}["id"] is not an integer`);
          return z.NEVER;
        }
        if (!('value' in item)) {
          zulipIssue(ctx, `${at}["value"] field is missing: Field required`);
          return z.NEVER;
        }
        const v = item['value'];
        const ok = v === null || typeof v === 'string' || (Array.isArray(v) && v.every(isInt));
        if (!ok) {
          zulipIssue(ctx, `${at}["value"]["str"] is not a string`);
          return z.NEVER;
        }
        items.push({ id: item['id'], value: v as ProfileValue });
      }
      return items;
    }),
  ),
);

/**
 * PATCH /api/v1/users/me/profile_data — https://zulip.com/api/update-profile-data
 *
 * Humans set their own custom profile field values. Every item is checked in order (the field
 * exists, the caller may edit it, the value suits the field's type) before anything is written;
 * then each changed value is stored and announced with a `realm_user` update event (with a
 * Markdown `rendered_value` for text fields) to every active user who can access the caller.
 * Re-sending a stored value changes nothing and sends nothing.
 *
 * Differences from Zulip: following the spec, `value: null` removes the stored value (event with
 * `value: null`; nothing when there was none); Zulip's current endpoint rejects null (clearing is
 * DELETE /users/me/profile_data there). `rendered_value` comes from a small Markdown subset.
 * See docs/differences/users.md.
 *
 * @example
 * ```ts
 * const r = updateProfileData(realm, { userId: 4 }, { data: [{ id: 1, value: '+1-555-0199' }] }, { now });
 * expect(r.status).toBe(200);
 * expect(r.events[0]?.event).toMatchObject({ type: 'realm_user', op: 'update' });
 * ```
 */
export const updateProfileData = defineOperation({
  name: 'updateProfileData',
  method: 'PATCH',
  path: '/users/me/profile_data',
  operationId: 'update-profile-data',
  guard: (_state, user) => (user.is_bot ? errors.notForBots() : undefined),
  params: [param('data', dataSchema, { required: true })],
  handler: ({ state, user, params, ignored }) => {
    const me = user!;
    for (const item of params.data) {
      const field = state.customProfileFields.get(item.id);
      if (field === undefined) return failure(state, zulipError(`Field id ${item.id} not found.`));
      if (!field.editable_by_user && !isRealmAdmin(me)) {
        return failure(
          state,
          zulipError('You are not allowed to change this field. Contact an administrator to update it.'),
        );
      }
      if (item.value === null) continue;
      const bad = validateProfileValue(state, field, item.value);
      if (bad !== undefined) return failure(state, zulipError(bad));
    }

    let profile: Record<string, string | readonly number[]> = { ...me.profile_data };
    const changes: Array<Record<string, unknown>> = [];
    for (const item of params.data) {
      const key = String(item.id);
      const before = profile[key];
      if (item.value === null) {
        if (before === undefined) continue;
        const { [key]: _removed, ...rest } = profile;
        profile = rest;
        changes.push({ id: item.id, value: null });
        continue;
      }
      const text = storedValueText(item.value);
      if (before !== undefined && storedValueText(before) === text) continue;
      profile[key] = typeof item.value === 'string' ? item.value : Object.freeze([...item.value]);
      const field = state.customProfileFields.get(item.id)!;
      const rendered = isRenderable(field.type) ? renderMarkdown(text) : '';
      changes.push({ id: item.id, value: text, ...(rendered !== '' ? { rendered_value: rendered } : {}) });
    }
    if (changes.length === 0) return success(state, { ignored });

    const updated: User = editRecord(me, (d) => {
      d.profile_data = profile as typeof d.profile_data;
    });
    const next = edit(state, (draft) => putUser(draft, updated));
    const recipients = userIdsWhoCanAccess(next, updated);
    const events: AddressedEvent[] = changes.map((custom_profile_field) =>
      to(recipients, {
        type: 'realm_user',
        op: 'update',
        person: { user_id: me.user_id, custom_profile_field },
      }),
    );
    return success(next, { ignored, events });
  },
});

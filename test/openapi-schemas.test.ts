import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  extractSchemas,
  OPERATION_IDS,
  OUTPUT_URL,
  PERSONAL_OPERATION_IDS,
  serializeSubset,
} from '../scripts/extract-schemas';
import {
  eventSchemaKeys,
  expectValidEvent,
  expectValidResponse,
  hasResponseSchema,
  validateEvent,
  validateResponse,
} from './support/openapi';

const YAML_URL = new URL('../../shared/reference/zulip-openapi.yaml', import.meta.url);
const ok = { result: 'success', msg: '' };
const streamUpdate = {
  type: 'stream',
  op: 'update',
  stream_id: 1,
  name: 'Verona',
  property: 'description',
  value: 'x',
  rendered_description: '<p>x</p>',
};

describe('schema files', () => {
  it('has a 200 response schema for each operation', () => {
    expect(OPERATION_IDS).toHaveLength(30);
    for (const op of OPERATION_IDS) expect(hasResponseSchema(op, 200), op).toBe(true);
    for (const op of PERSONAL_OPERATION_IDS) expect(hasResponseSchema(op, 200), op).toBe(true);
  });

  it('has event schemas for the events our operations emit', () => {
    const keys = eventSchemaKeys();
    for (const key of [
      'user_settings/update',
      'realm_user/update',
      'stream/update',
      'stream/delete',
      'subscription/update',
      'subscription/remove',
      'subscription/peer_remove',
      'scheduled_messages/update',
      'user_group/update',
      'custom_profile_fields',
      'update_message_flags/add',
      'update_message_flags/remove',
      'delete_message',
      'saved_snippets/add',
      'realm_bot/update',
      'navigation_view/add',
      'channel_folder/reorder',
      'reaction/add',
      'reaction/remove',
      'realm_emoji/update',
    ]) {
      expect(keys, key).toContain(key);
    }
  });

  it('keeps no $ref, nullable or prose keywords in the extracted subset', () => {
    const text = readFileSync(OUTPUT_URL, 'utf8');
    for (const word of ['"$ref"', '"nullable"', '"example"', '"examples"', '"deprecated"', '"x-']) {
      expect(text, word).not.toContain(word);
    }
  });

  it.skipIf(!existsSync(YAML_URL))('re-extracting the OpenAPI document gives the committed JSON', () => {
    const fresh = serializeSubset(extractSchemas(readFileSync(YAML_URL, 'utf8')));
    expect(fresh === readFileSync(OUTPUT_URL, 'utf8')).toBe(true);
  });
});

describe('validateResponse', () => {
  it('accepts known-good bodies', () => {
    expectValidResponse('update-settings', 200, ok);
    expectValidResponse('update-settings', 200, { ...ok, ignored_parameters_unsupported: ['foo'] });
    expectValidResponse('create-saved-snippet', 200, { ...ok, saved_snippet_id: 3 });
    expectValidResponse('unsubscribe', 200, { ...ok, removed: ['Verona'], not_removed: [] });
    expectValidResponse('get-linkifiers', 200, {
      ...ok,
      linkifiers: [{ pattern: '#(?P<id>\\d+)', url_template: 'x', id: 1 }],
    });
    expectValidResponse('update-message-flags-for-narrow', 200, {
      ...ok,
      processed_count: 0,
      updated_count: 0,
      first_processed_id: null,
      last_processed_id: null,
      found_oldest: true,
      found_newest: true,
      ignored_because_not_subscribed_channels: [],
    });
    expectValidResponse('regenerate-bot-api-key', 200, { ...ok, api_key: 'a'.repeat(32) });
    expectValidResponse('get-own-user', 200, {
      ...ok,
      user_id: 8,
      is_imported_stub: false,
      max_message_id: -1,
    });
  });

  it('accepts documented, common and generic errors', () => {
    const coded = { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' };
    expectValidResponse('update-stream', 400, coded);
    expectValidResponse('test-notify', 400, {
      result: 'error',
      msg: 'Device not recognized',
      code: 'INVALID_PUSH_DEVICE_TOKEN',
    });
    expectValidResponse('unsubscribe', 400, {
      ...coded,
      code: 'REQUEST_VARIABLE_MISSING',
      var_name: 'subscriptions',
    });
    expectValidResponse('update-user-group', 400, {
      ...coded,
      code: 'EXPECTATION_MISMATCH',
      field_name: 'old',
    });
    expectValidResponse('update-stream', 409, {
      ...coded,
      code: 'CHANNEL_ALREADY_EXISTS',
      channel_name: 'Denmark',
    });
    expectValidResponse('remove-bot-storage', 400, {
      result: 'error',
      msg: 'Key does not exist.',
      code: 'BAD_REQUEST',
    });
  });

  it('rejects wrong types, missing fields and extra properties', () => {
    expect(validateResponse('update-settings', 200, { ...ok, dense_mode: true })).not.toEqual([]);
    expect(validateResponse('update-settings', 200, { result: 'error', msg: '' })).not.toEqual([]);
    expect(validateResponse('create-saved-snippet', 200, { ...ok, saved_snippet_id: '3' })).not.toEqual([]);
    expect(validateResponse('delete-topic', 200, ok)).not.toEqual([]);
    expect(validateResponse('regenerate-bot-api-key', 200, ok)).not.toEqual([]);
    expect(validateResponse('update-stream', 400, { result: 'error', msg: 'x' })).not.toEqual([]);
    expect(
      validateResponse('update-stream', 400, { result: 'error', msg: 'x', code: 'X', extra: 1 }),
    ).not.toEqual([]);
    expect(() => expectValidResponse('update-settings', 200, { ...ok, foo: 1 })).toThrow(
      /update-settings 200/,
    );
  });

  it('throws when there is no schema', () => {
    expect(() => validateResponse('no-such-operation', 200, ok)).toThrow(/no response schemas/);
    expect(() => validateResponse('get-users', 204, ok)).toThrow(/no 204 response schema/);
  });
});

describe('validateEvent', () => {
  it('accepts known-good events', () => {
    expectValidEvent(streamUpdate);
    expectValidEvent({ type: 'user_settings', op: 'update', property: 'twenty_four_hour_time', value: true });
    expectValidEvent({
      type: 'subscription',
      op: 'update',
      property: 'color',
      value: '#ffffff',
      stream_id: 3,
    });
    expectValidEvent({
      type: 'subscription',
      op: 'remove',
      subscriptions: [{ name: 'Verona', stream_id: 3 }],
    });
    expectValidEvent({
      type: 'delete_message',
      message_ids: [1, 2],
      message_type: 'stream',
      stream_id: 3,
      topic: 'lunch',
    });
    expectValidEvent({ type: 'realm_bot', op: 'update', bot: { user_id: 5, api_key: 'k' } });
    expectValidEvent({
      type: 'realm_user',
      op: 'update',
      person: { user_id: 8, custom_profile_field: { id: 1, value: 'x', rendered_value: '<p>x</p>' } },
    });
    expectValidEvent({ ...streamUpdate, id: 17 });
  });

  it('accepts the newer shapes from the supplement', () => {
    const { rendered_description: _rendered, ...base } = streamUpdate;
    expectValidEvent({ ...base, property: 'first_message_id', value: null });
    expectValidEvent({
      type: 'stream',
      op: 'delete',
      streams: [{ stream_id: 1 }],
      stream_ids: [1],
      for_archiving: false,
    });
    expectValidEvent({
      type: 'navigation_view',
      op: 'add',
      navigation_view: { fragment: 'recent', is_pinned: true, name: null },
    });
    expectValidEvent({ type: 'channel_folder', op: 'reorder', order: [2, 1] });
    expectValidEvent({
      type: 'channel_folder',
      op: 'update',
      channel_folder_id: 1,
      data: { is_archived: true },
    });
  });

  it('rejects wrong types and extra properties', () => {
    expect(validateEvent({ ...streamUpdate, stream_id: '1' })).not.toEqual([]);
    expect(validateEvent({ ...streamUpdate, color: 'red' })).not.toEqual([]);
    expect(validateEvent({ type: 'user_settings', op: 'update', property: 'x', value: [1] })).not.toEqual([]);
    expect(
      validateEvent({ type: 'subscription', op: 'update', property: 'x', value: 1, extra: 1 }),
    ).not.toEqual([]);
    expect(validateEvent({ type: 'channel_folder', op: 'reorder' })).not.toEqual([]);
    expect(() => expectValidEvent({ ...streamUpdate, stream_id: '1' })).toThrow(/event stream\/update/);
  });

  it('reports events it has no schema for', () => {
    expect(validateEvent({ type: 'stream', op: 'explode' })).toEqual(['no schema for event stream/explode']);
    expect(validateEvent({ op: 'add' })).toHaveLength(1);
  });
});

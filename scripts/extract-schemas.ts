/**
 * Extracts the JSON schemas of our operations' responses and of every
 * GET /events event from Zulip's OpenAPI document, as plain JSON Schema
 * (no $ref, no prose) that ajv accepts. Output: test/schemas/zulip-openapi-subset.json.
 *
 *   npx tsx scripts/extract-schemas.ts [path-to-yaml]
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export interface SchemaSubset {
  source: { sha256: string; feature_level_note: string };
  responses: Record<string, Record<string, JsonObject>>;
  events: Record<string, JsonObject>;
}

export const OPERATION_IDS = [
  'update-settings',
  'update-stream',
  'update-subscription-settings',
  'update-scheduled-message',
  'update-user-group',
  'get-users',
  'create-custom-profile-field',
  'unsubscribe',
  'update-message-flags-for-narrow',
  'delete-topic',
  'update-profile-data',
  'add-navigation-view',
  'create-saved-snippet',
  'get-own-user',
  'get-linkifiers',
  'test-notify',
  'regenerate-bot-api-key',
  'remove-fcm-token',
  'remove-bot-storage',
  'patch-channel-folders',
  'send-message',
  'get-messages',
  'get-message',
  'delete-message',
  'update-message',
  'get-message-history',
  'check-messages-match-narrow',
  'add-reaction',
  'remove-reaction',
  'deactivate-custom-emoji',
] as const;

/** Issue 26's personal state: topic visibility, muted users, alert words, user status. */
export const PERSONAL_OPERATION_IDS = [
  'update-user-topic',
  'mute-user',
  'unmute-user',
  'add-alert-words',
  'remove-alert-words',
  'update-status',
  'get-user-status',
  'mute-topic',
] as const;

/** Endpoints of the live-client layer (issue 13): server settings, register, events, reads. */
export const LIVE_OPERATION_IDS = [
  'get-server-settings',
  'register-queue',
  'get-events',
  'delete-queue',
  'get-subscriptions',
  'get-streams',
  'update-presence',
  'get-presence',
  'get-user-presence',
  'set-typing-status',
  'get-custom-emoji',
  'get-alert-words',
  'get-subscription-status',
  'fetch-api-key',
] as const;

/** Issue 24's read endpoints, flags by id, the mark-as-read family and bot storage. */
export const READ_OPERATION_IDS = [
  'update-message-flags',
  'mark-all-as-read',
  'mark-stream-as-read',
  'mark-topic-as-read',
  'get-stream-id',
  'get-stream-by-id',
  'get-subscribers',
  'get-stream-topics',
  'get-user',
  'get-user-by-email',
  'get-user-groups',
  'get-user-group-members',
  'get-is-user-group-member',
  'get-custom-profile-fields',
  'render-message',
  'get-stream-email-address',
] as const;

/** Issue 26: joining and creating channels. */
export const SUBSCRIBE_OPERATION_IDS = ['subscribe'] as const;

/** Zulip's pseudo-operation documenting the errors common to many endpoints; extracted too. */
export const COMMON_ERRORS_ID = 'rest-error-handling';

const EXTRACTED_IDS: readonly string[] = [
  ...OPERATION_IDS,
  ...LIVE_OPERATION_IDS,
  ...READ_OPERATION_IDS,
  ...PERSONAL_OPERATION_IDS,
  COMMON_ERRORS_ID,
  ...SUBSCRIBE_OPERATION_IDS,
];

/** JSON Schema keywords we keep; everything else (prose, examples, x-*, deprecated, default) is dropped. */
const KEPT = new Set(['type', 'enum', 'required', 'additionalProperties', 'properties', 'items']);
const COMBINATORS = new Set(['allOf', 'anyOf', 'oneOf']);
const HTTP_METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'head', 'options']);

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(value: unknown, ...path: string[]): unknown {
  let cur = value;
  for (const key of path) {
    if (Array.isArray(cur) && /^\d+$/.test(key)) cur = cur[Number(key)];
    else if (isObject(cur)) cur = cur[key];
    else return undefined;
  }
  return cur;
}

function resolvePointer(doc: JsonObject, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`external $ref not supported: ${ref}`);
  const parts = ref
    .slice(2)
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  const target = field(doc, ...parts);
  if (target === undefined) throw new Error(`dangling $ref: ${ref}`);
  return target;
}

/** Adds null as an allowed value, the JSON Schema way. */
function makeNullable(schema: JsonObject): JsonObject {
  if (Object.keys(schema).some((k) => COMBINATORS.has(k))) return { anyOf: [schema, { type: 'null' }] };
  const out: JsonObject = { ...schema };
  const t = schema['type'];
  if (typeof t === 'string') out['type'] = [t, 'null'];
  const e = schema['enum'];
  if (Array.isArray(e) && !e.includes(null)) out['enum'] = [...e, null];
  return out;
}

/**
 * Converts one OpenAPI 3.0 schema: inlines $refs, turns `nullable` into JSON
 * Schema, keeps only validation keywords. A $ref met again while it is being
 * inlined (recursion) becomes `{}`, i.e. "anything".
 */
export function convertSchema(doc: JsonObject, input: unknown, stack: readonly string[] = []): JsonObject {
  if (!isObject(input)) throw new Error(`not a schema: ${JSON.stringify(input)}`);
  const ref = input['$ref'];
  if (typeof ref === 'string') {
    if (stack.includes(ref)) return {};
    return convertSchema(doc, resolvePointer(doc, ref), [...stack, ref]);
  }
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(input)) {
    if (!KEPT.has(key) && !COMBINATORS.has(key)) continue;
    if (key === 'properties' && isObject(value)) {
      const props: JsonObject = {};
      for (const [name, sub] of Object.entries(value)) props[name] = convertSchema(doc, sub, stack);
      out[key] = props;
    } else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) {
      out[key] = convertSchema(doc, value, stack);
    } else if (Array.isArray(value) && COMBINATORS.has(key)) {
      out[key] = value.map((sub) => convertSchema(doc, sub, stack));
    } else {
      out[key] = value;
    }
  }
  return input['nullable'] === true ? makeNullable(out) : out;
}

function responseSchemas(doc: JsonObject, operation: unknown): Record<string, JsonObject> {
  const out: Record<string, JsonObject> = {};
  const responses = field(operation, 'responses');
  if (!isObject(responses)) return out;
  for (const [status, raw] of Object.entries(responses)) {
    let response: unknown = raw;
    const ref = field(raw, '$ref');
    if (typeof ref === 'string') response = resolvePointer(doc, ref);
    const schema = field(response, 'content', 'application/json', 'schema');
    if (schema !== undefined) out[status] = convertSchema(doc, schema);
  }
  return out;
}

/** String enum values of `schema.properties[prop]`, looking through allOf on both levels. */
function enumValues(schema: unknown, prop: string): string[] {
  const found = new Set<string>();
  const eachAllOf = (s: JsonObject, fn: (part: unknown) => void): void => {
    const all = s['allOf'];
    if (Array.isArray(all)) all.forEach(fn);
  };
  const collect = (s: unknown): void => {
    if (!isObject(s)) return;
    const e = s['enum'];
    if (Array.isArray(e)) for (const v of e) if (typeof v === 'string') found.add(v);
    eachAllOf(s, collect);
  };
  const visit = (s: unknown): void => {
    if (!isObject(s)) return;
    collect(field(s, 'properties', prop));
    eachAllOf(s, visit);
  };
  visit(schema);
  return [...found];
}

export function eventKeys(schema: JsonObject): string[] {
  const types = enumValues(schema, 'type');
  const ops = enumValues(schema, 'op');
  if (types.length === 0) throw new Error('event schema without a type enum');
  return types.flatMap((t) => (ops.length === 0 ? [t] : ops.map((o) => `${t}/${o}`)));
}

export function featureLevelNote(text: string): string {
  const levels = [...text.matchAll(/feature level (\d+)/g)].map((m) => Number(m[1]));
  return `Zulip 11.0-dev OpenAPI; highest feature level named in a Changes note: ${Math.max(...levels)}`;
}

export function extractSchemas(yamlText: string): SchemaSubset {
  const parsed: unknown = parse(yamlText);
  if (!isObject(parsed) || !isObject(parsed['paths'])) throw new Error('not an OpenAPI document');
  const doc = parsed;
  const responses: SchemaSubset['responses'] = {};
  let eventsOneOf: unknown;
  for (const [path, item] of Object.entries(parsed['paths'])) {
    if (!isObject(item)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const id = field(operation, 'operationId');
      if (typeof id === 'string' && EXTRACTED_IDS.includes(id)) {
        responses[id] = responseSchemas(doc, operation);
      }
      if (path === '/events' && method === 'get') {
        const schema = field(operation, 'responses', '200', 'content', 'application/json', 'schema');
        eventsOneOf = field(
          convertSchema(doc, schema),
          'allOf',
          '1',
          'properties',
          'events',
          'items',
          'oneOf',
        );
      }
    }
  }
  if (!Array.isArray(eventsOneOf)) throw new Error('GET /events has no events oneOf');
  const events: SchemaSubset['events'] = {};
  for (const variant of eventsOneOf) {
    if (!isObject(variant)) continue;
    for (const key of eventKeys(variant)) {
      if (key in events) throw new Error(`two event schemas for ${key}`);
      events[key] = variant;
    }
  }
  const sha256 = createHash('sha256').update(yamlText, 'utf8').digest('hex');
  return { source: { sha256, feature_level_note: featureLevelNote(yamlText) }, responses, events };
}

function sortKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys(value[key] ?? null);
  return out;
}

/** Deterministic text: sorted keys, 2-space indent, trailing newline. */
export function serializeSubset(subset: SchemaSubset): string {
  const json: Json = {
    source: subset.source,
    responses: subset.responses,
    events: subset.events,
  };
  return `${JSON.stringify(sortKeys(json), null, 2)}\n`;
}

export const OUTPUT_URL = new URL('../test/schemas/zulip-openapi-subset.json', import.meta.url);

function main(): void {
  const input = resolve(process.argv[2] ?? '../shared/reference/zulip-openapi.yaml');
  const subset = extractSchemas(readFileSync(input, 'utf8'));
  writeFileSync(OUTPUT_URL, serializeSubset(subset));
  const ops = Object.keys(subset.responses).length;
  const evs = Object.keys(subset.events).length;
  console.log(`wrote ${fileURLToPath(OUTPUT_URL)}: ${ops} operations, ${evs} event schemas`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();

/**
 * Validates response bodies and events against Zulip's own OpenAPI schemas
 * (test/schemas/zulip-openapi-subset.json, extracted by scripts/extract-schemas.ts)
 * plus hand-written facts from the newer digests (test/schemas/supplement.json):
 *   - responses/events the document lacks (5 operations, navigation_view, channel_folder);
 *   - `errors`: coded errors with extra keys, accepted at that status for every operation;
 *   - `patches`: properties/alternatives the newer server adds to documented schemas.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Schemas = Record<string, JsonObject>;

/** Zulip's rest-error-handling pseudo-operation documents errors common to many endpoints. */
const COMMON_ERRORS_ID = 'rest-error-handling';

/** Fallback for an error status with no documented schema for the operation. */
const GENERIC_CODED_ERROR: JsonObject = {
  type: 'object',
  required: ['result', 'msg', 'code'],
  properties: { result: { enum: ['error'] }, msg: { type: 'string' }, code: { type: 'string' } },
};

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readJson(name: string): JsonObject {
  const parsed: unknown = JSON.parse(readFileSync(new URL(`../schemas/${name}`, import.meta.url), 'utf8'));
  if (!isObject(parsed)) throw new Error(`${name} is not a JSON object`);
  return parsed;
}

function objectAt(value: Json | undefined, what: string): JsonObject {
  if (!isObject(value)) throw new Error(`${what} is not an object`);
  return value;
}

interface Loaded {
  responses: Record<string, Schemas>;
  events: Schemas;
  errors: Record<string, JsonObject[]>;
  definitions: JsonObject;
}

function applyPatch(loaded: Loaded, patch: Json): void {
  const p = objectAt(patch, 'patch');
  const where = p['in'];
  const path = p['path'];
  if (!Array.isArray(where) || typeof path !== 'string') throw new Error(`bad patch ${JSON.stringify(p)}`);
  let node: Json | undefined = where[0] === 'events' ? loaded.events : loaded.responses;
  for (const key of [...where.slice(1), ...path.split('/').slice(1)]) {
    if (typeof key !== 'string') throw new Error(`bad patch ${JSON.stringify(p)}`);
    node = Array.isArray(node) ? node[Number(key)] : isObject(node) ? node[key] : undefined;
  }
  const target = p['append'];
  if (target !== undefined) {
    if (!Array.isArray(node)) throw new Error(`patch target ${path} is not an array`);
    node.push(target);
    return;
  }
  const obj = objectAt(node, `patch target ${where.join(':')} ${path}`);
  for (const [key, schema] of Object.entries(objectAt(p['add'], 'patch add'))) {
    if (key in obj) throw new Error(`patch would replace ${where.join(':')} ${path}/${key}`);
    obj[key] = schema;
  }
}

let loadedCache: Loaded | undefined;

function load(): Loaded {
  if (loadedCache) return loadedCache;
  const subset = structuredClone(readJson('zulip-openapi-subset.json'));
  const supplement = readJson('supplement.json');
  const responses: Record<string, Schemas> = {};
  for (const source of [subset['responses'], supplement['responses']]) {
    for (const [op, byStatus] of Object.entries(objectAt(source, 'responses'))) {
      if (op in responses) throw new Error(`supplement redefines responses of ${op}`);
      const statuses: Schemas = {};
      for (const [status, schema] of Object.entries(objectAt(byStatus, op)))
        statuses[status] = objectAt(schema, op);
      responses[op] = statuses;
    }
  }
  const events: Schemas = {};
  for (const source of [subset['events'], supplement['events']]) {
    for (const [key, schema] of Object.entries(objectAt(source, 'events'))) {
      if (key in events) throw new Error(`supplement redefines event ${key}`);
      events[key] = objectAt(schema, key);
    }
  }
  const errors: Record<string, JsonObject[]> = {};
  for (const [status, list] of Object.entries(objectAt(supplement['errors'], 'errors'))) {
    errors[status] = Array.isArray(list) ? list.map((s) => objectAt(s, `errors ${status}`)) : [];
  }
  const definitions = objectAt(supplement['definitions'], 'definitions');
  loadedCache = { responses, events, errors, definitions };
  const patches = supplement['patches'];
  if (Array.isArray(patches)) for (const patch of patches) applyPatch(loadedCache, patch);
  return loadedCache;
}

/**
 * Several of Zulip's error `oneOf`s list overlapping shapes (e.g. CodedError
 * twice for remove-fcm-token 400), which no body can satisfy "exactly once";
 * for error responses we read `oneOf` as `anyOf`.
 */
function oneOfAsAnyOf(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(oneOfAsAnyOf);
  if (!isObject(schema)) return schema;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(schema))
    out[key === 'oneOf' ? 'anyOf' : key] = oneOfAsAnyOf(value);
  return out;
}

function responseSchema(operationId: string, status: number): JsonObject {
  const { responses, errors } = load();
  const byStatus = responses[operationId];
  if (!byStatus) throw new Error(`no response schemas for operation ${operationId}`);
  const key = String(status);
  const own = byStatus[key];
  if (status < 400) {
    if (!own) throw new Error(`no ${key} response schema for ${operationId}`);
    return own;
  }
  const common = responses[COMMON_ERRORS_ID]?.[key];
  const alternatives = [own, common, ...(errors[key] ?? [])].filter((s): s is JsonObject => s !== undefined);
  if (!own) alternatives.push(GENERIC_CODED_ERROR);
  return objectAt(oneOfAsAnyOf({ anyOf: alternatives }), 'error schema');
}

let ajvInstance: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(cacheKey: string, schema: () => JsonObject): ValidateFunction {
  let fn = compiled.get(cacheKey);
  if (!fn) {
    if (!ajvInstance) {
      ajvInstance = new Ajv({ strict: false, allErrors: true });
      addFormats(ajvInstance);
      ajvInstance.addSchema({ $id: 'supplement.json', definitions: load().definitions });
    }
    fn = ajvInstance.compile(schema());
    compiled.set(cacheKey, fn);
  }
  return fn;
}

function formatErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`,
  );
}

/** Whether a schema exists for this operation and status (errors always fall back to a generic one). */
export function hasResponseSchema(operationId: string, status: number): boolean {
  const byStatus = load().responses[operationId];
  return byStatus !== undefined && (status >= 400 || byStatus[String(status)] !== undefined);
}

/** Errors of `body` against the operation's documented response for `status`; empty when valid. */
export function validateResponse(operationId: string, status: number, body: unknown): string[] {
  const schema = responseSchema(operationId, status);
  const validate = validator(`response ${operationId} ${status}`, () => schema);
  return validate(body) ? [] : formatErrors(validate.errors);
}

/** The key of an event's schema: `type/op`, or `type` for events without an op. */
export function eventKey(event: unknown): string | undefined {
  if (!isObject(event) || typeof event['type'] !== 'string') return undefined;
  const op = event['op'];
  return typeof op === 'string' ? `${event['type']}/${op}` : event['type'];
}

export function eventSchemaKeys(): string[] {
  return Object.keys(load().events).sort();
}

/** Errors of `event` against its schema; the queue's `id` is added (as 0) to a copy first. */
export function validateEvent(event: unknown): string[] {
  const key = eventKey(event);
  if (!isObject(event) || key === undefined) return [`not an event: ${JSON.stringify(event)}`];
  const schema = load().events[key];
  if (!schema) return [`no schema for event ${key}`];
  const validate = validator(`event ${key}`, () => schema);
  return validate({ id: 0, ...event }) ? [] : formatErrors(validate.errors);
}

function fail(what: string, errors: string[], value: unknown): never {
  const list = errors.map((e) => `  - ${e}`).join('\n');
  throw new Error(`${what} does not match Zulip's schema:\n${list}\nvalue: ${JSON.stringify(value)}`);
}

export function expectValidResponse(operationId: string, status: number, body: unknown): void {
  const errors = validateResponse(operationId, status, body);
  if (errors.length > 0) fail(`${operationId} ${status} response`, errors, body);
}

export function expectValidEvent(event: unknown): void {
  const errors = validateEvent(event);
  if (errors.length > 0) fail(`event ${eventKey(event) ?? '?'}`, errors, event);
}

/**
 * A realm handle with event queues: what a Zulip client needs to stay live. `withEventQueues`
 * answers POST /register (the pure `register` operation plus a new queue), GET /events (long-poll)
 * and DELETE /events itself, and passes every other request to the handle. Both HTTP servers call
 * its `request`, so long-polling works the same behind the Fetch handler and the Node adapter.
 * Every change the handle persists (its own, or another process's caught up through the store's
 * notifications) reaches the queues through `handle.subscribe`.
 */
import * as z from 'zod/mini';
import { errors, type ZulipError } from '../core/errors';
import { parseParams, param, rawParam } from '../core/params';
import { isGuest } from '../core/permissions/roles';
import { checkRegisterLimits } from '../core/register/limits';
import { checkNarrowForEvents, type EventNarrowTerm } from '../core/register/narrow-events';
import type { ClientCapabilities } from '../core/register/options';
import { errorBody, type OpResult } from '../core/result';
import { authenticate } from '../wire/auth';
import { forEachFormField, setField } from '../wire/form';
import { handleApiRequest, headerValue, type ApiRequest } from '../wire/handle';
import { EventQueues, type EventQueueOptions, type NewQueue } from './event-queues';
import type { RealmHandle } from './realm-handle';
import { PresenceTable } from './presence-table';
import { isEphemeralRoute } from './ephemeral-routes';

export interface LiveRealm {
  /** Answers a wire request; GET /events may wait (up to the heartbeat) for the next event. */
  request(request: ApiRequest): Promise<OpResult>;
  readonly queues: EventQueues;
  readonly handle: RealmHandle;
  /** Users' presence: volatile host state, never in the change log (docs/ARCHITECTURE.md). */
  readonly presence: PresenceTable;
  /** Stops delivering, answers waiting polls, stops the collector (the handle stays open). */
  close(): void;
}

const GET_EVENTS_PARAMS = [
  rawParam('queue_id'),
  param('last_event_id', z.int()),
  param('dont_block', z.boolean()),
  param('event_types', z.array(z.string())),
  param('lifespan_secs', z.int().check(z.minimum(0))),
  param('apply_markdown', z.boolean()),
  param('client_gravatar', z.boolean()),
  param('all_public_streams', z.boolean()),
  param('narrow', z.array(z.array(z.string()).check(z.length(2)))),
];
const DELETE_EVENTS_PARAMS = [rawParam('queue_id', z.string(), { required: true })];

export function withEventQueues(handle: RealmHandle, options: EventQueueOptions = {}): LiveRealm {
  const queues = new EventQueues(options);
  const unsubscribe = handle.subscribe(({ events, missed }) => {
    // Changes without events (the handle caught up past pruned changes): no queue can be brought
    // up to date, so all are dropped and their clients re-register, as after a Zulip restart.
    if (missed !== undefined) queues.dropAll();
    queues.deliver(events);
  });
  const nowSecs = () => Math.floor((options.clock?.now() ?? Date.now()) / 1000);
  const presence = new PresenceTable(options.clock?.now() ?? Date.now());

  /**
   * Not an `async` function: the handle's promise is returned as it is, not wrapped in another
   * one that settles a few microtasks later (every request goes through here). A throw still
   * becomes a rejection, as from an `async` function.
   */
  function request(req: ApiRequest): Promise<OpResult> {
    try {
      // A halted realm answers nothing from its state, queues included: the handle says why.
      if (handle.halted !== undefined) return handle.request(req);
      const method = String(req.method).toUpperCase();
      switch (routeOf(method, String(req.url))) {
        case 'register':
          return Promise.resolve(register(req));
        case 'events':
          return events(req, method);
        case 'ephemeral':
          return Promise.resolve(ephemeral(req));
        default:
          return handle.request(req);
      }
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /**
   * Presence and typing: run on the last durable state, outside the handle's batches (they never
   * change the realm, so nothing is appended and nothing waits for an fsync); their effects go to
   * the presence table and their events straight to the queues.
   */
  function ephemeral(req: ApiRequest): OpResult {
    const result = handleApiRequest(handle.state, req, { now: nowSecs(), presence });
    presence.apply(result.effects);
    queues.deliver(result.events);
    return result;
  }

  function register(req: ApiRequest): OpResult {
    // Read the state and allocate the queue in one synchronous step: no change can fall between.
    const state = handle.state;
    const result = handleApiRequest(state, req, { now: nowSecs(), presence });
    if (result.status !== 200) return result;
    const actor = authenticate(state, headerValue(req.headers, 'authorization'));
    if (!('userId' in actor)) return result;
    const input = inputOf(req);
    const queue = queues.create(actor.userId, queueRequest(input));
    return { ...result, body: { ...result.body, queue_id: queue.id, last_event_id: -1 } };
  }

  async function events(req: ApiRequest, method: string): Promise<OpResult> {
    const state = handle.state;
    const refuse = (error: ZulipError): OpResult => ({
      state,
      status: error.status,
      body: errorBody(error),
      events: [],
      effects: [],
    });
    const actor = authenticate(state, headerValue(req.headers, 'authorization'));
    if ('code' in actor) return refuse(actor);
    if (!('userId' in actor)) return refuse(errors.notLoggedIn());
    const input = inputOf(req);
    const specs = method === 'DELETE' ? DELETE_EVENTS_PARAMS : GET_EVENTS_PARAMS;
    const parsed = parseParams(specs, input, 'wire');
    if (!parsed.ok) return refuse(parsed.error);
    const ignored = parsed.ignored.length > 0 ? { ignored_parameters_unsupported: parsed.ignored } : {};
    const v = parsed.values as { queue_id?: string; last_event_id?: number; dont_block?: boolean };
    if (method === 'DELETE') {
      const error = queues.delete(actor.userId, v.queue_id!);
      if (error) return refuse(error);
      return {
        state,
        status: 200,
        body: { result: 'success', msg: '', ...ignored },
        events: [],
        effects: [],
      };
    }
    const newQueue = queueRequest(input);
    if (v.queue_id === undefined) {
      // Without a queue id this request registers a queue, checked as register checks it.
      const user = state.users.get(actor.userId);
      if (newQueue.allPublicStreams === true && user !== undefined && isGuest(user))
        return refuse(errors.badRequest('User not authorized for this query'));
      const tooLarge = checkRegisterLimits({ narrow: newQueue.narrow, event_types: newQueue.eventTypes });
      if (tooLarge) return refuse(tooLarge);
      const narrowError = checkNarrowForEvents(newQueue.narrow ?? []);
      if (narrowError) return refuse(narrowError);
    }
    const got = await queues.get(
      actor.userId,
      v.queue_id,
      v.last_event_id,
      v.dont_block ?? false,
      newQueue,
      req.signal,
    );
    if (got.kind === 'error') return refuse(got.error);
    const body = {
      result: 'success' as const,
      msg: '' as const,
      ...ignored,
      events: got.events,
      ...(got.queueId === undefined ? {} : { queue_id: got.queueId }),
    };
    return { state: handle.state, status: 200, body, events: [], effects: [] };
  }

  return {
    request,
    queues,
    handle,
    presence,
    close() {
      unsubscribe();
      queues.close();
    },
  };
}

type Route = 'register' | 'events' | 'ephemeral' | 'handle';

/**
 * Routes by method and path, remembered: clients call the same few paths again and again. One
 * table per method, keyed by the path as given: no key string is built per request. Bounded (16 methods, 4096 paths each).
 */
const routes = new Map<string, Map<string, Route>>();

function routeOf(method: string, url: string): Route {
  const q = url.indexOf('?');
  const target = q < 0 ? url : url.slice(0, q);
  let byPath = routes.get(method);
  if (byPath === undefined) {
    if (routes.size >= 16) routes.clear();
    byPath = new Map();
    routes.set(method, byPath);
  }
  let route = byPath.get(target);
  if (route === undefined) {
    const path = target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/\/+$/, '');
    if (path === '/api/v1/register' && method === 'POST') route = 'register';
    else if (path === '/api/v1/events' && (method === 'GET' || method === 'DELETE')) route = 'events';
    else if (isEphemeralRoute(method, path)) route = 'ephemeral';
    else route = 'handle';
    if (byPath.size >= 4096) byPath.clear();
    byPath.set(target, route);
  }
  return route;
}

/** The queue settings of a register (or queue-creating GET /events) request, already validated. */
function queueRequest(input: Readonly<Record<string, unknown>>): NewQueue {
  const json = (name: string): unknown => {
    const raw = input[name];
    if (typeof raw !== 'string') return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined;
    }
  };
  const types = json('event_types');
  const lifespan = json('queue_lifespan_secs') ?? json('lifespan_secs');
  const caps = json('client_capabilities');
  const narrow = json('narrow');
  const markdown = json('apply_markdown');
  const allPublic = json('all_public_streams');
  const gravatar = json('client_gravatar');
  const slimPresence = json('slim_presence');
  return {
    eventTypes: Array.isArray(types) ? types.map(String) : null,
    lifespanSecs: typeof lifespan === 'number' ? lifespan : 0,
    capabilities: typeof caps === 'object' && caps !== null ? (caps as ClientCapabilities) : {},
    narrow: Array.isArray(narrow) ? (narrow as EventNarrowTerm[]) : [],
    applyMarkdown: markdown === true,
    allPublicStreams: allPublic === true,
    clientGravatar: gravatar !== false,
    slimPresence: slimPresence === true,
  };
}

/** Query and form parameters, the body winning (as `handleApiRequest` merges them). */
function inputOf(req: ApiRequest): Record<string, unknown> {
  const input: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  const url = String(req.url);
  const q = url.indexOf('?');
  if (q >= 0) forEachFormField(url.slice(q + 1), input, setField);
  const body = req.body;
  if (typeof body === 'string') forEachFormField(body, input, setField);
  else if (body !== undefined && body !== null)
    for (const [k, v] of Object.entries(body)) input[k] = String(v);
  return input;
}

import { produce, type Draft } from 'immer';
import type { ZulipError } from './errors';
import type { Effect } from './effects';
import type { AddressedEvent } from './events';
import type { RealmState } from './state';

/** Zulip's success body: `result`, `msg`, the operation's data `D`, and the ignored parameters. */
export type ZulipSuccess<D extends object = Readonly<Record<string, unknown>>> = {
  readonly result: 'success';
  readonly msg: '';
  readonly ignored_parameters_unsupported?: readonly string[];
} & D;

/**
 * Zulip's error body: `msg` and `code` (absent only on a 405), plus the extra keys some errors
 * carry (e.g. `var_name`, `stream_id`).
 */
export interface ZulipErrorBody {
  readonly result: 'error';
  readonly msg: string;
  readonly code?: string;
  readonly [key: string]: unknown;
}

/** An operation's result; `D` is its success data (see `ZulipSuccess`). */
export interface OpResult<out D extends object = Readonly<Record<string, unknown>>> {
  /** The same object when nothing changed or on error. */
  readonly state: RealmState;
  readonly status: number;
  readonly body: ZulipSuccess<D> | ZulipErrorBody;
  readonly events: readonly AddressedEvent[];
  readonly effects: readonly Effect[];
}

export function errorBody(error: ZulipError): ZulipErrorBody {
  // Zulip's 405 has no `code`; every other error does.
  const base =
    error.code === ''
      ? { result: 'error' as const, msg: error.msg }
      : { result: 'error' as const, msg: error.msg, code: error.code };
  return { ...base, ...error.extra };
}

/** An expected failure: the same state, no events, Zulip's error body. */
export function failure(state: RealmState, error: ZulipError): OpResult<never> {
  return { state, status: error.status, body: errorBody(error), events: [], effects: [] };
}

export interface SuccessParts<D extends object> {
  readonly data?: D;
  readonly ignored?: readonly string[];
  readonly events?: readonly AddressedEvent[];
  readonly effects?: readonly Effect[];
}

/** The data of a success body that carries nothing but `result` and `msg`. */
export type EmptyData = Record<never, never>;

export function success<D extends object = EmptyData>(
  state: RealmState,
  parts: SuccessParts<D> = {},
): OpResult<D> {
  const ignored =
    parts.ignored && parts.ignored.length > 0 ? { ignored_parameters_unsupported: parts.ignored } : {};
  return {
    state,
    status: 200,
    body: { result: 'success', msg: '', ...parts.data, ...ignored } as ZulipSuccess<D>,
    events: parts.events ?? [],
    effects: parts.effects ?? [],
  };
}

/**
 * The one immer wrapper every operation applies its change through. Collections inside the state
 * are persistent maps (immutable class instances immer leaves alone), so a recipe replaces them:
 * `draft.users = draft.users.set(id, next)`.
 */
export function edit(state: RealmState, recipe: (draft: Draft<RealmState>) => void): RealmState {
  return produce(state, recipe);
}

/** Changes one small record with immer (frozen in, frozen out). */
export function editRecord<T extends object>(record: T, recipe: (draft: Draft<T>) => void): T {
  return produce(record, recipe);
}

/**
 * The Fetch API server: `(Request) => Promise<Response>` around a realm. It serves Zulip's REST
 * paths (`/api/v1/...`) the way a Zulip server answers them over HTTP:
 *
 * - parameters from the query string and from `application/x-www-form-urlencoded` or
 *   `multipart/form-data` bodies (zulip-js posts multipart); like Django, a body of any other
 *   type is not read as parameters, and file parts are not parameters;
 * - every answer is JSON, including 404, 405 (with `Allow`), 401 (with
 *   `WWW-Authenticate: Basic realm="zulip"`), bodies it cannot parse (400) and bodies over the
 *   limit (413);
 * - an unexpected exception (a store that fails, a bug) is logged and answers a 500 without
 *   details, never a stack trace.
 *
 * The realm does the rest: a realm handle runs `handleApiRequest`, persists the change and
 * publishes its events before the response is sent.
 */
import type { OpResult } from '../core/result';
import {
  concatChunks,
  createHttpCore,
  resultAnswer,
  type HttpAnswer,
  type HttpBody,
  type HttpOptions,
} from './http';
import type { FetchHandler } from './types';

export { DEFAULT_MAX_BODY_BYTES } from './http';

export type FetchHandlerOptions = HttpOptions;

/** Builds the Fetch handler for a realm (the request handling is shared with the Node listener). */
export function createFetchHandler(options: FetchHandlerOptions): FetchHandler {
  const core = createHttpCore(options);
  return async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const headers: Record<string, string> = {};
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const answer = await core(
      // The runtime aborts the request's signal when the client disconnects (the Node adapter
      // below does too), so a long-poll whose client is gone stops waiting.
      { method: request.method, path: url.pathname, search: url.search, headers, signal: request.signal },
      request.body === null ? null : fetchBody(request),
    );
    const head = request.method.toUpperCase() === 'HEAD';
    return toFetchResponse(answer, head);
  };
}

/** The HTTP response for an operation's result, with the headers Zulip sends with it. */
export function toResponse(result: Pick<OpResult, 'status' | 'body'>): Response {
  return toFetchResponse(resultAnswer(result), false);
}

function toFetchResponse(answer: HttpAnswer, head: boolean): Response {
  return new Response(head ? null : answer.body, { status: answer.status, headers: answer.headers });
}

function fetchBody(request: Request): HttpBody {
  return {
    async read(limit) {
      const reader = request.body!.getReader();
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        let step: ReadableStreamReadResult<Uint8Array>;
        try {
          step = await reader.read();
        } catch {
          return 'aborted';
        }
        if (step.done) break;
        total += step.value.byteLength;
        if (total > limit) {
          await reader.cancel().catch(() => undefined);
          return 'too_large';
        }
        chunks.push(step.value);
      }
      return concatChunks(chunks, total);
    },
    async discard() {
      await request.body?.cancel().catch(() => undefined);
    },
  };
}

/**
 * Forwarding a realm's writes to the process that holds its write lease, over node:http with
 * keep-alive connections (src/host/leased-handle.ts decides when). The request goes as the client
 * sent it (method, path, query, body, authorization), so the holder authenticates and runs it as
 * its own; the answer comes back as the holder's status and JSON body.
 *
 * Whether a failed request may be sent again matters: a connection that was refused, or a pooled
 * connection the holder had closed before anything was written to it, never delivered the
 * request; a reset or a timeout after the request was written may have been committed.
 */
import http from 'node:http';
import { ForwardError, type Forward, type ForwardedAnswer } from '../host/leased-handle';
import {
  bodyText,
  FORWARD_BATCH_PATH,
  FORWARD_SECRET_HEADER,
  type BatchedRequest,
  type ForwardBatch,
} from '../host/forward-batch';
import type { ApiRequest } from '../wire/handle';

export interface HttpForwardOptions {
  /** How long to wait for the holder's answer. Default 10 s. */
  readonly timeoutMs?: number;
  /** Most connections per holder. Default 64. */
  readonly maxSockets?: number;
}

/** Headers the holder needs to run the request as the client's own. */
const PASSED = new Set([
  'authorization',
  'content-type',
  'user-agent',
  'x-chat-realm-hops',
  'x-chat-realm-request-id',
  'x-chat-realm-forward-secret',
]);
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** The headers the holder needs (lower-cased) and the body as form text, as the request goes on. */
function passedOn(request: ApiRequest): { headers: Record<string, string>; body: string | undefined } {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers ?? {})) {
    if (PASSED.has(k.toLowerCase())) headers[k.toLowerCase()] = v;
  }
  const body = bodyText(request.body);
  // Fields a host already parsed (multipart): sent on as a form.
  if (body !== undefined && typeof request.body !== 'string')
    headers['content-type'] = 'application/x-www-form-urlencoded';
  return { headers, body };
}

export function httpForward(
  options: HttpForwardOptions = {},
): Forward & { readonly batch: ForwardBatch; close(): void } {
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 64 });
  const timeoutMs = options.timeoutMs ?? 10_000;
  const forward = (address: string, request: ApiRequest): Promise<ForwardedAnswer> =>
    new Promise((resolve, reject) => {
      const target = new URL(request.url, address);
      const { headers, body } = passedOn(request);
      if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
      let written = false;
      const req = http.request(
        target,
        { method: request.method, headers, agent, timeout: timeoutMs },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (e) =>
            reject(new ForwardError(true, 'the holder stopped answering', { cause: e })),
          );
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch (cause) {
              return reject(
                new ForwardError(true, 'the holder answered something else than JSON', { cause }),
              );
            }
            const result = (parsed as { result?: unknown } | null)?.result;
            if (result !== 'success' && result !== 'error')
              return reject(new ForwardError(true, 'the holder answered something else than a Zulip body'));
            resolve({ status: res.statusCode ?? 502, body: parsed as ForwardedAnswer['body'] });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer from ${address} within ${timeoutMs} ms`)));
      req.on('error', (error) => {
        const code = (error as { code?: unknown }).code;
        const sent = written && !(typeof code === 'string' && NOT_SENT.has(code));
        reject(new ForwardError(sent, `forwarding to ${address} failed: ${error.message}`, { cause: error }));
      });
      // "Written" once a socket took the request: before that nothing can have reached the holder.
      req.on('socket', (socket) => {
        if (socket.connecting) socket.once('connect', () => (written = true));
        else written = true;
      });
      req.end(body);
    });
  /**
   * A batch (src/host/forward-batch.ts): one POST carrying every request, answered with one answer
   * each. A refusal of the whole batch (anything but a success body with as many answers) ran
   * nothing: it rejects as not delivered, and the batcher sends the requests one by one.
   */
  const batch: ForwardBatch = async (address, secret, requests) => {
    const items: BatchedRequest[] = requests.map((r) => {
      const { headers, body } = passedOn(r);
      return { method: r.method, url: r.url, headers, ...(body === undefined ? {} : { body }) };
    });
    const got = await forward(address, {
      method: 'POST',
      url: FORWARD_BATCH_PATH,
      headers: { 'content-type': 'application/x-www-form-urlencoded', [FORWARD_SECRET_HEADER]: secret },
      body: new URLSearchParams({ batch: JSON.stringify(items) }).toString(),
    });
    const answers = (got.body as { answers?: unknown }).answers;
    if (got.status !== 200 || !Array.isArray(answers) || answers.length !== requests.length) {
      throw new ForwardError(false, `the holder at ${address} refused a batch (${got.status})`);
    }
    for (const a of answers as unknown[]) {
      const result = (a as { body?: { result?: unknown } } | null)?.body?.result;
      if (
        typeof (a as { status?: unknown }).status !== 'number' ||
        (result !== 'success' && result !== 'error')
      )
        throw new ForwardError(true, `the holder at ${address} answered a batch with something else`);
    }
    return answers as ForwardedAnswer[];
  };
  return Object.assign(forward, { batch, close: () => agent.destroy() });
}

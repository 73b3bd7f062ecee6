/** The parts of zulip-js 2.1.0 (untyped on npm) that the end-to-end tests use. */
declare module 'zulip-js' {
  type Params = Record<string, unknown>;
  type Reply = Promise<Record<string, unknown>>;
  export interface ZulipConfig {
    readonly realm: string;
    readonly username: string;
    readonly apiKey: string;
    readonly apiURL: string;
  }
  export interface ZulipClient {
    readonly config: ZulipConfig;
    callEndpoint(
      endpoint: string,
      method?: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT',
      params?: Params,
    ): Reply;
    readonly users: {
      retrieve(params?: Params): Reply;
      readonly me: {
        getProfile(): Reply;
        readonly subscriptions: { add(params: Params): Reply; remove(params: Params): Reply };
      };
    };
    readonly streams: {
      retrieve(params?: Params): Reply;
      deleteById(params: Params): Reply;
      getStreamId(params: Params | string): Reply;
      readonly topics: { retrieve(params: Params): Reply };
    };
    readonly messages: {
      retrieve(params?: Params): Reply;
      send(params: Params): Reply;
      render(params: Params | string): Reply;
      readonly flags: { add(params: Params): Reply; remove(params: Params): Reply };
    };
    readonly filters: { retrieve(params?: Params): Reply };
    readonly queues: { register(params?: Params): Reply; deregister(params: Params): Reply };
    readonly events: { retrieve(params: Params): Reply };
    readonly server: { settings(): Reply };
    readonly typing: { send(params: Params): Reply };
    readonly emojis: { retrieve(params?: Params): Reply };
    readonly reactions: { add(params: Params): Reply; remove(params: Params): Reply };
  }
  export default function zulip(
    config: { zuliprc: string } | { realm: string; username: string; apiKey?: string; password?: string },
  ): Promise<ZulipClient>;
}

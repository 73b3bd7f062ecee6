/**
 * The `ChatRealm` name (README, "The ChatRealm core"): the package's main entry imported as a
 * namespace, `import * as ChatRealm from 'chat-realm'`. Its members are the entry's exports, so an
 * operation registered in src/ops/index.ts is `ChatRealm.<name>` with its own types, with no list to
 * keep. `tsc` checks the type assertions; vitest runs the value checks.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as ChatRealm from '../../src/index';
import { editChannel, OPERATIONS, type OperationName } from '../../src/index';

const now = 1_795_219_200;

describe('ChatRealm (import * as ChatRealm from chat-realm)', () => {
  it('has every operation, by its name, with its own types', () => {
    expectTypeOf<OperationName>().toExtend<keyof typeof ChatRealm>();
    expectTypeOf(ChatRealm.editChannel).toEqualTypeOf(editChannel);
    expectTypeOf<ChatRealm.ParamsOf<typeof ChatRealm.editChannel>['stream_id']>().toEqualTypeOf<number>();
    for (const op of OPERATIONS) expect(ChatRealm[op.def.name], op.def.name).toBe(op);
  });

  it('has the realm functions and the state type', () => {
    const state: ChatRealm.RealmState = ChatRealm.simulateRealm({ preset: 'small', seed: 42 });
    expectTypeOf(ChatRealm.createRealm).returns.toEqualTypeOf<ChatRealm.RealmState>();
    const r = ChatRealm.editChannel(
      state,
      { userId: 1 },
      { stream_id: 1, description: 'Fair Verona' },
      { now },
    );
    expectTypeOf(r).toEqualTypeOf<ReturnType<typeof editChannel>>();
    expect(r.status).toBe(200);
    expect(ChatRealm.snapshotRealm(r.state).channels.find((c) => c.stream_id === 1)?.description).toBe(
      'Fair Verona',
    );
    // @ts-expect-error -- a misspelled parameter, as with the named import
    ChatRealm.editChannel(state, { userId: 1 }, { stream_id: 1, descripton: 'x' }, { now });
    // @ts-expect-error -- not a member: the namespace is exactly the entry's exports
    void ChatRealm.ChatRealm;
  });
});

/**
 * Zulip's `apply_event` (zerver/lib/events.py) on the POST /register state, for the event types the
 * operations send: what a Zulip client does to stay in step. It knows nothing of RealmState, only
 * the register state it holds and the event. Used by the verify_action law (register-law.test.ts).
 */
import type { ZulipEvent } from '../../../src/core/events';

type Dict = Record<string, unknown>;
type State = Dict;
const arr = (v: unknown): Dict[] => (Array.isArray(v) ? (v as Dict[]) : []);
const num = (v: unknown): number => v as number;

export function applyRegisterEvents(initial: State, events: readonly ZulipEvent[], meId: number): State {
  const state = structuredClone(initial);
  for (const e of events) apply(state, e as unknown as Dict, meId);
  recount(state);
  return state;
}

function usersOf(state: State): Dict[] {
  return [...arr(state['realm_users']), ...arr(state['realm_non_active_users'])];
}

function channelLists(state: State): Dict[][] {
  return ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams']
    .filter((k) => k in state)
    .map((k) => arr(state[k]));
}

function apply(state: State, e: Dict, meId: number): void {
  switch (e['type']) {
    case 'user_settings': {
      const prop = e['property'] as string;
      if (prop === 'timezone') return; // raw value; the canonical zone arrives in realm_user
      const settings = state['user_settings'] as Dict | undefined;
      if (settings && prop in settings) settings[prop] = e['value'];
      // A client without `user_settings_object` holds legacy top-level copies.
      if (prop in state && prop !== 'user_settings') state[prop] = e['value'];
      // Turning draft synchronization off deletes the server's drafts.
      if (prop === 'enable_drafts_synchronization' && e['value'] === false && 'drafts' in state)
        state['drafts'] = [];
      return;
    }
    case 'update_display_settings':
    case 'update_global_notifications': {
      const name = (e['setting_name'] ?? e['notification_name']) as string;
      if (name !== 'timezone' && name in state) state[name] = e['setting'];
      return;
    }
    case 'realm_user':
      return realmUser(state, e, meId);
    case 'realm_bot': {
      const bot = e['bot'] as Dict;
      for (const b of arr(state['realm_bots'])) if (b['user_id'] === bot['user_id']) Object.assign(b, bot);
      return;
    }
    case 'stream':
      return stream(state, e);
    case 'subscription':
      return subscription(state, e, meId);
    case 'default_streams':
      if ('realm_default_streams' in state) state['realm_default_streams'] = e['default_streams'];
      return;
    case 'scheduled_messages': {
      const list = arr(state['scheduled_messages']);
      const m = e['scheduled_message'] as Dict;
      const i = list.findIndex((x) => x['scheduled_message_id'] === m['scheduled_message_id']);
      if (i >= 0) list[i] = m;
      list.sort((a, b) => num(a['scheduled_delivery_timestamp']) - num(b['scheduled_delivery_timestamp']));
      return;
    }
    case 'user_group': {
      const groups = arr(state['realm_user_groups']);
      if (e['op'] === 'add') groups.push(e['group'] as Dict);
      else if (e['op'] === 'update') {
        const g = groups.find((x) => x['id'] === e['group_id']);
        if (g) Object.assign(g, e['data'] as Dict);
      } else if (e['op'] === 'remove')
        state['realm_user_groups'] = groups.filter((x) => x['id'] !== e['group_id']);
      return;
    }
    case 'custom_profile_fields': {
      state['custom_profile_fields'] = e['fields'];
      const ids = new Set(arr(e['fields']).map((f) => String(f['id'])));
      for (const u of usersOf(state)) {
        const pd = u['profile_data'] as Dict | undefined;
        if (pd) for (const k of Object.keys(pd)) if (!ids.has(k)) delete pd[k];
      }
      return;
    }
    case 'update_message_flags':
      return flags(state, e);
    case 'delete_message': {
      const ids = new Set((e['message_ids'] as number[] | undefined) ?? [num(e['message_id'])]);
      removeUnread(state, ids);
      if (Array.isArray(state['starred_messages']))
        state['starred_messages'] = (state['starred_messages'] as number[]).filter((id) => !ids.has(id));
      return;
    }
    case 'navigation_view':
      if (e['op'] === 'add') arr(state['navigation_views']).push(e['navigation_view'] as Dict);
      return;
    case 'saved_snippets':
      if (e['op'] === 'add') arr(state['saved_snippets']).push(e['saved_snippet'] as Dict);
      return;
    case 'channel_folder': {
      const folders = arr(state['channel_folders']);
      if (e['op'] === 'reorder') {
        const order = new Map((e['order'] as number[]).map((id, i) => [id, i]));
        for (const f of folders) f['order'] = order.get(num(f['id']));
        folders.sort((a, b) => num(a['order']) - num(b['order']));
      } else if (e['op'] === 'update') {
        const f = folders.find((x) => x['id'] === e['channel_folder_id']);
        if (f) Object.assign(f, e['data'] as Dict);
      } else if (e['op'] === 'add') folders.push(e['channel_folder'] as Dict);
      return;
    }
    case 'user_topic': {
      if (!('user_topics' in state)) return;
      const key = (t: Dict) => `${String(t['stream_id'])}:${String(t['topic_name']).toLowerCase()}`;
      const list = arr(state['user_topics']).filter((t) => key(t) !== key(e));
      if (e['visibility_policy'] !== 0)
        list.push({
          stream_id: e['stream_id'],
          topic_name: e['topic_name'],
          visibility_policy: e['visibility_policy'],
          last_updated: e['last_updated'],
        });
      state['user_topics'] = list;
      return;
    }
    case 'muted_topics':
      if ('muted_topics' in state) state['muted_topics'] = e['muted_topics'];
      return;
    case 'muted_users':
      if ('muted_users' in state) state['muted_users'] = e['muted_users'];
      return;
    case 'alert_words':
      if ('alert_words' in state) state['alert_words'] = e['alert_words'];
      return;
    case 'user_status': {
      // Zulip's apply_event: the parts given replace the held ones; empty parts are dropped.
      if (!('user_status' in state)) return;
      const all = state['user_status'] as Record<string, Dict>;
      const key = String(e['user_id']);
      const st: Dict = { ...(all[key] ?? {}) };
      if ('away' in e) {
        if (e['away'] === true) st['away'] = true;
        else delete st['away'];
      }
      if ('status_text' in e) {
        if (e['status_text'] !== '') st['status_text'] = e['status_text'];
        else delete st['status_text'];
      }
      if ('emoji_name' in e) {
        if (e['emoji_name'] !== '')
          Object.assign(st, {
            emoji_name: e['emoji_name'],
            emoji_code: e['emoji_code'],
            reaction_type: e['reaction_type'],
          });
        else for (const k of ['emoji_name', 'emoji_code', 'reaction_type']) delete st[k];
      }
      if (Object.keys(st).length > 0) all[key] = st;
      else delete all[key];
      return;
    }
    case 'message': {
      const m = e['message'] as Dict;
      if ('max_message_id' in state)
        state['max_message_id'] = Math.max(num(state['max_message_id']), num(m['id']));
      const flags = (e['flags'] as string[] | undefined) ?? [];
      if (!flags.includes('read')) newUnread(state, m, flags, meId);
      if (m['type'] === 'private' && Array.isArray(state['recent_private_conversations']))
        recentConversation(state, m, meId);
      return;
    }
    case 'update_message':
      return updateMessage(state, e);
    case 'realm_emoji':
      // The whole list each time (`notify_realm_emoji`).
      if ('realm_emoji' in state) state['realm_emoji'] = e['realm_emoji'];
      return;
    case 'realm': {
      if (e['op'] === 'update') state[`realm_${String(e['property'])}`] = e['value'];
      else for (const [k, v] of Object.entries(e['data'] as Dict)) state[`realm_${k}`] = v;
      return;
    }
    default:
      return;
  }
}

function realmUser(state: State, e: Dict, meId: number): void {
  const person = e['person'] as Dict;
  const id = num(person['user_id']);
  if (e['op'] === 'remove') {
    for (const key of ['realm_users', 'realm_non_active_users'])
      state[key] = arr(state[key]).filter((u) => u['user_id'] !== id);
    return;
  }
  if (e['op'] === 'add') {
    // A user the client could not see (a guest gaining access): the whole person, replacing any
    // "Unknown user" placeholder, in the list its `is_active` says, in id order as register sends.
    const { is_active: active, ...rest } = person;
    for (const key of ['realm_users', 'realm_non_active_users'])
      state[key] = arr(state[key]).filter((u) => u['user_id'] !== id);
    const key = active === false ? 'realm_non_active_users' : 'realm_users';
    state[key] = [...arr(state[key]), rest].sort((a, b) => num(a['user_id']) - num(b['user_id']));
    return;
  }
  const user = usersOf(state).find((u) => u['user_id'] === id);
  for (const [k, v] of Object.entries(person)) {
    if (k === 'user_id') continue;
    if (user) {
      if (k === 'new_email') user['email'] = v;
      else if (k === 'custom_profile_field') {
        const f = v as Dict;
        const pd = (user['profile_data'] ??= {}) as Dict;
        if (f['value'] === null) delete pd[String(f['id'])];
        else
          pd[String(f['id'])] =
            'rendered_value' in f
              ? { value: f['value'], rendered_value: f['rendered_value'] }
              : { value: f['value'] };
      } else if (k !== 'avatar_url_medium' && k !== 'avatar_source' && k !== 'email') user[k] = v;
    }
    if (id === meId) {
      // The canonical zone arrives here (the user_settings event echoes the raw value).
      if (k === 'timezone') {
        const settings = state['user_settings'] as Dict | undefined;
        if (settings) settings['timezone'] = v;
        if ('timezone' in state) state['timezone'] = v;
      }
      if (k === 'new_email' && 'email' in state) state['email'] = v;
      else if ((k === 'delivery_email' || k === 'full_name') && k in state) state[k] = v;
      else if (
        (k === 'avatar_url' || k === 'avatar_source' || k === 'avatar_url_medium') &&
        'avatar_url' in state
      )
        state[k] = v;
    }
  }
}

function stream(state: State, e: Dict): void {
  if (e['op'] === 'update') {
    for (const list of channelLists(state))
      for (const s of list) {
        if (s['stream_id'] !== e['stream_id']) continue;
        s[e['property'] as string] = e['value'];
        for (const extra of ['rendered_description', 'history_public_to_subscribers', 'is_web_public'])
          if (extra in e) s[extra] = e[extra];
      }
    return;
  }
  const ids = new Set(arr(e['streams']).map((s) => s['stream_id']));
  if (e['op'] === 'delete') {
    for (const key of ['subscriptions', 'unsubscribed', 'never_subscribed', 'streams'])
      if (key in state) state[key] = arr(state[key]).filter((s) => !ids.has(s['stream_id']));
  } else if (e['op'] === 'create') {
    for (const s of arr(e['streams'])) {
      if ('never_subscribed' in state) arr(state['never_subscribed']).push({ ...s });
      if ('streams' in state) arr(state['streams']).push({ ...s });
    }
  }
}

function subscription(state: State, e: Dict, meId: number): void {
  const subs = arr(state['subscriptions']);
  switch (e['op']) {
    case 'update':
      for (const s of subs) if (s['stream_id'] === e['stream_id']) s[e['property'] as string] = e['value'];
      return;
    case 'add':
      for (const s of arr(e['subscriptions'])) {
        for (const key of ['unsubscribed', 'never_subscribed'])
          if (key in state) state[key] = arr(state[key]).filter((x) => x['stream_id'] !== s['stream_id']);
        subs.push({ ...s });
      }
      return;
    case 'remove': {
      const ids = new Set(arr(e['subscriptions']).map((s) => s['stream_id']));
      const removed = subs.filter((s) => ids.has(s['stream_id']));
      for (const s of removed)
        if (Array.isArray(s['subscribers']))
          s['subscribers'] = (s['subscribers'] as number[]).filter((u) => u !== meId);
      state['unsubscribed'] = [...arr(state['unsubscribed']), ...removed];
      state['subscriptions'] = subs.filter((s) => !ids.has(s['stream_id']));
      return;
    }
    case 'peer_add':
    case 'peer_remove': {
      const streamIds = new Set(e['stream_ids'] as number[]);
      const users = e['user_ids'] as number[];
      for (const list of channelLists(state))
        for (const s of list) {
          if (!streamIds.has(num(s['stream_id']))) continue;
          if (Array.isArray(s['subscribers'])) {
            const set = new Set(s['subscribers'] as number[]);
            for (const u of users)
              if (e['op'] === 'peer_add') set.add(u);
              else set.delete(u);
            s['subscribers'] = [...set].sort((a, b) => a - b);
          }
        }
      return;
    }
    default:
      return;
  }
}

interface Unread {
  pms: Array<{ other_user_id: number; sender_id: number; unread_message_ids: number[] }>;
  streams: Array<{ stream_id: number; topic: string; unread_message_ids: number[] }>;
  huddles: Array<{ user_ids_string: string; unread_message_ids: number[] }>;
  mentions: number[];
  count: number;
}

/**
 * Zulip's `apply_event` for `update_message`: unread channel messages follow a move to their new
 * channel and topic; the edited message's mention state follows its new flags.
 */
function updateMessage(state: State, e: Dict): void {
  const u = state['unread_msgs'] as Unread | undefined;
  if (!u) return;
  const ids = new Set(e['message_ids'] as number[]);
  if ('new_stream_id' in e || 'subject' in e) {
    const moving: number[] = [];
    let from: { stream_id: number; topic: string } | undefined;
    for (const b of u.streams) {
      const hit = b.unread_message_ids.filter((id) => ids.has(id));
      if (hit.length === 0) continue;
      from ??= b;
      moving.push(...hit);
      b.unread_message_ids = b.unread_message_ids.filter((id) => !ids.has(id));
    }
    u.streams = u.streams.filter((b) => b.unread_message_ids.length > 0);
    if (moving.length > 0 && from) {
      const streamId = 'new_stream_id' in e ? num(e['new_stream_id']) : from.stream_id;
      const topic = 'subject' in e ? String(e['subject']) : from.topic;
      let bucket = u.streams.find(
        (b) => b.stream_id === streamId && b.topic.toLowerCase() === topic.toLowerCase(),
      );
      if (!bucket) u.streams.push((bucket = { stream_id: streamId, topic, unread_message_ids: [] }));
      bucket.unread_message_ids = [...bucket.unread_message_ids, ...moving].sort((a, b) => a - b);
    }
  }
  const id = num(e['message_id']);
  const unread = [...u.pms, ...u.streams, ...u.huddles].some((b) => b.unread_message_ids.includes(id));
  const flags = (e['flags'] as string[] | undefined) ?? [];
  const mentioned = ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned'].some((f) =>
    flags.includes(f),
  );
  u.mentions = u.mentions.filter((m) => m !== id);
  if (unread && mentioned) u.mentions = [...u.mentions, id].sort((a, b) => a - b);
}

function removeUnread(state: State, ids: ReadonlySet<number>): void {
  const u = state['unread_msgs'] as Unread | undefined;
  if (!u) return;
  for (const b of [...u.pms, ...u.streams, ...u.huddles])
    b.unread_message_ids = b.unread_message_ids.filter((id) => !ids.has(id));
  u.pms = u.pms.filter((b) => b.unread_message_ids.length > 0);
  u.streams = u.streams.filter((b) => b.unread_message_ids.length > 0);
  u.huddles = u.huddles.filter((b) => b.unread_message_ids.length > 0);
  u.mentions = u.mentions.filter((id) => !ids.has(id));
}

function flags(state: State, e: Dict): void {
  const flag = e['flag'] as string;
  const add = e['op'] === 'add';
  const ids = e['messages'] as number[];
  if (flag === 'starred' && Array.isArray(state['starred_messages'])) {
    const set = new Set(state['starred_messages'] as number[]);
    for (const id of ids)
      if (add) set.add(id);
      else set.delete(id);
    state['starred_messages'] = [...set].sort((a, b) => a - b);
  }
  if (flag !== 'read') return;
  const u = state['unread_msgs'] as Unread | undefined;
  if (!u) return;
  if (add) {
    if (e['all'] === true) {
      u.pms = [];
      u.streams = [];
      u.huddles = [];
      u.mentions = [];
    } else removeUnread(state, new Set(ids));
    return;
  }
  // Mark as unread: `message_details` says where each message goes back (Zulip's apply_event).
  const details = (e['message_details'] ?? {}) as Record<string, Dict>;
  for (const id of ids) {
    const d = details[String(id)];
    if (!d) continue;
    if (d['type'] === 'stream') {
      const topic = d['topic'] as string;
      // Zulip groups unread topics case-insensitively; the bucket keeps its spelling.
      let b = u.streams.find(
        (x) => x.stream_id === d['stream_id'] && x.topic.toLowerCase() === topic.toLowerCase(),
      );
      if (!b) u.streams.push((b = { stream_id: num(d['stream_id']), topic, unread_message_ids: [] }));
      b.unread_message_ids = [...new Set([...b.unread_message_ids, id])].sort((x, y) => x - y);
    } else {
      const others = d['user_ids'] as number[];
      if (others.length <= 1) {
        const other = others[0] ?? num(state['user_id']);
        let b = u.pms.find((x) => x.other_user_id === other);
        if (!b) u.pms.push((b = { other_user_id: other, sender_id: other, unread_message_ids: [] }));
        b.unread_message_ids = [...new Set([...b.unread_message_ids, id])].sort((x, y) => x - y);
      } else {
        const key = [...others, num(state['user_id'])].sort((x, y) => x - y).join(',');
        let b = u.huddles.find((x) => x.user_ids_string === key);
        if (!b) u.huddles.push((b = { user_ids_string: key, unread_message_ids: [] }));
        b.unread_message_ids = [...new Set([...b.unread_message_ids, id])].sort((x, y) => x - y);
      }
    }
    if (d['mentioned'] === true) u.mentions = [...new Set([...u.mentions, id])].sort((x, y) => x - y);
  }
}

/**
 * `count` from what the client holds: direct messages plus channel messages outside muted
 * conversations (the client has `subscriptions` and `user_topics`; Zulip's server keeps the
 * equivalent `unmuted_stream_msgs` set).
 */
function recount(state: State): void {
  const u = state['unread_msgs'] as Unread | undefined;
  if (!u) return;
  const muted = new Map(
    arr(state['subscriptions']).map((s) => [num(s['stream_id']), s['is_muted'] === true]),
  );
  const policy = new Map(
    arr(state['user_topics']).map((t) => [
      `${String(t['stream_id'])}:${String(t['topic_name']).toLowerCase()}`,
      num(t['visibility_policy']),
    ]),
  );
  let count = 0;
  for (const b of u.pms) count += b.unread_message_ids.length;
  for (const b of u.huddles) count += b.unread_message_ids.length;
  for (const b of u.streams) {
    const p = policy.get(`${b.stream_id}:${b.topic.toLowerCase()}`) ?? 0;
    const isMuted = muted.get(b.stream_id) === true ? p !== 2 && p !== 3 : p === 1;
    if (!isMuted) count += b.unread_message_ids.length;
  }
  u.count = count;
}

/** Zulip's `apply_unread_message_event`: a new unread message joins its conversation's bucket. */
function newUnread(state: State, m: Dict, flags: readonly string[], meId: number): void {
  const u = state['unread_msgs'] as Unread | undefined;
  if (!u) return;
  const id = num(m['id']);
  const add = (list: number[]) => [...new Set([...list, id])].sort((a, b) => a - b);
  let muted = false;
  if (m['type'] === 'stream') {
    const streamId = num(m['stream_id']);
    const topic = String(m['subject'] ?? m['topic'] ?? '');
    // Zulip groups unread topics case-insensitively; the bucket keeps its (older) spelling.
    let b = u.streams.find((x) => x.stream_id === streamId && x.topic.toLowerCase() === topic.toLowerCase());
    if (!b) u.streams.push((b = { stream_id: streamId, topic, unread_message_ids: [] }));
    b.unread_message_ids = add(b.unread_message_ids);
    const sub = arr(state['subscriptions']).find((s) => s['stream_id'] === streamId);
    const t = arr(state['user_topics']).find(
      (x) => x['stream_id'] === streamId && String(x['topic_name']).toLowerCase() === topic.toLowerCase(),
    );
    const p = t === undefined ? 0 : num(t['visibility_policy']);
    muted = sub?.['is_muted'] === true ? p !== 2 && p !== 3 : p === 1;
  } else {
    const recipients = arr(m['display_recipient']).map((r) => num(r['id']));
    const others = recipients.filter((r) => r !== meId);
    if (others.length <= 1) {
      const other = others[0] ?? meId;
      let b = u.pms.find((x) => x.other_user_id === other);
      if (!b) u.pms.push((b = { other_user_id: other, sender_id: other, unread_message_ids: [] }));
      b.unread_message_ids = add(b.unread_message_ids);
    } else {
      const key = [...new Set(recipients)].sort((a, b) => a - b).join(',');
      let b = u.huddles.find((x) => x.user_ids_string === key);
      if (!b) u.huddles.push((b = { user_ids_string: key, unread_message_ids: [] }));
      b.unread_message_ids = add(b.unread_message_ids);
    }
  }
  const wildcard = flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned');
  if (flags.includes('mentioned') || (wildcard && !muted)) u.mentions = add(u.mentions);
}

/**
 * Zulip's `recent_private_conversations` upkeep on a direct message: the conversation (the other
 * participants, sorted) gets the message as its newest and moves to the front.
 */
function recentConversation(state: State, m: Dict, meId: number): void {
  const others = (m['display_recipient'] as Dict[])
    .map((u) => num(u['id']))
    .filter((id) => id !== meId)
    .sort((a, b) => a - b);
  const key = others.join(',');
  const list = arr(state['recent_private_conversations']).filter(
    (c) => (c['user_ids'] as number[]).join(',') !== key,
  );
  list.push({ max_message_id: m['id'], user_ids: others });
  state['recent_private_conversations'] = list.sort(
    (a, b) => num(b['max_message_id']) - num(a['max_message_id']),
  );
}

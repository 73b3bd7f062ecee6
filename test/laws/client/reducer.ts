/**
 * A client's event reducer, written the way Zulip clients apply events (zulip-mobile style:
 * `switch (event.type)`, then `switch (event.op)`, exhaustive with a `never` default). It knows
 * nothing of RealmState: only the event and what the client already holds.
 */
import type { ZulipEvent } from '../../../src/core/events';
import type { GroupSettingValue } from '../../../src/core/model/group-setting';
import {
  CHANNEL_PROPERTIES,
  SUBSCRIPTION_PROPERTIES,
  topicKey,
  type ChannelView,
  type ClientView,
  type GroupView,
  type SubscriptionView,
} from './view';

type Obj = Record<string, unknown>;
const num = (v: unknown): number => v as number;
const sortNums = (xs: Iterable<number>): number[] => [...new Set(xs)].sort((a, b) => a - b);

export function applyEvent(state: ClientView, event: ZulipEvent): ClientView {
  const view = structuredClone(state);
  reduce(view, event);
  return view;
}

export function applyEvents(state: ClientView, events: readonly ZulipEvent[]): ClientView {
  return events.reduce(applyEvent, state);
}

function reduce(view: ClientView, event: ZulipEvent): void {
  switch (event.type) {
    case 'user_settings':
      // The raw `timezone` the user sent is echoed here; the canonical zone arrives in `realm_user`.
      if (event.property !== 'timezone') view.settings[event.property] = event.value;
      return;
    case 'update_display_settings':
    case 'update_global_notifications':
      // Legacy duplicates of `user_settings` (clients without `user_settings_object`).
      return;
    case 'realm_user':
      switch (event.op) {
        case 'update':
          return realmUserUpdate(view, event.person as Obj);
        case 'add':
          return realmUserAdd(view, event.person as Obj);
        case 'remove':
          delete view.users[event.person.user_id];
          return;
        default:
          return unreachable(event);
      }
    case 'realm_bot':
      if (event.op !== 'update') return unreachable(event);
      if (view.botKeys[event.bot.user_id] !== undefined && typeof event.bot['api_key'] === 'string')
        view.botKeys[event.bot.user_id] = event.bot['api_key'];
      return;
    case 'realm_export_consent':
      if (view.exportConsents) view.exportConsents[event.user_id] = event.consented;
      return;
    case 'stream':
      switch (event.op) {
        case 'update':
          return streamUpdate(view, event as unknown as Obj);
        case 'create':
          for (const s of event.streams) {
            const id = num(s['stream_id']);
            const channel: Obj = {};
            for (const p of CHANNEL_PROPERTIES) channel[p] = s[p];
            view.channels[id] = channel as ChannelView;
          }
          return;
        case 'delete':
          for (const s of event.streams) {
            delete view.channels[num(s['stream_id'])];
            delete view.subscribers[num(s['stream_id'])];
          }
          return;
        default:
          return unreachable(event);
      }
    case 'subscription':
      switch (event.op) {
        case 'update': {
          const sub = view.subscriptions[event.stream_id];
          if (sub === undefined) return;
          // `in_home_view` is the inverse of `is_muted`, which is always sent next to it.
          if ((SUBSCRIPTION_PROPERTIES as readonly string[]).includes(event.property))
            sub[event.property as keyof SubscriptionView] = event.value;
          return;
        }
        case 'add':
          for (const s of event.subscriptions) {
            const sub: Obj = {};
            for (const p of SUBSCRIPTION_PROPERTIES) sub[p] = s[p];
            view.subscriptions[num(s['stream_id'])] = sub as SubscriptionView;
            // A new subscription carries the channel's subscriber list (Zulip clients take it from here).
            if (Array.isArray(s['subscribers']))
              view.subscribers[num(s['stream_id'])] = sortNums(s['subscribers']);
          }
          return;
        case 'remove':
          for (const s of event.subscriptions) {
            delete view.subscriptions[s.stream_id];
            // Peer events about a channel stop with one's subscription: forget its subscribers.
            delete view.subscribers[s.stream_id];
          }
          return;
        case 'peer_add':
          for (const id of event.stream_ids) {
            const list = view.subscribers[id];
            if (list) view.subscribers[id] = sortNums([...list, ...event.user_ids]);
          }
          return;
        case 'peer_remove':
          for (const id of event.stream_ids) {
            const list = view.subscribers[id];
            if (list) view.subscribers[id] = list.filter((u) => !event.user_ids.includes(u));
          }
          return;
        default:
          return unreachable(event);
      }
    case 'default_streams':
      view.defaultChannels = sortNums(
        (event.default_streams as readonly unknown[]).map((s) =>
          typeof s === 'number' ? s : num((s as Obj)['stream_id']),
        ),
      );
      return;
    case 'scheduled_messages':
      if (event.op !== 'update') return unreachable(event);
      view.scheduled[num(event.scheduled_message['scheduled_message_id'])] = { ...event.scheduled_message };
      return;
    case 'user_group':
      switch (event.op) {
        case 'update': {
          const g = view.groups[event.group_id];
          if (g === undefined) return;
          for (const [k, v] of Object.entries(event.data)) {
            if (k === 'name' || k === 'description') g[k] = v as string;
            else if (k === 'deactivated') g.deactivated = v as boolean;
            else g.settings[k] = v as GroupSettingValue;
          }
          return;
        }
        case 'add': {
          const g = event.group;
          const settings: Record<string, GroupSettingValue> = {};
          for (const [k, v] of Object.entries(g))
            if (k.startsWith('can_')) settings[k] = v as GroupSettingValue;
          const group: GroupView = {
            name: g['name'] as string,
            description: g['description'] as string,
            deactivated: g['deactivated'] as boolean,
            members: sortNums(g['members'] as number[]),
            direct_subgroup_ids: sortNums(g['direct_subgroup_ids'] as number[]),
            settings,
          };
          view.groups[num(g['id'])] = group;
          return;
        }
        default:
          return unreachable(event);
      }
    case 'custom_profile_fields':
      view.customProfileFields = event.fields.map((f) => ({ ...f }));
      return;
    case 'update_message_flags': {
      const ids = event.all ? Object.keys(view.flags).map(Number) : event.messages;
      for (const id of ids) {
        // A message the client has no flags for is one it only saw in history: read, not starred.
        const current = new Set(view.flags[id] ?? ['read']);
        if (event.op === 'add') current.add(event.flag);
        else current.delete(event.flag);
        view.flags[id] = [...current].sort();
      }
      return;
    }
    case 'message':
      view.reactions[(event['message'] as { id: number }).id] = [];
      // A new message: the client's flags for it are the event's (the legacy name aside).
      view.flags[(event['message'] as { id: number }).id] = (event['flags'] as string[])
        .filter((f) => f !== 'wildcard_mentioned' && f !== 'historical')
        .sort();
      return;
    case 'delete_message':
      for (const id of event.message_ids) {
        delete view.flags[id];
        delete view.reactions[id];
      }
      return;
    case 'navigation_view':
      switch (event.op) {
        case 'add': {
          const v = event['navigation_view'] as { fragment: string; is_pinned: boolean; name: string | null };
          view.navigationViews = [
            ...view.navigationViews,
            { fragment: v.fragment, is_pinned: v.is_pinned, name: v.name },
          ].sort((a, b) => (a.fragment < b.fragment ? -1 : a.fragment > b.fragment ? 1 : 0));
          return;
        }
        case 'update':
        case 'remove':
          // Not sent by the 20 operations.
          return;
        default:
          return unreachable(event);
      }
    case 'saved_snippets':
      switch (event.op) {
        case 'add': {
          const s = event['saved_snippet'] as ClientView['snippets'][number];
          view.snippets[s.id] = {
            id: s.id,
            title: s.title,
            content: s.content,
            date_created: s.date_created,
          };
          return;
        }
        case 'update':
        case 'remove':
          return;
        default:
          return unreachable(event);
      }
    case 'channel_folder':
      switch (event.op) {
        case 'reorder': {
          // A folder's order is its last position in the list; ids that are not folders are ignored.
          const order = event['order'] as number[];
          order.forEach((id, i) => {
            const f = view.folders[id];
            if (f) f.order = i;
          });
          return;
        }
        case 'update': {
          const f = view.folders[num(event['channel_folder_id'])];
          if (f) Object.assign(f, pickKnown(event['data'] as Obj, ['name', 'description', 'is_archived']));
          return;
        }
        case 'add':
          return;
        default:
          return unreachable(event);
      }
    case 'user_topic': {
      const key = topicKey(num(event['stream_id']), event['topic_name'] as string);
      const policy = num(event['visibility_policy']);
      if (policy === 0) delete view.userTopics[key];
      else view.userTopics[key] = policy;
      return;
    }
    case 'muted_topics':
      // Legacy mirror of `user_topic` for old clients.
      return;
    case 'update_message': {
      // The edited message's flags as the event gives them (mentions re-computed), for a message
      // the client holds flags for; subscribers without a row get `["read"]` and keep none. The view
      // leaves out `historical` (see `ClientView.flags`), so the event's copy of it is dropped too.
      const id = num(event['message_id']);
      if (view.flags[id] !== undefined)
        view.flags[id] = (event['flags'] as string[])
          .filter((f) => f !== 'wildcard_mentioned' && f !== 'historical')
          .sort();
      // Moved into a channel whose history is protected: its subscribers now hold `read` rows.
      const dest = 'new_stream_id' in event ? view.channels[num(event['new_stream_id'])] : undefined;
      if (dest !== undefined && dest['history_public_to_subscribers'] === false)
        for (const m of event['message_ids'] as number[]) view.flags[m] ??= ['read'];
      return;
    }
    case 'drafts':
    case 'realm':
      // Not sent by the operations.
      return;
    case 'reaction':
      // Reacting to a message one holds no row for creates a historical row (read): the only
      // flag change a reaction makes, and only for the reacting user.
      if (event.op === 'add' && event.user_id === view.userId) view.flags[event.message_id] ??= ['read'];
      // Only for messages the client tracks: others it would fetch, reactions included.
      if (view.reactions[event.message_id] !== undefined) {
        const id = event.message_id;
        const same = (r: Record<string, unknown>) =>
          r['user_id'] === event.user_id &&
          r['emoji_code'] === event.emoji_code &&
          r['reaction_type'] === event.reaction_type;
        const list = (view.reactions[id] ?? []).filter((r) => !same(r));
        if (event.op === 'add')
          list.push({
            user_id: event.user_id,
            emoji_name: event.emoji_name,
            emoji_code: event.emoji_code,
            reaction_type: event.reaction_type,
          });
        view.reactions[id] = list;
      }
      return;
    case 'realm_emoji':
      view.realmEmoji = structuredClone(event.realm_emoji) as Record<string, unknown>;
      return;
    case 'presence':
    case 'typing':
      // Ephemeral: nothing the model view holds (presence is host state).
      return;
    case 'muted_users':
    case 'alert_words':
    case 'user_status':
      // Personal state the model view does not hold: the register law checks it (register-reducer.ts).
      return;
    default:
      return unreachable(event);
  }
}

/** A user the client did not know (a guest gaining access): Zulip's whole person object. */
function realmUserAdd(view: ClientView, person: Obj): void {
  const profile: Record<string, string> = {};
  for (const [id, v] of Object.entries((person['profile_data'] ?? {}) as Record<string, { value: string }>))
    profile[id] = v.value;
  view.users[num(person['user_id'])] = {
    full_name: person['full_name'] as string,
    email: person['email'] as string,
    delivery_email: person['delivery_email'] as string | null,
    timezone: person['timezone'] as string,
    avatar_url: person['avatar_url'] as string | null,
    avatar_version: person['avatar_version'] as number,
    profile_data: profile,
  };
}

function realmUserUpdate(view: ClientView, person: Obj): void {
  const u = view.users[num(person['user_id'])];
  if (u === undefined) return;
  for (const [k, v] of Object.entries(person)) {
    switch (k) {
      case 'user_id':
        break;
      case 'full_name':
      case 'timezone':
        u[k] = v as string;
        break;
      case 'new_email':
        u.email = v as string;
        break;
      case 'delivery_email':
        u.delivery_email = v as string | null;
        break;
      case 'avatar_url':
        u.avatar_url = v as string | null;
        break;
      case 'avatar_version':
        u.avatar_version = v as number;
        break;
      case 'custom_profile_field': {
        const f = v as { id: number; value: string };
        u.profile_data[String(f.id)] = f.value;
        break;
      }
      case 'email':
      case 'avatar_source':
      case 'avatar_url_medium':
        // `email` identifies the user in old events; the rest is not in the view.
        break;
      default:
        break;
    }
  }
}

function streamUpdate(view: ClientView, event: Obj): void {
  const c = view.channels[num(event['stream_id'])];
  if (c === undefined) return;
  const property = event['property'] as string;
  if ((CHANNEL_PROPERTIES as readonly string[]).includes(property))
    c[property as keyof ChannelView] = event['value'];
  // A change of `invite_only` carries the other two permission fields with it.
  if (property === 'invite_only') {
    if ('history_public_to_subscribers' in event)
      c.history_public_to_subscribers = event['history_public_to_subscribers'];
    if ('is_web_public' in event) c.is_web_public = event['is_web_public'];
  }
}

function pickKnown(o: Obj, keys: readonly string[]): Obj {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
}

function unreachable(x: never): never {
  throw new Error(`unhandled event ${JSON.stringify(x)}`);
}

/**
 * Zulip's validation of a message's `widget_content` (`check_message` in
 * zerver/actions/message_send.py, `check_widget_content` in zerver/lib/validator.py): JSON text
 * holding `{widget_type, extra_data}`, where the only widget a client may send is a `zform` of
 * `choices`. Errors are Zulip's, prefixed with `Widgets: `. The widget itself is not kept
 * (docs/differences/messages.md).
 */
import { errors, type ZulipError } from '../errors';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Obj = { [key: string]: Json };

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Undefined when the text is a valid widget; otherwise Zulip's error. */
export function checkWidgetContent(text: string): ZulipError | undefined {
  let value: Json;
  try {
    value = JSON.parse(text) as Json;
  } catch {
    return errors.badRequest('Widgets: API programmer sent invalid JSON content');
  }
  const problem = widgetProblem(value);
  return problem === undefined ? undefined : errors.badRequest(`Widgets: ${problem}`);
}

function widgetProblem(content: Json): string | undefined {
  if (!isObj(content)) return 'widget_content is not a dict';
  if (!('widget_type' in content)) return 'widget_type is not in widget_content';
  if (!('extra_data' in content)) return 'extra_data is not in widget_content';
  const widgetType = content['widget_type'];
  const extra = content['extra_data'];
  if (!isObj(extra)) return 'extra_data is not a dict';
  if (widgetType === 'zform') {
    if (!('type' in extra)) return 'zform is missing type field';
    if (extra['type'] === 'choices') return choicesProblem(extra);
    return `unknown zform type: ${String(extra['type'])}`;
  }
  return `unknown widget type: ${String(widgetType)}`;
}

/** `check_dict` of `type`, `heading` and a list of `{short_name, long_name, reply}` strings. */
function choicesProblem(extra: Obj): string | undefined {
  const base = 'extra_data';
  // Key by key, in Zulip's order: `type` (known to be "choices"), `heading`, `choices`.
  if (!('type' in extra)) return `type key is missing from ${base}`;
  if (!('heading' in extra)) return `heading key is missing from ${base}`;
  if (typeof extra['heading'] !== 'string') return `${base}["heading"] is not a string`;
  if (!('choices' in extra)) return `choices key is missing from ${base}`;
  const choices = extra['choices'];
  const listName = `${base}["choices"]`;
  if (!Array.isArray(choices)) return `${listName} is not a list`;
  for (const [i, choice] of choices.entries()) {
    const name = `${listName}[${i}]`;
    if (!isObj(choice)) return `${name} is not a dict`;
    for (const key of ['short_name', 'long_name', 'reply']) {
      if (!(key in choice)) return `${key} key is missing from ${name}`;
      if (typeof choice[key] !== 'string') return `${name}["${key}"] is not a string`;
    }
  }
  return undefined;
}

/**
 * The interface languages a user may choose (`default_language`) and the names Zulip sends with a
 * change (`language_name`). Zulip reads them from its build's `locale/language_name_map.json`:
 * English plus every locale at least 5% translated, named in the language itself. The list below
 * is the engine's snapshot of that file; the exact set depends on a Zulip release's translations.
 *
 * Codes are checked in the locale spelling (`pt_BR`, `zh_Hans`), as the reference digest states;
 * see docs/differences/settings.md for why the hyphenated form (`pt-br`) is refused.
 */
const LANGUAGES: ReadonlyArray<readonly [code: string, name: string]> = [
  ['ar', 'العربيّة'],
  ['be', 'беларуская'],
  ['bg', 'български'],
  ['bn', 'বাংলা'],
  ['ca', 'català'],
  ['cs', 'česky'],
  ['cy', 'Cymraeg'],
  ['da', 'dansk'],
  ['de', 'Deutsch'],
  ['el', 'Ελληνικά'],
  ['en', 'English'],
  ['en_GB', 'British English'],
  ['eo', 'Esperanto'],
  ['es', 'español'],
  ['fa', 'فارسی'],
  ['fi', 'suomi'],
  ['fr', 'français'],
  ['gl', 'galego'],
  ['gu', 'ગુજરાતી'],
  ['hi', 'हिंदी'],
  ['hr', 'Hrvatski'],
  ['hu', 'Magyar'],
  ['id', 'Bahasa Indonesia'],
  ['it', 'italiano'],
  ['ja', '日本語'],
  ['ko', '한국어'],
  ['lt', 'Lietuviškai'],
  ['lv', 'latviešu'],
  ['ml', 'മലയാളം'],
  ['mn', 'Монгол'],
  ['nl', 'Nederlands'],
  ['no', 'norsk'],
  ['pl', 'polski'],
  ['pt', 'Português'],
  ['pt_BR', 'Português Brasileiro'],
  ['pt_PT', 'Portuguese (Portugal)'],
  ['ro', 'Română'],
  ['ru', 'Русский'],
  ['sk', 'Slovensky'],
  ['sr', 'српски'],
  ['sv', 'svenska'],
  ['ta', 'தமிழ்'],
  ['te', 'తెలుగు'],
  ['tl', 'Tagalog'],
  ['tr', 'Türkçe'],
  ['uk', 'Українська'],
  ['uz', 'oʻzbek tili'],
  ['vi', 'Tiếng Việt'],
  ['zh_Hans', '简体中文'],
  ['zh_Hant', '繁體中文'],
];

const BY_CODE = new Map(LANGUAGES);

export function isAvailableLanguage(code: string): boolean {
  return BY_CODE.has(code);
}

/** Zulip's `get_language_name`: "Unknown" for a code it does not know (reachable through the bulk edit). */
export function languageName(code: string): string {
  return BY_CODE.get(code) ?? 'Unknown';
}

/** The bundled notification sounds (`static/audio/notification_sounds`); `none` is also accepted. */
const NOTIFICATION_SOUNDS: ReadonlySet<string> = new Set([
  'ascend',
  'beep_boop',
  'bink',
  'bright',
  'brlip',
  'chime',
  'deep tom',
  'ding',
  'double tap',
  'down',
  'dry bongos',
  'dutdut',
  'fast ascend',
  'flute',
  'friendly',
  'kick roll',
  'loud tintong',
  'metallic snare',
  'pan',
  'shaker',
  'simple',
  'stairs',
  'subtle',
  'swish',
  'tintong',
  'up',
  'wood block',
  'zaping',
  'zing',
  'zulip',
]);

export function isNotificationSound(name: string): boolean {
  return name === 'none' || NOTIFICATION_SOUNDS.has(name);
}

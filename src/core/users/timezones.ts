/**
 * The IANA time zone database as Zulip's server sees it (version 2025b, the `tzdata.zi` of a
 * Debian/Ubuntu host, which Zulip reads first): every Zone name, and every Link with its target.
 * Zulip accepts a time zone when its canonical name is a known zone (`zoneinfo.available_timezones()`),
 * and canonicalizes by following Link lines (`zerver/lib/timezone.py`). Generated from tzdata.zi
 * (public domain); names are grouped by area to keep the file small.
 */
const ZONES: Readonly<Record<string, string>> = {
  '': 'CET CST6CDT EET EST EST5EDT Factory HST MET MST MST7MDT PST8PDT WET',
  Africa:
    'Abidjan Accra Addis_Ababa Algiers Asmara Bamako Bangui Banjul Bissau Blantyre Brazzaville Bujumbura Cairo Casablanca Ceuta Conakry Dakar Dar_es_Salaam Djibouti Douala El_Aaiun Freetown Gaborone Harare Johannesburg Juba Kampala Khartoum Kigali Kinshasa Lagos Libreville Lome Luanda Lubumbashi Lusaka Malabo Maputo Maseru Mbabane Mogadishu Monrovia Nairobi Ndjamena Niamey Nouakchott Ouagadougou Porto-Novo Sao_Tome Tripoli Tunis Windhoek',
  America:
    'Adak Anchorage Anguilla Antigua Araguaina Argentina/Buenos_Aires Argentina/Catamarca Argentina/Cordoba Argentina/Jujuy Argentina/La_Rioja Argentina/Mendoza Argentina/Rio_Gallegos Argentina/Salta Argentina/San_Juan Argentina/San_Luis Argentina/Tucuman Argentina/Ushuaia Aruba Asuncion Atikokan Bahia Bahia_Banderas Barbados Belem Belize Blanc-Sablon Boa_Vista Bogota Boise Cambridge_Bay Campo_Grande Cancun Caracas Cayenne Cayman Chicago Chihuahua Ciudad_Juarez Costa_Rica Coyhaique Creston Cuiaba Curacao Danmarkshavn Dawson Dawson_Creek Denver Detroit Dominica Edmonton Eirunepe El_Salvador Fort_Nelson Fortaleza Glace_Bay Goose_Bay Grand_Turk Grenada Guadeloupe Guatemala Guayaquil Guyana Halifax Havana Hermosillo Indiana/Indianapolis Indiana/Knox Indiana/Marengo Indiana/Petersburg Indiana/Tell_City Indiana/Vevay Indiana/Vincennes Indiana/Winamac Inuvik Iqaluit Jamaica Juneau Kentucky/Louisville Kentucky/Monticello La_Paz Lima Los_Angeles Maceio Managua Manaus Martinique Matamoros Mazatlan Menominee Merida Metlakatla Mexico_City Miquelon Moncton Monterrey Montevideo Montserrat Nassau New_York Nome Noronha North_Dakota/Beulah North_Dakota/Center North_Dakota/New_Salem Nuuk Ojinaga Panama Paramaribo Phoenix Port-au-Prince Port_of_Spain Porto_Velho Puerto_Rico Punta_Arenas Rankin_Inlet Recife Regina Resolute Rio_Branco Santarem Santiago Santo_Domingo Sao_Paulo Scoresbysund Sitka St_Johns St_Kitts St_Lucia St_Thomas St_Vincent Swift_Current Tegucigalpa Thule Tijuana Toronto Tortola Vancouver Whitehorse Winnipeg Yakutat',
  Antarctica: 'Casey Davis DumontDUrville Macquarie Mawson McMurdo Palmer Rothera Syowa Troll Vostok',
  Asia: 'Aden Almaty Amman Anadyr Aqtau Aqtobe Ashgabat Atyrau Baghdad Bahrain Baku Bangkok Barnaul Beirut Bishkek Brunei Chita Colombo Damascus Dhaka Dili Dubai Dushanbe Famagusta Gaza Hebron Ho_Chi_Minh Hong_Kong Hovd Irkutsk Jakarta Jayapura Jerusalem Kabul Kamchatka Karachi Kathmandu Khandyga Kolkata Krasnoyarsk Kuala_Lumpur Kuching Kuwait Macau Magadan Makassar Manila Muscat Nicosia Novokuznetsk Novosibirsk Omsk Oral Phnom_Penh Pontianak Pyongyang Qatar Qostanay Qyzylorda Riyadh Sakhalin Samarkand Seoul Shanghai Singapore Srednekolymsk Taipei Tashkent Tbilisi Tehran Thimphu Tokyo Tomsk Ulaanbaatar Urumqi Ust-Nera Vientiane Vladivostok Yakutsk Yangon Yekaterinburg Yerevan',
  Atlantic: 'Azores Bermuda Canary Cape_Verde Faroe Madeira Reykjavik South_Georgia St_Helena Stanley',
  Australia: 'Adelaide Brisbane Broken_Hill Darwin Eucla Hobart Lindeman Lord_Howe Melbourne Perth Sydney',
  Etc: 'GMT GMT+1 GMT+10 GMT+11 GMT+12 GMT+2 GMT+3 GMT+4 GMT+5 GMT+6 GMT+7 GMT+8 GMT+9 GMT-1 GMT-10 GMT-11 GMT-12 GMT-13 GMT-14 GMT-2 GMT-3 GMT-4 GMT-5 GMT-6 GMT-7 GMT-8 GMT-9 UTC',
  Europe:
    'Amsterdam Andorra Astrakhan Athens Belgrade Berlin Brussels Bucharest Budapest Chisinau Copenhagen Dublin Gibraltar Guernsey Helsinki Isle_of_Man Istanbul Jersey Kaliningrad Kirov Kyiv Lisbon Ljubljana London Luxembourg Madrid Malta Minsk Monaco Moscow Oslo Paris Prague Riga Rome Samara Sarajevo Saratov Simferopol Skopje Sofia Stockholm Tallinn Tirane Ulyanovsk Vaduz Vienna Vilnius Volgograd Warsaw Zagreb Zurich',
  Indian: 'Antananarivo Chagos Christmas Cocos Comoro Kerguelen Mahe Maldives Mauritius Mayotte Reunion',
  Pacific:
    'Apia Auckland Bougainville Chatham Chuuk Easter Efate Fakaofo Fiji Funafuti Galapagos Gambier Guadalcanal Guam Honolulu Kanton Kiritimati Kosrae Kwajalein Majuro Marquesas Midway Nauru Niue Norfolk Noumea Pago_Pago Palau Pitcairn Pohnpei Port_Moresby Rarotonga Saipan Tahiti Tarawa Tongatapu Wake Wallis',
};

/** Link name → target zone. */
const LINKS =
  'Africa/Asmera=Africa/Nairobi Africa/Timbuktu=Africa/Abidjan America/Argentina/ComodRivadavia=America/Argentina/Catamarca America/Atka=America/Adak America/Buenos_Aires=America/Argentina/Buenos_Aires America/Catamarca=America/Argentina/Catamarca America/Coral_Harbour=America/Panama America/Cordoba=America/Argentina/Cordoba America/Ensenada=America/Tijuana America/Fort_Wayne=America/Indiana/Indianapolis America/Godthab=America/Nuuk America/Indianapolis=America/Indiana/Indianapolis America/Jujuy=America/Argentina/Jujuy America/Knox_IN=America/Indiana/Knox America/Kralendijk=America/Puerto_Rico America/Louisville=America/Kentucky/Louisville America/Lower_Princes=America/Puerto_Rico America/Marigot=America/Puerto_Rico America/Mendoza=America/Argentina/Mendoza America/Montreal=America/Toronto America/Nipigon=America/Toronto America/Pangnirtung=America/Iqaluit America/Porto_Acre=America/Rio_Branco America/Rainy_River=America/Winnipeg America/Rosario=America/Argentina/Cordoba America/Santa_Isabel=America/Tijuana America/Shiprock=America/Denver America/St_Barthelemy=America/Puerto_Rico America/Thunder_Bay=America/Toronto America/Virgin=America/Puerto_Rico America/Yellowknife=America/Edmonton Antarctica/South_Pole=Pacific/Auckland Arctic/Longyearbyen=Europe/Berlin Asia/Ashkhabad=Asia/Ashgabat Asia/Calcutta=Asia/Kolkata Asia/Choibalsan=Asia/Ulaanbaatar Asia/Chongqing=Asia/Shanghai Asia/Chungking=Asia/Shanghai Asia/Dacca=Asia/Dhaka Asia/Harbin=Asia/Shanghai Asia/Istanbul=Europe/Istanbul Asia/Kashgar=Asia/Urumqi Asia/Katmandu=Asia/Kathmandu Asia/Macao=Asia/Macau Asia/Rangoon=Asia/Yangon Asia/Saigon=Asia/Ho_Chi_Minh Asia/Tel_Aviv=Asia/Jerusalem Asia/Thimbu=Asia/Thimphu Asia/Ujung_Pandang=Asia/Makassar Asia/Ulan_Bator=Asia/Ulaanbaatar Atlantic/Faeroe=Atlantic/Faroe Atlantic/Jan_Mayen=Europe/Berlin Australia/ACT=Australia/Sydney Australia/Canberra=Australia/Sydney Australia/Currie=Australia/Hobart Australia/LHI=Australia/Lord_Howe Australia/NSW=Australia/Sydney Australia/North=Australia/Darwin Australia/Queensland=Australia/Brisbane Australia/South=Australia/Adelaide Australia/Tasmania=Australia/Hobart Australia/Victoria=Australia/Melbourne Australia/West=Australia/Perth Australia/Yancowinna=Australia/Broken_Hill Brazil/Acre=America/Rio_Branco Brazil/DeNoronha=America/Noronha Brazil/East=America/Sao_Paulo Brazil/West=America/Manaus Canada/Atlantic=America/Halifax Canada/Central=America/Winnipeg Canada/Eastern=America/Toronto Canada/Mountain=America/Edmonton Canada/Newfoundland=America/St_Johns Canada/Pacific=America/Vancouver Canada/Saskatchewan=America/Regina Canada/Yukon=America/Whitehorse Chile/Continental=America/Santiago Chile/EasterIsland=Pacific/Easter Cuba=America/Havana Egypt=Africa/Cairo Eire=Europe/Dublin Etc/GMT+0=Etc/GMT Etc/GMT-0=Etc/GMT Etc/GMT0=Etc/GMT Etc/Greenwich=Etc/GMT Etc/UCT=Etc/UTC Etc/Universal=Etc/UTC Etc/Zulu=Etc/UTC Europe/Belfast=Europe/London Europe/Bratislava=Europe/Prague Europe/Busingen=Europe/Zurich Europe/Kiev=Europe/Kyiv Europe/Mariehamn=Europe/Helsinki Europe/Nicosia=Asia/Nicosia Europe/Podgorica=Europe/Belgrade Europe/San_Marino=Europe/Rome Europe/Tiraspol=Europe/Chisinau Europe/Uzhgorod=Europe/Kyiv Europe/Vatican=Europe/Rome Europe/Zaporozhye=Europe/Kyiv GB=Europe/London GB-Eire=Europe/London GMT=Etc/GMT GMT+0=Etc/GMT GMT-0=Etc/GMT GMT0=Etc/GMT Greenwich=Etc/GMT Hongkong=Asia/Hong_Kong Iceland=Africa/Abidjan Iran=Asia/Tehran Israel=Asia/Jerusalem Jamaica=America/Jamaica Japan=Asia/Tokyo Kwajalein=Pacific/Kwajalein Libya=Africa/Tripoli Mexico/BajaNorte=America/Tijuana Mexico/BajaSur=America/Mazatlan Mexico/General=America/Mexico_City NZ=Pacific/Auckland NZ-CHAT=Pacific/Chatham Navajo=America/Denver PRC=Asia/Shanghai Pacific/Enderbury=Pacific/Kanton Pacific/Johnston=Pacific/Honolulu Pacific/Ponape=Pacific/Guadalcanal Pacific/Samoa=Pacific/Pago_Pago Pacific/Truk=Pacific/Port_Moresby Pacific/Yap=Pacific/Port_Moresby Poland=Europe/Warsaw Portugal=Europe/Lisbon ROC=Asia/Taipei ROK=Asia/Seoul Singapore=Asia/Singapore Turkey=Europe/Istanbul UCT=Etc/UTC US/Alaska=America/Anchorage US/Aleutian=America/Adak US/Arizona=America/Phoenix US/Central=America/Chicago US/East-Indiana=America/Indiana/Indianapolis US/Eastern=America/New_York US/Hawaii=Pacific/Honolulu US/Indiana-Starke=America/Indiana/Knox US/Michigan=America/Detroit US/Mountain=America/Denver US/Pacific=America/Los_Angeles US/Samoa=Pacific/Pago_Pago UTC=Etc/UTC Universal=Etc/UTC W-SU=Europe/Moscow Zulu=Etc/UTC';

let zoneSet: Set<string> | undefined;
let linkMap: Map<string, string> | undefined;

function zones(): Set<string> {
  if (zoneSet === undefined) {
    zoneSet = new Set();
    for (const [area, names] of Object.entries(ZONES)) {
      for (const name of names.split(' ')) zoneSet.add(area === '' ? name : `${area}/${name}`);
    }
  }
  return zoneSet;
}

function links(): Map<string, string> {
  if (linkMap === undefined) {
    linkMap = new Map();
    for (const pair of LINKS.split(' ')) {
      const [alias, target] = pair.split('=');
      if (alias !== undefined && target !== undefined) linkMap.set(alias, target);
    }
  }
  return linkMap;
}

/** Zulip's `canonicalize_timezone`: a Link name becomes its target; anything else is returned as is. */
export function canonicalizeTimezone(name: string): string {
  return links().get(name) ?? name;
}

/** Zulip's `check_timezone`: whether the canonical form of `name` is a known time zone. */
export function isKnownTimezone(name: string): boolean {
  const canonical = canonicalizeTimezone(name);
  return zones().has(canonical) || links().has(canonical);
}

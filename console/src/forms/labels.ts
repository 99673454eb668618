// The form's words for what the wire names: field labels, choice labels ("Wildcard" for
// `Wildcard_Matches`), hints that would otherwise name a server setting, and where an API message
// points ("Pair 1 · Destination", never `/pairs/0/destination`). Pure, with no schema imported, so the
// words are tested on their own; the JSON view keeps the wire values.

/** `destinationType` → "Destination type", `URL` → "URL". */
export function labelFor(name: string): string {
  if (name === name.toUpperCase()) return name;
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A label inside a sentence ("Add request payload"); acronyms stay as they are ("Add page URL"). */
export function inSentence(label: string): string {
  return label
    .split(' ')
    .map((word) => (word === word.toUpperCase() ? word : word.toLowerCase()))
    .join(' ');
}

/** Labels that say more than the property's name, by the pointer's shape. */
const FIELD_LABELS: [RegExp, string][] = [
  // A filter's URL is the page's (the request's own URL is the source's key).
  [/\/filters\/\d+\/URL$/, 'Page URL'],
  [/\/filters\/\d+\/requestMethod$/, 'Request method'],
  [/\/filters\/\d+\/requestPayload$/, 'Request body'],
  // A Response or Request pair's value is the body it serves or sends.
  [/^\/pairs\/\d+\/value$/, 'Body'],
  [/\/isCompressed$/, 'Stored compressed (from Requestly)'],
  [/\/delay$/, 'Delay (milliseconds)'],
  // What a user agent was picked for: a browser, a device or one's own.
  [/^\/pairs\/\d+\/envType$/, 'Browser or device kind'],
  [/^\/pairs\/\d+\/env$/, 'Browser or device name'],
];

/** The label of the field at `pointer`, named `name` in its schema. */
export function fieldLabel(name: string, pointer: string): string {
  return FIELD_LABELS.find(([shape]) => shape.test(pointer))?.[1] ?? labelFor(name);
}

/** Hints written for people where the document's description names a setting or Requestly's internals. */
const FIELD_HINTS: [RegExp, string][] = [
  [
    /\/pairs\/\d+\/delay$/,
    'How long to hold each request, in milliseconds (1000 is one second): from 0 up to a maximum set by ' +
      'the server, 60 seconds unless its operator changed it.',
  ],
  [
    /\/isCompressed$/,
    'Whether Requestly had stored this body compressed; kept as it was imported. Leave it unticked for ' +
      'a body you write here.',
  ],
];

/** The hint for the field at `pointer`, or undefined to use the schema's description. */
export function fieldHint(pointer: string): string | undefined {
  return FIELD_HINTS.find(([shape]) => shape.test(pointer))?.[1];
}

/** Choices the wire spells for machines, as the form shows them. */
const VALUE_LABELS: Record<string, string> = {
  Url: 'URL',
  host: 'Host',
  path: 'Path',
  Equals: 'Equals',
  Contains: 'Contains',
  Matches: 'Matches (regular expression)',
  Wildcard_Matches: 'Wildcard',
  url: 'URL',
  map_local: 'Local file (map local)',
  mock_or_file_picker: 'Mock or file',
  code: 'Code',
  static: 'Static',
  restApi: 'REST API',
  graphqlApi: 'GraphQL API',
  unknown: 'Other',
  js: 'JavaScript',
  css: 'CSS',
  beforePageLoad: 'Before the page loads',
  afterPageLoad: 'After the page loads',
  asSoonAsPossible: 'As soon as possible',
  browser: 'Browser',
  device: 'Device',
  custom: 'Custom',
  xmlhttprequest: 'XHR and fetch',
  script: 'Script',
  stylesheet: 'Stylesheet',
  image: 'Image',
  media: 'Media',
  font: 'Font',
  websocket: 'WebSocket',
  main_frame: 'Page (main frame)',
  sub_frame: 'Frame (iframe)',
};

/** The label of a choice; a value with no label is shown as it is (methods, Add, Remove…). */
export function valueLabel(value: string): string {
  return Object.hasOwn(VALUE_LABELS, value) ? (VALUE_LABELS[value] as string) : value;
}

/** How one item of a list is called, by the list's property name. */
export const ITEM_NAMES: Record<string, string> = {
  pairs: 'Pair',
  filters: 'Filter',
  modifications: 'Modification',
  scripts: 'Script',
  attributes: 'Attribute',
  libraries: 'Library',
  Request: 'Request header',
  Response: 'Response header',
  requestMethod: 'Method',
  pageDomains: 'Page domain',
  resourceType: 'Resource type',
  // A test suite's cases, and a change request's operations.
  cases: 'Case',
  operations: 'Operation',
};

/**
 * Where a JSON Pointer into a rule points, as the form labels it and people count:
 * `/pairs/0/source/filters/1/URL/value` → "Pair 1 · Source · Filter 2 · Page URL · Value".
 */
export function pointerWords(pointer: string): string {
  if (pointer === '' || pointer === '/') return 'The rule';
  const parts = pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  const words: string[] = [];
  parts.forEach((part, index) => {
    const parent = parts[index - 1];
    if (/^\d+$/.test(part) && parent !== undefined) {
      const item = ITEM_NAMES[parent] ?? labelFor(parent);
      words.pop();
      words.push(`${item} ${Number(part) + 1}`);
    } else {
      words.push(fieldLabel(part, `/${parts.slice(0, index + 1).join('/')}`));
    }
  });
  return words.join(' · ');
}

/** An API detail as the form says it: "Pair 1 · Destination: must not be empty". */
export function detailWords(detail: { path: string; message: string }): string {
  const where = pointerWords(detail.path);
  // A message that already starts with the place ("case 2 must have…") says it once.
  const last = where.split(' · ').at(-1) ?? '';
  const message = detail.message.toLowerCase().startsWith(`${last.toLowerCase()} `)
    ? detail.message.slice(last.length + 1)
    : detail.message;
  return `${where}: ${message}`;
}

/** The lint's finding codes, as the console names them (the code stays in the JSON the API answers). */
const FINDING_LABELS: Record<string, string> = {
  redirect_loop: 'Redirect loop',
  shadowed: 'Can never act',
  no_op: 'Changes nothing',
  matches_everything: 'Matches every request',
  inactive_in_active: 'Inactive in an active group',
  active_in_inactive_group: 'Active in an inactive group',
  duplicate: 'Duplicate',
  browser_unsupported: 'Not in the browser extension',
  code_needs_allow: 'Needs --allow-code',
  never_acted: 'Never acted',
  undefined_variable: 'Variable missing',
  invalid_in_environment: 'Invalid in this environment',
};

/** A finding's code in words ("Can never act" for `shadowed`); an unknown code as it is. */
export function findingLabel(code: string): string {
  return Object.hasOwn(FINDING_LABELS, code) ? (FINDING_LABELS[code] as string) : code;
}

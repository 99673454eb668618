// The rule in plain words above its form ("When the URL contains `shop.example.com/checkout`, redirect
// to …"), one sentence a pair, written from the draft as it is now, so that what the form says is read
// before it is saved. Values are shown as code, as text: a rule's values are never markup.
import type { RuleDraft } from './rule-draft.js';

type Part = string | { code: string };
type Obj = Record<string, unknown>;

const LONG = 80;
const code = (value: unknown): Part => {
  const text = String(value ?? '');
  if (text === '') return '(nothing yet)';
  return { code: text.length > LONG ? `${text.slice(0, LONG)}…` : text };
};
const obj = (value: unknown): Obj =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Obj) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const KEYS: Record<string, string> = { Url: 'the URL', host: 'the host', path: 'the path' };
const OPERATORS: Record<string, string> = {
  Equals: 'is',
  Contains: 'contains',
  Matches: 'matches the pattern',
  Wildcard_Matches: 'matches the wildcard',
};

/** "the URL contains `x`", or "" for an empty value (it matches every request). */
function comparison(what: string, condition: Obj): Part[] {
  if (String(condition.value ?? '') === '') return [];
  return [
    `${what} ${OPERATORS[String(condition.operator)] ?? String(condition.operator)} `,
    code(condition.value),
  ];
}

/** "a or b or c" with each as code. */
function anyOf(values: unknown[]): Part[] {
  return values.flatMap((value, i) => [...(i ? [i === values.length - 1 ? ' or ' : ', '] : []), code(value)]);
}

function filterParts(filter: Obj): Part[][] {
  const parts: Part[][] = [];
  if (list(filter.requestMethod).length) parts.push(['the method is ', ...anyOf(list(filter.requestMethod))]);
  if (list(filter.resourceType).length)
    parts.push(['it is a ', ...anyOf(list(filter.resourceType)), ' request']);
  const page = comparison("the page's URL", obj(filter.URL));
  if (page.length) parts.push(page);
  if (list(filter.pageDomains).length) parts.push(['the page is on ', ...anyOf(list(filter.pageDomains))]);
  const payload = obj(filter.requestPayload);
  if (payload.key !== undefined) parts.push(["the body's ", code(payload.key), ' is ', code(payload.value)]);
  return parts;
}

function when(source: Obj): Part[] {
  const sentence: Part[] = [];
  const compared = comparison(KEYS[String(source.key)] ?? String(source.key ?? 'the URL'), source);
  sentence.push(...(compared.length ? ['When ', ...compared] : ['For every request']));
  const filters = list(source.filters)
    .map((filter) => filterParts(obj(filter)))
    .filter((f) => f.length);
  for (const [i, conditions] of filters.entries()) {
    sentence.push(i === 0 ? (compared.length ? ' and ' : ' where ') : ', or when ');
    for (const [k, condition] of conditions.entries()) sentence.push(...(k ? [' and '] : []), ...condition);
  }
  return sentence;
}

/** Several changes as one list: "a, b and c". */
function joined(items: Part[][]): Part[] {
  return items.flatMap((item, i) => [...(i ? [i === items.length - 1 ? ' and ' : ', '] : []), ...item]);
}

function headerChanges(pair: Obj): Part[] {
  const items: Part[][] = [];
  for (const set of list(pair.modifications)) {
    for (const side of ['Request', 'Response'] as const) {
      for (const change of list(obj(set)[side]).map(obj)) {
        const where = `${side.toLowerCase()} header `;
        if (change.type === 'Remove') items.push([`remove the ${where}`, code(change.header)]);
        else if (change.type === 'Modify')
          items.push([
            `set the ${where}`,
            code(change.header),
            ' to ',
            code(change.value),
            ' when it is there',
          ]);
        else items.push([`add the ${where}`, code(`${change.header ?? ''}: ${change.value ?? ''}`)]);
      }
    }
  }
  return items.length ? joined(items) : ['change no header yet'];
}

function queryChanges(pair: Obj): Part[] {
  const items = list(pair.modifications)
    .map(obj)
    .map((change): Part[] => {
      if (change.type === 'Remove All') return ['remove every query parameter'];
      if (change.type === 'Remove') return ['remove the parameter ', code(change.param)];
      return [
        'set the parameter ',
        code(`${change.param ?? ''}=${change.value ?? ''}`),
        ...(change.actionWhenParamExists === 'Ignore' ? [' unless it is there'] : []),
      ];
    });
  return items.length ? joined(items) : ['change no parameter yet'];
}

function effect(ruleType: string, pair: Obj): Part[] {
  switch (ruleType) {
    case 'Redirect':
      return pair.destinationType === 'url' || pair.destinationType === undefined
        ? ['redirect to ', code(pair.destination)]
        : ['serve the local file ', code(pair.destination)];
    case 'Cancel':
      return ['cancel the request'];
    case 'Replace':
      return ['replace ', code(pair.from), ' with ', code(pair.to), ' in the URL'];
    case 'Headers':
      return headerChanges(pair);
    case 'UserAgent':
      return ['send the user agent ', code(pair.userAgent)];
    case 'Script': {
      const scripts = list(pair.scripts).map(obj);
      return joined(
        scripts.map((script) => [
          `add ${script.codeType === 'css' ? 'CSS' : 'JavaScript'} `,
          ...(script.type === 'url' ? ['from ', code(script.value)] : ['code']),
          ` to the page ${script.loadTime === 'beforePageLoad' ? 'before' : 'after'} it loads`,
        ]),
      );
    }
    case 'QueryParam':
      return queryChanges(pair);
    case 'Response': {
      const status = pair.statusCode === undefined ? '200' : String(pair.statusCode);
      if (pair.type === 'code')
        return ['answer ', code(status), ' with the body its code computes from the server’s answer'];
      return [
        'answer ',
        code(status),
        ' with ',
        code(pair.value),
        pair.serveWithoutRequest ? ', without contacting the server' : ' instead of the server’s body',
      ];
    }
    case 'Request':
      return pair.type === 'code'
        ? ['send the body its code computes']
        : ['send the body ', code(pair.value)];
    case 'Delay':
      return ['delay the request by ', code(`${pair.delay ?? 0} ms`)];
    default:
      return ['act'];
  }
}

/** One sentence per pair of the draft. */
export function ruleSentences(draft: RuleDraft): Part[][] {
  return draft.pairs
    .map(obj)
    .map((pair) => [...when(obj(pair.source)), ', ', ...effect(draft.ruleType, pair), '.']);
}

function Sentence({ parts }: { parts: Part[] }) {
  return <>{parts.map((part, i) => (typeof part === 'string' ? part : <code key={i}>{part.code}</code>))}</>;
}

export function RuleSummary({ draft }: { draft: RuleDraft }) {
  const sentences = ruleSentences(draft);
  return (
    <section class="rule-summary" aria-label="What this rule does" data-testid="rule-summary">
      {sentences.length === 1 ? (
        <p>
          <Sentence parts={sentences[0] as Part[]} />
        </p>
      ) : (
        <ul>
          {sentences.map((parts, i) => (
            <li key={i}>
              <Sentence parts={parts} />
            </li>
          ))}
        </ul>
      )}
      {draft.status === 'Inactive' ? (
        <p class="hint">It is inactive: nothing happens until it is switched on.</p>
      ) : null}
    </section>
  );
}

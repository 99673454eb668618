// fast-check arbitraries from the JSON Schemas of the served OpenAPI document: values valid by a
// schema, each with the places (sites) where a constraint holds, so that a mutation can break exactly
// one of them. Covers the keywords the document's request schemas use; anything else is refused
// loudly rather than generated wrongly.
import fc from 'fast-check';

export type Schema = Record<string, any> | boolean;
export type Path = (string | number)[];

/** A place in a generated value and the schema that holds there. */
export interface Site {
  path: Path;
  schema: Record<string, any>;
  /** The object holding it requires it (a mutation may drop it). */
  required: boolean;
  /** Members left out of an object because they exclude each other (`not: {required}`), with values. */
  excluded?: Record<string, unknown>;
}

export interface Generated {
  value: unknown;
  sites: Site[];
}

/** A generator of its own for a place, for constraints the schema states only in words. */
export type Override = (path: Path, schema: Record<string, any>) => fc.Arbitrary<Generated> | undefined;

/** Text of free strings: letters, digits and a few signs (no regular-expression syntax to fail). */
const FREE_TEXT = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -_.,'.split(''),
);
const MAX_ITEMS = 3;
const MAX_TEXT = 24;

export class SchemaArbitraries {
  constructor(
    private readonly document: Record<string, any>,
    private readonly override: Override = () => undefined,
  ) {}

  /** The schema a `$ref` names (local references into the document only). */
  resolve(schema: Schema): Schema {
    let at = schema;
    for (let hops = 0; typeof at === 'object' && at.$ref; hops += 1) {
      if (hops > 20) throw new Error(`a $ref loop at ${at.$ref}`);
      const ref = at.$ref as string;
      if (!ref.startsWith('#/')) throw new Error(`not a local reference: ${ref}`);
      at = ref
        .slice(2)
        .split('/')
        .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce((node, token) => node?.[token], this.document as any);
      if (at === undefined) throw new Error(`no schema at ${ref}`);
    }
    return at;
  }

  arbitrary(schema: Schema, path: Path = [], required = true): fc.Arbitrary<Generated> {
    const resolved = this.resolve(schema);
    if (resolved === false) throw new Error(`no value is valid at /${path.join('/')}`);
    if (resolved === true) return leaf(fc.constant(null), path, {}, required);
    const own = this.override(path, resolved);
    if (own) return own;
    const s = resolved;
    const site = (value: unknown, more: Site[] = []): Generated => ({
      value,
      sites: [{ path, schema: s, required }, ...more],
    });
    if (s.oneOf || s.anyOf) {
      const branches = (s.oneOf ?? s.anyOf) as Schema[];
      return fc
        .oneof(...branches.map((branch) => this.arbitrary(branch, path, required)))
        .map((g) => ({ value: g.value, sites: [{ path, schema: s, required }, ...g.sites] }));
    }
    if (s.allOf) return this.allOf(s, path, required);
    if (s.const !== undefined) return fc.constant(site(s.const));
    if (s.enum) return fc.constantFrom(...(s.enum as unknown[])).map((v) => site(v));
    switch (s.type) {
      case 'string':
        return this.string(s).map((v) => site(v));
      case 'integer':
        return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 }).map((v) => site(v));
      case 'number':
        return fc
          .double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true })
          .map((v) => site(v));
      case 'boolean':
        return fc.boolean().map((v) => site(v));
      case 'null':
        return fc.constant(site(null));
      case 'array':
        return this.array(s, path, required);
      case 'object':
        return this.object(s, path, required);
      case undefined:
        if (s.properties) return this.object(s, path, required);
        // No constraint at all (a field that is ignored, whatever its value).
        return fc.jsonValue({ maxDepth: 1 }).map((v) => ({ value: v, sites: [] }));
      default:
        throw new Error(`schema type ${String(s.type)} at /${path.join('/')} is not generated`);
    }
  }

  private string(s: Record<string, any>): fc.Arbitrary<string> {
    const minLength = s.minLength ?? 0;
    const maxLength = Math.min(s.maxLength ?? MAX_TEXT, Math.max(minLength, MAX_TEXT));
    if (s.pattern) {
      const pattern = new RegExp(s.pattern, 'u');
      return fc
        .stringMatching(pattern, { size: 'small' })
        .filter((v) => v.length >= minLength && [...v].length <= (s.maxLength ?? Infinity));
    }
    return fc.string({ unit: FREE_TEXT, minLength, maxLength });
  }

  private array(s: Record<string, any>, path: Path, required: boolean): fc.Arbitrary<Generated> {
    const minItems = s.minItems ?? 0;
    const maxItems = Math.min(s.maxItems ?? MAX_ITEMS, Math.max(minItems, MAX_ITEMS));
    return fc.integer({ min: minItems, max: maxItems }).chain((count) =>
      fc
        .tuple(...Array.from({ length: count }, (_, i) => this.arbitrary(s.items ?? true, [...path, i])))
        .map((items) => ({
          value: items.map((g) => g.value),
          sites: [{ path, schema: s, required }, ...items.flatMap((g) => g.sites)],
        })),
    );
  }

  private object(s: Record<string, any>, path: Path, required: boolean): fc.Arbitrary<Generated> {
    const requiredNames = new Set<string>(s.required ?? []);
    // Members that exclude each other (`not: {required: [...]}`): each generated, then at least one
    // left out, its value kept on the site so that a mutation can put it back (and break the rule).
    const exclusive = new Set<string>(s.not?.required ?? []);
    const entries = Object.entries((s.properties ?? {}) as Record<string, Schema>).filter(
      // `false`: never sent; optional fields of no schema at all (ignored ones): left out.
      ([name, field]) =>
        field !== false && (requiredNames.has(name) || !isUnconstrained(this.resolve(field))),
    );
    const fields = entries.map(([name, field]) => {
      const arb = this.arbitrary(field, [...path, name], requiredNames.has(name));
      return requiredNames.has(name) || exclusive.has(name)
        ? arb.map((g) => [name, g] as const)
        : fc.option(arb, { nil: undefined }).map((g) => [name, g] as const);
    });
    const extra = this.extraEntries(s, path);
    // Which exclusive members stay: bit i set keeps the i-th; never all of them.
    const all = 2 ** exclusive.size - 1;
    // Evenly: fast-check leans to small integers, which would leave the last members out most often.
    const kept = fc.nat(0xffff).map((n) => n % Math.max(all, 1));
    return fc.tuple(fc.tuple(...fields), extra, kept).map(([chosen, more, keep]) => {
      const value: Record<string, unknown> = {};
      const site: Site = { path, schema: s, required };
      const sites: Site[] = [site];
      const order = [...exclusive];
      for (const [name, g] of [...chosen, ...more]) {
        if (!g) continue;
        const position = order.indexOf(name);
        if (position >= 0 && !(keep & (1 << position))) {
          site.excluded = { ...site.excluded, [name]: g.value };
          continue;
        }
        value[name] = g.value;
        sites.push(...g.sites);
      }
      return { value, sites };
    });
  }

  /** Entries of a map (`additionalProperties` or `patternProperties` a schema), a few at most. */
  private extraEntries(s: Record<string, any>, path: Path) {
    const valueSchema =
      typeof s.additionalProperties === 'object'
        ? s.additionalProperties
        : s.patternProperties
          ? Object.values(s.patternProperties)[0]
          : undefined;
    if (!valueSchema) return fc.constant([] as (readonly [string, Generated])[]);
    const name = fc.string({ unit: fc.constantFrom(...'abcdefghij-'.split('')), minLength: 1, maxLength: 8 });
    return fc
      .uniqueArray(name, { maxLength: 2 })
      .chain((names) =>
        fc.tuple(
          ...names.map((key) =>
            this.arbitrary(valueSchema as Schema, [...path, key]).map((g) => [key, g] as const),
          ),
        ),
      );
  }

  /** Every part generated, objects merged: the document's allOf adds fields (or a `const`) to a body. */
  private allOf(s: Record<string, any>, path: Path, required: boolean): fc.Arbitrary<Generated> {
    const { allOf, ...rest } = s;
    const parts = [...(allOf as Schema[]), ...(isUnconstrained(rest) ? [] : [rest])];
    return fc.tuple(...parts.map((part) => this.arbitrary(part, path, required))).map((generated) => ({
      value: Object.assign({}, ...generated.map((g) => g.value)),
      sites: [{ path, schema: s, required }, ...generated.flatMap((g) => g.sites)],
    }));
  }
}

function isUnconstrained(schema: Schema): boolean {
  if (typeof schema === 'boolean') return schema;
  const keys = Object.keys(schema).filter(
    (k) => !['$id', 'description', 'examples', 'example', 'title'].includes(k),
  );
  return keys.length === 0;
}

function leaf(arb: fc.Arbitrary<unknown>, path: Path, schema: Record<string, any>, required: boolean) {
  return arb.map((value) => ({ value, sites: [{ path, schema, required }] }));
}

/** The value at `path` in `root`, and its parent and key (undefined when the path is not there). */
export function locate(root: unknown, path: Path): { parent: any; key: string | number } | undefined {
  if (path.length === 0) return undefined;
  let node: any = root;
  for (const token of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object' || !(token in node)) return undefined;
    node = node[token];
  }
  const key = path.at(-1) as string | number;
  if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
  return { parent: node, key };
}

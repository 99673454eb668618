// The house's floors: every folder of src/ (and every module of src/modules/) stands on a floor, and
// imports only what stands on its own floor or below. Read from the import statements of every source
// file, so a new arrow upwards, a circle of folders or of files, or a folder placed on no floor fails
// here. docs/architecture.md draws the same floors.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../../src');

/**
 * The floors, from the top. A folder may import its own floor and every floor below it; on a floor of
 * several (the entry files, the modules, the leaves) the arrows between them must form no circle.
 * `modules/*` is every folder of src/modules/. A new folder or top-level file goes on a floor here.
 */
const FLOORS: string[][] = [
  ['cli'], // the `rulekeeper` command: serve, keys, test, import, proxy...
  ['server', 'app', 'services'], // the service started, its Fastify app, its services wired once
  ['plugins'], // Fastify plugins: authentication, rate limits, the document, errors
  ['modules/*'], // one folder per resource: routes, schemas, service, store
  ['http'], // what every route shares: replies, responses, body reading, the order of checks
  ['jobs'], // the worker pools and the table of job kinds
  ['db'], // SQLite and PostgreSQL behind Kysely, migrations, change signals
  ['playwright'], // rulekeeper/playwright: the runtime in a test's browser context
  ['proxy'], // rulekeeper proxy: the runtime on live traffic
  ['runtime'], // rulekeeper/runtime: a workspace's rules kept current and evaluated
  ['rule-tests'], // `rulekeeper test` files: read, run, judged
  ['client'], // rulekeeper/client, generated from the OpenAPI document
  ['engine'], // what rules do to a request: pure
  ['config'], // the environment read once (it knows the model's limits)
  ['model'], // what a rule and a group are
  ['validation', 'errors', 'ids'], // leaves every floor may use
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

interface Edge {
  from: string;
  to: string;
}

/** Every relative import of every file (static, re-exports and import()), as paths under src/ without their ending. */
const edges: Edge[] = sourceFiles(SRC).flatMap((file) => {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:import|export)[^'";]*?from\s*'(\.[^']+)'/g),
    ...text.matchAll(/import\(\s*'(\.[^']+)'\s*\)/g),
  ].map((m) => m[1] as string);
  const from = relative(SRC, file).replace(/\.tsx?$/, '');
  return specifiers.map((spec) => ({
    from,
    to: relative(SRC, resolve(dirname(file), spec)).replace(/\.(js|ts)$/, ''),
  }));
});

/** The folder a path belongs to: its top-level folder (or file), or its module for src/modules/. */
function unitOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] === 'modules' && parts.length > 2) return `modules/${parts[1]}`;
  return (parts[0] as string).replace(/\.tsx?$/, '');
}

/** Every folder and top-level file of src/, and every folder of src/modules/. */
const units = readdirSync(SRC, { withFileTypes: true }).flatMap((entry) => {
  if (entry.isDirectory() && entry.name === 'modules')
    return readdirSync(join(SRC, 'modules'), { withFileTypes: true }).map((module) =>
      module.isDirectory() ? `modules/${module.name}` : 'modules',
    );
  if (entry.isDirectory()) return [entry.name];
  return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [unitOf(entry.name)] : [];
});

/** The floor of a unit, counted from the bottom (higher imports lower); undefined when unplaced. */
function floorOf(unit: string): number | undefined {
  const index = FLOORS.findIndex((floor) =>
    floor.some((name) => name === unit || (name === 'modules/*' && unit.startsWith('modules/'))),
  );
  return index === -1 ? undefined : FLOORS.length - index;
}

/** The strongly connected components of more than one node (Tarjan), each a circle of imports. */
function circles(graph: Map<string, Set<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

function graphOf(pairs: [string, string][]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (from === to) continue;
    if (!graph.has(from)) graph.set(from, new Set());
    if (!graph.has(to)) graph.set(to, new Set());
    graph.get(from)?.add(to);
  }
  return graph;
}

/** A circle's imports, file to file, for the failure message. */
const importsWithin = (circle: string[], of: (path: string) => string) =>
  edges
    .filter((e) => of(e.from) !== of(e.to) && circle.includes(of(e.from)) && circle.includes(of(e.to)))
    .map((e) => `${e.from} -> ${e.to}`);

describe('the import graph', () => {
  it('finds the imports it checks', () => {
    expect(edges.some((e) => e.from.startsWith('engine/') && e.to.startsWith('model/'))).toBe(true);
    expect(units).toContain('modules/rules');
  });

  it('has every folder of src/ and of src/modules/ on a floor', () => {
    const unplaced = units
      .filter((unit) => floorOf(unit) === undefined)
      .map((unit) => `src/${unit} is on no floor: place it in FLOORS in test/unit/layers.test.ts`);
    expect(unplaced).toEqual([]);
  });

  it('has no arrow from a floor up to a higher one', () => {
    const upwards = edges
      .filter((e) => {
        const from = floorOf(unitOf(e.from));
        const to = floorOf(unitOf(e.to));
        return from !== undefined && to !== undefined && to > from;
      })
      .map((e) => `${e.from} -> ${e.to} (${unitOf(e.from)} imports ${unitOf(e.to)}, a floor above it)`);
    expect(upwards).toEqual([]);
  });

  it('has no circle of folders (a module may import another only if that one does not import it back)', () => {
    const graph = graphOf(edges.map((e) => [unitOf(e.from), unitOf(e.to)]));
    const found = circles(graph).map((circle) => ({ circle, imports: importsWithin(circle, unitOf) }));
    expect(found).toEqual([]);
  });

  it('has no circle of files', () => {
    const graph = graphOf(edges.map((e) => [e.from, e.to]));
    const found = circles(graph).map((circle) => ({ circle, imports: importsWithin(circle, (p) => p) }));
    expect(found).toEqual([]);
  });

  it('has no service importing another module’s service (mappers and shapes live in the model)', () => {
    const crossing = edges.filter(
      (e) =>
        e.from.startsWith('modules/') &&
        /-service$/.test(e.from) &&
        /-service$/.test(e.to) &&
        e.from.split('/')[1] !== e.to.split('/')[1] &&
        // Services call each other only through the types they are given (import type is erased).
        readFileSync(join(SRC, `${e.from}.ts`), 'utf8').match(
          new RegExp(`^import (?!type )[^;]*'[^']*${e.to.split('/').at(-1)}\\.js'`, 'm'),
        ),
    );
    expect(crossing).toEqual([]);
  });
});

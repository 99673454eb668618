// Checks the documentation's relative links: README.md, CONTRIBUTING.md, SECURITY.md and docs/**/*.md.
// A link fails when its file does not exist, or when its #anchor names no heading of the target (GitHub's
// slugs). External http(s) links are not fetched. Every page under docs/ must also be reachable from
// README.md by following relative links. Exits 1 listing each problem as file:line.
// Usage: node scripts/check-links.mjs
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const show = (file) => relative(root, file).split(sep).join('/');

function markdownUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return markdownUnder(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

const docsPages = markdownUnder(join(root, 'docs')).sort();
const files = [
  ...['README.md', 'CONTRIBUTING.md', 'SECURITY.md'].map((name) => join(root, name)).filter(existsSync),
  ...docsPages,
];

/** The lines of a Markdown file outside fenced code blocks, each with its number, inline code blanked. */
function proseLines(text) {
  const lines = [];
  let fence = null;
  text.split('\n').forEach((line, index) => {
    const marker = line.match(/^\s*(`{3,}|~{3,})/);
    if (marker) {
      if (fence === null) fence = marker[1];
      else if (marker[1][0] === fence[0] && marker[1].length >= fence.length) fence = null;
      return;
    }
    if (fence === null) lines.push({ number: index + 1, text: line.replace(/(`+)[^`]*?\1/g, '') });
  });
  return lines;
}

/** GitHub's anchor of a heading: lowercase, punctuation dropped except - and _, spaces to -. */
function slug(heading) {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const anchorCache = new Map();
function anchorsOf(file) {
  if (!anchorCache.has(file)) {
    const anchors = new Set();
    const seen = new Map();
    const text = readFileSync(file, 'utf8');
    let fence = null;
    for (const line of text.split('\n')) {
      const marker = line.match(/^\s*(`{3,}|~{3,})/);
      if (marker) {
        if (fence === null) fence = marker[1];
        else if (marker[1][0] === fence[0] && marker[1].length >= fence.length) fence = null;
        continue;
      }
      if (fence !== null) continue;
      const heading = line.match(/^#{1,6}\s+(.*?)\s*#*\s*$/);
      if (heading) {
        const base = slug(heading[1]);
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        anchors.add(count === 0 ? base : `${base}-${count}`);
      }
      for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]);
    }
    anchorCache.set(file, anchors);
  }
  return anchorCache.get(file);
}

/** Every link target written in the file's prose: [text](target) and ![alt](target). */
function linksOf(file) {
  const links = [];
  for (const { number, text } of proseLines(readFileSync(file, 'utf8'))) {
    for (const found of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: number, target: found[1] });
    }
  }
  return links;
}

const problems = [];
const linkedPages = new Map();
for (const file of files) {
  const targets = new Set();
  for (const { line, target } of linksOf(file)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http(s), mailto: not fetched
    const hash = target.indexOf('#');
    const pathPart = decodeURIComponent(hash < 0 ? target : target.slice(0, hash));
    const anchor = hash < 0 ? null : decodeURIComponent(target.slice(hash + 1));
    const destination = pathPart === '' ? file : resolve(dirname(file), pathPart);
    const where = `${show(file)}:${line}: ${target}`;
    if (!existsSync(destination)) {
      problems.push(`${where}: no such file (${show(destination)})`);
      continue;
    }
    if (destination.endsWith('.md')) targets.add(destination);
    if (anchor !== null && anchor !== '') {
      if (!destination.endsWith('.md') || statSync(destination).isDirectory()) {
        problems.push(`${where}: an anchor into a file that is not a Markdown page`);
      } else if (!anchorsOf(destination).has(anchor)) {
        problems.push(`${where}: no heading in ${show(destination)} has the anchor #${anchor}`);
      }
    }
  }
  linkedPages.set(file, targets);
}

const readme = join(root, 'README.md');
const reached = new Set([readme]);
const queue = [readme];
while (queue.length > 0) {
  const page = queue.shift();
  const next = linkedPages.get(page) ?? new Set(markdownLinksOutsideTheSet(page));
  for (const target of next) {
    if (!reached.has(target)) {
      reached.add(target);
      queue.push(target);
    }
  }
}
/** Pages outside the checked set (bench/README.md, say) are followed too, without checking their links. */
function markdownLinksOutsideTheSet(page) {
  if (!existsSync(page)) return [];
  return linksOf(page)
    .map(({ target }) => target.split('#')[0])
    .filter((target) => target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => resolve(dirname(page), decodeURIComponent(target)))
    .filter((target) => target.endsWith('.md') && existsSync(target));
}
for (const page of docsPages) {
  if (!reached.has(page)) problems.push(`${show(page)}: not reachable from README.md by relative links`);
}

if (problems.length > 0) {
  console.error(`${problems.length} link problem${problems.length === 1 ? '' : 's'}:`);
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(`links: ${files.length} files checked, every docs/ page reachable from README.md`);

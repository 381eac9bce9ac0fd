#!/usr/bin/env node
// check-docs: the project's own documents link only into the project, and every such link lands.
//
//   node scripts/check-docs.mjs [--root <dir>]
//
// Reads <dir>/README.md and every <dir>/docs/**/*.md (default <dir>: the project). For each link
// outside code (inline `[text](target)`, `![alt](target)`, reference definitions `[id]: target`,
// `<scheme://…>` autolinks, bare http(s) URLs and HTML `href`/`src`), it reports:
//   - a link that leaves the repository: a URL with a scheme (https:, mailto:, …), a
//     protocol-relative `//host`, an absolute path, or a relative path that climbs above <dir>;
//   - a dead link: a relative path to a file or folder that does not exist;
//   - a dead anchor: `#fragment` (alone, or after a path to a .md file) naming no heading of that
//     file, with headings turned into anchors the way GitHub renders them.
// Exit 0 when every link holds, 1 with one `file:line: problem` line per problem otherwise.
// test/unit/docs/check-docs.test.ts runs it on the real documents and on planted bad ones.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The documents checked, relative to the root: README.md and docs/**\/*.md. */
export function documents(root) {
  const found = [];
  if (existsSync(join(root, 'README.md'))) found.push('README.md');
  const walk = (dir) => {
    if (!existsSync(join(root, dir))) return;
    for (const name of readdirSync(join(root, dir)).sort()) {
      const rel = `${dir}/${name}`;
      if (statSync(join(root, rel)).isDirectory()) walk(rel);
      else if (name.endsWith('.md')) found.push(rel);
    }
  };
  walk('docs');
  return found;
}

/**
 * The text of a document with code blanked out (fenced blocks and inline code spans become spaces,
 * newlines kept), so line numbers still match and nothing inside code counts as a link.
 */
export function withoutCode(text) {
  const lines = text.split('\n');
  let fence = null;
  const out = lines.map((line) => {
    const m = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (m && m[1][0] === fence[0] && m[1].length >= fence.length && line.trim() === m[1]) fence = null;
      return '';
    }
    if (m) {
      fence = m[1];
      return '';
    }
    return line;
  });
  // Inline code: a run of N backticks up to the next run of exactly N (CommonMark).
  return out.join('\n').replace(/(`+)([\s\S]*?[^`])\1(?!`)/g, (span) => span.replace(/[^\n]/g, ' '));
}

/** GitHub's anchor for a heading: lower case, formatting and punctuation dropped, spaces to hyphens. */
export function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*_~]/g, (c) => (c === '_' ? '_' : '')); // emphasis and code marks (underscores stay)
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a document offers: its headings' slugs (repeats get -1, -2, …) and explicit `id`/`name` attributes. */
export function anchors(text) {
  const seen = new Map();
  const found = new Set();
  for (const line of withoutCode(text).split('\n')) {
    const h = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      found.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const a of line.matchAll(/\b(?:id|name)\s*=\s*["']([^"']+)["']/g)) found.add(a[1]);
  }
  return found;
}

/** The links of a document, outside code: `{ line, target }`, target as written. */
export function links(text) {
  const found = [];
  const lines = withoutCode(text).split('\n');
  lines.forEach((line, i) => {
    const at = (target) => found.push({ line: i + 1, target });
    // Inline links and images: [text](target "title") — the target up to a space or the closing paren.
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*)?\)/g)) at(m[1]);
    // Reference definitions: [id]: target
    const def = /^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(line);
    if (def) at(def[1]);
    // Autolinks <scheme:…> and bare URLs (GitHub links both).
    const rest = (def ? '' : line).replace(/\]\([^)]*\)/g, ']()');
    for (const m of rest.matchAll(/<([a-z][a-z0-9+.-]*:[^>\s]+)>/gi)) at(m[1]);
    for (const m of rest.replace(/<[^>]*>/g, ' ').matchAll(/(?<![\w/])(?:https?:\/\/|www\.)[^\s)>\]]+/gi)) at(m[0]);
    // HTML attributes.
    for (const m of line.matchAll(/\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)) at(m[1]);
  });
  return found;
}

/** Check every document under root; returns `{ files, links, problems: [{ file, line, message }] }`. */
export function check(root) {
  root = resolve(root);
  const files = documents(root);
  const problems = [];
  const anchorCache = new Map();
  const anchorsOf = (abs) => {
    if (!anchorCache.has(abs)) anchorCache.set(abs, anchors(readFileSync(abs, 'utf8')));
    return anchorCache.get(abs);
  };
  let count = 0;
  for (const file of files) {
    const abs = join(root, file);
    for (const { line, target } of links(readFileSync(abs, 'utf8'))) {
      count++;
      const report = (message) => problems.push({ file, line, message: `${message}: ${target || '(empty)'}` });
      if (target === '') {
        report('empty link');
        continue;
      }
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//') || /^www\./i.test(target)) {
        report('leaves the repository');
        continue;
      }
      if (target.startsWith('/')) {
        report('leaves the repository (an absolute path)');
        continue;
      }
      const hash = target.indexOf('#');
      const path = decodeURIComponent(hash === -1 ? target : target.slice(0, hash)).replace(/\?.*$/, '');
      const fragment = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1));
      const dest = path === '' ? abs : resolve(dirname(abs), path);
      const inside = relative(root, dest);
      if (inside === '..' || inside.startsWith(`..${sep}`)) {
        report('leaves the repository');
        continue;
      }
      if (!existsSync(dest)) {
        report('dead link (no such file)');
        continue;
      }
      if (fragment === undefined) continue;
      if (!dest.endsWith('.md') || statSync(dest).isDirectory()) {
        if (fragment !== '' && !/^L\d+(-L\d+)?$/.test(fragment)) report('anchor into a file that is not markdown');
        continue;
      }
      if (!anchorsOf(dest).has(fragment.toLowerCase())) report(`dead anchor (no heading "#${fragment}" in ${relative(root, dest)})`);
    }
  }
  return { files, links: count, problems };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = at === -1 ? fileURLToPath(new URL('..', import.meta.url)) : args[at + 1];
  if (!root) {
    console.error('usage: node scripts/check-docs.mjs [--root <dir>]');
    process.exit(1);
  }
  const { files, links: n, problems } = check(root);
  for (const p of problems) console.log(`${p.file}:${p.line}: ${p.message}`);
  console.log(`check-docs: ${files.length} documents, ${n} links, ${problems.length} problem${problems.length === 1 ? '' : 's'}`);
  process.exitCode = problems.length === 0 ? 0 : 1;
}

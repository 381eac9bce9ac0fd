#!/usr/bin/env node
// check:architecture — the layering rules, read from the real import graph with the TypeScript
// compiler API (parsed and resolved as tsc resolves them), not from regexes over the text. It is
// the one owner of the layer order: no lint rule or test repeats it.
//
//   node scripts/check-architecture.mjs [--root <dir>]
//
// <dir> (default: the project) holds src/. Exit 0 when every rule holds, 1 with one line per
// violation otherwise. test/fixtures/architecture/<rule>[-<case>]/ are small trees that each break
// one rule; test/architecture.test.ts runs this script on them and on the real tree.
//
// The floors, top first. A file imports only from its own unit (a directory under src/, or a file
// at its root), from floors below its own, or sideways along an edge SIDEWAYS names. Every import
// counts: static, type-only (a type still ties the design) and import() (loaded late, still a
// dependency). A unit on no floor is a violation: a new directory is placed here first.
//
//   entry     bin.ts main.ts build-context.ts   the process edge: bin.ts answers --help and loads
//             keeper.ts                         main.ts, which builds the Context (build-context.ts
//                                               picks the real prompter, home, invocation) and runs
//                                               one command; keeper.ts is the team store's
//                                               connection keeper, a process of its own
//   cli       cli/                              commander: flags → typed options → one use case
//   app       app/                              the use cases; they return outcomes, never print
//   session   session/                          the task-session seam: hides generation, transport
//   adapters  connection/ output/ prompts/      the wire client, the one presenter (and the
//             demo/                             Outcome types it renders), questions for a person;
//                                               demo/ is a program of its own that cli/ starts
//                                               (through its use case, app/demo-server.ts)
//   stores    vault/ servers/                   what is kept on disk: task records, named servers
//   core      tasks/ protocol/ fs/ context.ts   pure lifecycle, the wire format, atomic files and
//                                               process facts, the Context's shapes (no builder)
//   leaves    errors.ts home.ts invocation.ts   small facts everyone may read: the exit-code table,
//             hint.ts version.ts                the home directory, how the user invoked us, the
//             package-root.ts open-url.ts       next steps with commands in them, the version, the
//             bundle-resolve.ts                 browser opener, the bundle's resolver
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

// ---------------------------------------------------------------- the rules' parameters

export const FLOORS = [
  { name: 'entry', units: ['bin.ts', 'main.ts', 'build-context.ts', 'keeper.ts'] },
  { name: 'cli', units: ['cli/'] },
  { name: 'app', units: ['app/'] },
  { name: 'session', units: ['session/'] },
  { name: 'adapters', units: ['connection/', 'output/', 'prompts/', 'demo/'] },
  { name: 'stores', units: ['vault/', 'servers/'] },
  { name: 'core', units: ['tasks/', 'protocol/', 'fs/', 'context.ts'] },
  { name: 'leaves', units: ['errors.ts', 'home.ts', 'invocation.ts', 'hint.ts', 'version.ts', 'package-root.ts', 'open-url.ts', 'bundle-resolve.ts'] },
];

/** The imports allowed between two units of one floor, each with its reason. Anything else on a floor is independent. */
const SIDEWAYS = [
  ['bin.ts', 'main.ts', 'bin.ts answers --help alone, then loads main.ts'],
  ['main.ts', 'build-context.ts', 'main.ts builds the Context once'],
  ['prompts/', 'output/', 'prompts draw server text through the one sanitizer'],
  ['vault/', 'servers/', 'a record names the server it was made on'],
  ['tasks/', 'protocol/', 'the lifecycle reads the wire constants and errors'],
  ['protocol/', 'tasks/', 'the wire codec produces the lifecycle snapshot'],
  ['version.ts', 'package-root.ts', 'the version is read from package.json'],
  ['errors.ts', 'hint.ts', "an error's next step is a hint"],
  ['invocation.ts', 'hint.ts', 'the script path is quoted as a command word is'],
];

/**
 * The session seam: commands and use cases reach the wire and the transports through session/
 * alone (a floor may otherwise skip the floors between). Naming wire errors (app/remote-error.ts)
 * and local typed failures (app/local-error.ts) is the exception, and sign-in (connection/oauth-*),
 * which is about the server's door, not a task.
 */
const SEAM_CLIENTS = ['cli/commands/', 'app/'];
const SEAM_HIDDEN = ['protocol/', 'connection/'];
const SEAM_EXEMPT_FILES = ['app/remote-error.ts', 'app/local-error.ts'];
const SEAM_EXEMPT_TARGETS = /^connection\/oauth-/;

/** Layers that must stay pure: lifecycle logic and the wire format. */
const PURE_DIRS = ['tasks', 'protocol'];
/** What a pure layer may not import: the file system, and every layer that does I/O or talks to a person. */
const PURE_FORBIDDEN_MODULES = /^(node:)?(fs|fs\/promises|process|child_process|net|http|https|readline|tty)$/;
const PURE_FORBIDDEN_PACKAGES = /^(chalk|ora|@inquirer\/|commander|conf$)/;
/** What a pure layer may import from the tree: itself, and errors.ts for the exit-code table. */
const PURE_ALLOWED_TARGETS = ['tasks/', 'protocol/', 'errors.ts'];

/**
 * Where CliError (and its helper usageError) may be used: the user-facing edge. It carries the
 * `next:` hint a person reads, so deciding it belongs to app/ and above. Below, vault/, servers/
 * and connection/ throw typed errors naming what went wrong (vault-errors.ts, server-errors.ts,
 * connection-errors.ts); app/local-error.ts turns them into the kind and the next step.
 */
const CLI_ERROR_ALLOWED = ['bin.ts', 'main.ts', 'context.ts', 'errors.ts', 'cli/', 'app/', 'session/'];
const CLI_ERROR_NAMES = new Set(['CliError', 'usageError']);

/** `--help` must stay light: none of these on the static import path from the entry point. */
const STARTUP_ENTRY = 'bin.ts';
const STARTUP_FORBIDDEN_PACKAGES = /^(@modelcontextprotocol\/|zod(\/|$)|@inquirer\/|ora$|conf$|chalk$)/;

/** Terminal dressing: loaded with await import() only where output goes to a TTY, never statically (--json, pipes and CI never pay for it). */
const TTY_ONLY_PACKAGES = /^(chalk|ora)$/;

/**
 * Where the process global may be used (issue 8: no process.* below cli/ and main.ts): the entry
 * point and main.ts build the Context from it, cli/ wires it; the demo server and the keeper are programs of their own.
 * Everything else takes what it needs from the Context (env, platform, Node version, streams).
 */
const PROCESS_ALLOWED = ['bin.ts', 'main.ts', 'keeper.ts', 'cli/', 'demo/'];
/**
 * The one module below cli/ that reads the process table's facts (pid, start time, liveness of
 * another pid, platform, node binary and version, a monotonic clock) for locks, temporary names and the built-in demo server:
 * facts of the running process, not of the user's environment, which comes from the Context.
 */
const PROCESS_FACTS_MODULE = ['fs/own-process.ts'];

/** Only the entry points and the demo server's own process end the process. */
const PROCESS_EXIT_ALLOWED = ['bin.ts', 'keeper.ts', 'demo/stdio-server.ts'];

// ---------------------------------------------------------------- the graph

const compilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  allowJs: false,
  resolveJsonModule: true,
};

function listTs(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...listTs(p));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

/** True when an import or export declaration is erased at run time (type-only). */
function isTypeOnly(node) {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false; // `import './x.js'` runs the module
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const b = clause.namedBindings;
    if (!b) return false;
    if (ts.isNamespaceImport(b)) return false;
    return b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
  }
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const c = node.exportClause;
    return !!c && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly);
  }
  return false;
}

/**
 * One parsed file: its imports (static, type-only or dynamic), its uses of the `process` global,
 * its process.exit calls and the names it imports.
 */
function scan(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const imports = []; // { spec, kind: 'static' | 'type' | 'dynamic', names: string[], line }
  const processUses = []; // line numbers
  const exitCalls = [];
  const lineOf = (n) => sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1;

  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const names = [];
      if (ts.isImportDeclaration(node) && node.importClause?.namedBindings && ts.isNamedImports(node.importClause.namedBindings)) {
        for (const e of node.importClause.namedBindings.elements) names.push((e.propertyName ?? e.name).text);
      }
      if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause)) {
        for (const e of node.exportClause.elements) names.push((e.propertyName ?? e.name).text);
      }
      imports.push({ spec: node.moduleSpecifier.text, kind: isTypeOnly(node) ? 'type' : 'static', names, line: lineOf(node) });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      imports.push({ spec: node.moduleReference.expression.text, kind: node.isTypeOnly ? 'type' : 'static', names: [], line: lineOf(node) });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      imports.push({ spec: arg && ts.isStringLiteralLike(arg) ? arg.text : '<computed>', kind: 'dynamic', names: [], line: lineOf(node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      imports.push({ spec: node.argument.literal.text, kind: 'type', names: [], line: lineOf(node) });
    }

    if (ts.isIdentifier(node) && node.text === 'process' && refersToGlobal(node)) processUses.push(lineOf(node));
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'process' && isGlobalObject(node.expression)) processUses.push(lineOf(node));
    if (ts.isElementAccessExpression(node) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === 'process' && isGlobalObject(node.expression)) processUses.push(lineOf(node));

    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'exit') {
      const target = node.expression.expression;
      if ((ts.isIdentifier(target) && target.text === 'process') || (ts.isPropertyAccessExpression(target) && target.name.text === 'process')) exitCalls.push(lineOf(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { imports, processUses, exitCalls };
}

const isGlobalObject = (e) => ts.isIdentifier(e) && (e.text === 'globalThis' || e.text === 'global');

/** An identifier `process` used as a value (not a property name, a key or a declaration of its own). */
function refersToGlobal(id) {
  const p = id.parent;
  if (!p) return false;
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false;
  if ((ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p) || ts.isPropertySignature(p) || ts.isMethodDeclaration(p) || ts.isMethodSignature(p)) && p.name === id) return false;
  if (ts.isImportSpecifier(p) || ts.isExportSpecifier(p) || ts.isImportClause(p) || ts.isNamespaceImport(p)) return false;
  if (ts.isQualifiedName(p) && p.right === id) return false;
  if (ts.isLabeledStatement(p) || ts.isBreakOrContinueStatement(p)) return false;
  // `typeof process` in a type position still names the global; a local binding named `process`
  // in a pure layer is as confusing as the global, so both are reported.
  return true;
}

export function buildGraph(root) {
  const srcDir = resolve(root, 'src');
  const files = listTs(srcDir);
  const host = ts.sys;
  const nodes = new Map(); // rel -> { rel, imports: [{ spec, kind, names, line, target: rel | null, external: string | null }], processUses, exitCalls }
  const relOf = (abs) => relative(srcDir, abs).split(sep).join('/');
  for (const abs of files) {
    const text = host.readFile(abs) ?? '';
    const { imports, processUses, exitCalls } = scan(abs, text);
    const resolved = imports.map((imp) => {
      if (imp.spec === '<computed>') return { ...imp, target: null, external: null };
      const isRelative = imp.spec.startsWith('.') || imp.spec.startsWith('/');
      if (!isRelative) return { ...imp, target: null, external: imp.spec };
      const r = ts.resolveModuleName(imp.spec, abs, compilerOptions, host).resolvedModule;
      const inTree = r && !r.isExternalLibraryImport && resolve(r.resolvedFileName).startsWith(srcDir + sep);
      return { ...imp, target: inTree ? relOf(r.resolvedFileName) : null, external: null, unresolved: !r };
    });
    nodes.set(relOf(abs), { rel: relOf(abs), imports: resolved, processUses, exitCalls });
  }
  return nodes;
}

// ---------------------------------------------------------------- the rules

const dirOf = (rel) => (rel.includes('/') ? rel.slice(0, rel.indexOf('/')) : '');
const under = (rel, prefixes) => prefixes.some((p) => (p.endsWith('/') ? rel.startsWith(p) : rel === p));

const unitOf = (rel) => (rel.includes('/') ? rel.slice(0, rel.indexOf('/') + 1) : rel);
const floorIndex = new Map(FLOORS.flatMap((f, i) => f.units.map((u) => [u, i])));
const sidewaysAllowed = new Set(SIDEWAYS.map(([from, to]) => `${from} ${to}`));

function ruleFloors(graph) {
  const out = [];
  const unplaced = new Set();
  for (const n of graph.values()) {
    const from = unitOf(n.rel);
    if (!floorIndex.has(from)) {
      if (!unplaced.has(from)) out.push(`${from} is on no floor (place it in FLOORS in scripts/check-architecture.mjs)`);
      unplaced.add(from);
      continue;
    }
    for (const imp of n.imports) {
      if (!imp.target) continue;
      const to = unitOf(imp.target);
      if (to === from || !floorIndex.has(to)) continue; // its own unit; an unplaced one is reported once, above
      const [a, b] = [floorIndex.get(from), floorIndex.get(to)];
      const how = imp.kind === 'static' ? 'imports' : imp.kind === 'type' ? 'imports (type-only)' : 'loads (import())';
      if (b < a) out.push(`${n.rel}:${imp.line} ${how} ${imp.target}: ${FLOORS[a].name} (${from}) is below ${FLOORS[b].name} (${to})`);
      else if (b === a && !sidewaysAllowed.has(`${from} ${to}`)) out.push(`${n.rel}:${imp.line} ${how} ${imp.target}: ${from} and ${to} share the ${FLOORS[a].name} floor and stay independent (SIDEWAYS lists the exceptions)`);
    }
  }
  return out;
}

function ruleSeam(graph) {
  const out = [];
  for (const n of graph.values()) {
    if (!under(n.rel, SEAM_CLIENTS) || SEAM_EXEMPT_FILES.includes(n.rel)) continue;
    for (const imp of n.imports) {
      if (imp.target && under(imp.target, SEAM_HIDDEN) && !SEAM_EXEMPT_TARGETS.test(imp.target)) out.push(`${n.rel}:${imp.line} imports ${imp.target} around the session seam (go through session/)`);
    }
  }
  return out;
}

function rulePurity(graph) {
  const out = [];
  for (const n of graph.values()) {
    if (!PURE_DIRS.includes(dirOf(n.rel))) continue;
    for (const imp of n.imports) {
      if (imp.external && PURE_FORBIDDEN_MODULES.test(imp.external)) out.push(`${n.rel}:${imp.line} imports ${imp.external} (tasks/ and protocol/ do no I/O)`);
      else if (imp.external && PURE_FORBIDDEN_PACKAGES.test(imp.external)) out.push(`${n.rel}:${imp.line} imports ${imp.external} (a terminal/CLI library in a pure layer)`);
      else if (imp.target && !under(imp.target, PURE_ALLOWED_TARGETS)) out.push(`${n.rel}:${imp.line} imports ${imp.target} (tasks/ and protocol/ import only each other and errors.ts)`);
      else if (imp.spec === '<computed>') out.push(`${n.rel}:${imp.line} has a computed import() (cannot be checked)`);
    }
    for (const line of n.processUses) out.push(`${n.rel}:${line} uses the process global (pass what it needs in: env, clock, streams)`);
  }
  return out;
}

/**
 * Tarjan's strongly connected components over the static edges, type-only ones included: a type
 * cycle is erased at run time but still ties the files' design together. import() edges are left
 * out: a late load is how a cycle-free start-up path reaches a module that comes back (the floors
 * rule still orders them).
 */
function ruleCycles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const sccs = [];
  let i = 0;
  const edges = (rel) => [...new Set(graph.get(rel).imports.filter((e) => e.kind !== 'dynamic' && e.target && graph.has(e.target)).map((e) => e.target))];
  const strong = (v) => {
    index.set(v, i);
    low.set(v, i);
    i++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges(v)) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || edges(v).includes(v)) sccs.push(scc);
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strong(v);
  return sccs.map((scc) => `import cycle: ${cyclePath(scc, edges).join(' -> ')}`);
}

/** One concrete loop through a strongly connected component, for a readable message. */
function cyclePath(scc, edges) {
  const members = new Set(scc);
  const start = [...scc].sort()[0];
  const prev = new Map([[start, null]]);
  const queue = [start];
  while (queue.length) {
    const v = queue.shift();
    for (const w of edges(v)) {
      if (w === start) {
        const path = [];
        for (let x = v; x !== null; x = prev.get(x)) path.unshift(x);
        return [...path, start];
      }
      if (members.has(w) && !prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return [...scc, scc[0]];
}

function ruleCliError(graph) {
  const out = [];
  for (const n of graph.values()) {
    if (under(n.rel, CLI_ERROR_ALLOWED)) continue;
    for (const imp of n.imports) {
      // Holding one decided above (a type) is not deciding it.
      if (imp.target !== 'errors.ts' || imp.kind === 'type') continue;
      const used = imp.names.filter((x) => CLI_ERROR_NAMES.has(x));
      if (used.length) out.push(`${n.rel}:${imp.line} uses ${used.join(', ')} from errors.ts (below app/: throw a typed error and let app/ name the next step)`);
    }
  }
  return out;
}

function ruleStartup(graph) {
  if (!graph.has(STARTUP_ENTRY)) return [`${STARTUP_ENTRY} not found`];
  const out = [];
  const via = new Map([[STARTUP_ENTRY, null]]);
  const queue = [STARTUP_ENTRY];
  const chain = (rel) => {
    const path = [];
    for (let x = rel; x !== null; x = via.get(x)) path.unshift(x);
    return path.join(' -> ');
  };
  while (queue.length) {
    const v = queue.shift();
    for (const imp of graph.get(v).imports) {
      if (imp.kind !== 'static') continue; // type-only imports are erased; import() loads on demand
      if (imp.external && STARTUP_FORBIDDEN_PACKAGES.test(imp.external)) out.push(`--help loads ${imp.external}: ${chain(v)} (${v}:${imp.line}); import it with await import() where it is used`);
      if (imp.target && graph.has(imp.target) && !via.has(imp.target)) {
        via.set(imp.target, v);
        queue.push(imp.target);
      }
    }
  }
  return out;
}

function ruleTtyOnly(graph) {
  const out = [];
  for (const [rel, node] of graph)
    for (const imp of node.imports)
      if (imp.kind === 'static' && imp.external && TTY_ONLY_PACKAGES.test(imp.external)) out.push(`${rel}:${imp.line} imports ${imp.external} statically; load it with await import() on the TTY path only`);
  return out;
}

function ruleProcessExit(graph) {
  const out = [];
  for (const n of graph.values()) {
    if (PROCESS_EXIT_ALLOWED.includes(n.rel)) continue;
    for (const line of n.exitCalls) out.push(`${n.rel}:${line} calls process.exit (only ${PROCESS_EXIT_ALLOWED.join(' and ')} end the process; set an exit code instead)`);
  }
  return out;
}

function ruleProcessGlobal(graph) {
  const out = [];
  for (const n of graph.values()) {
    // tasks/ and protocol/ have their own, stricter rule (purity); process.exit has its own too.
    if (PURE_DIRS.includes(dirOf(n.rel)) || under(n.rel, PROCESS_ALLOWED) || under(n.rel, PROCESS_FACTS_MODULE)) continue;
    for (const line of n.processUses) if (!n.exitCalls.includes(line)) out.push(`${n.rel}:${line} uses the process global (below cli/ and main.ts: take it from the Context)`);
  }
  return out;
}

function ruleResolvable(graph) {
  const out = [];
  for (const n of graph.values()) for (const imp of n.imports) if (imp.unresolved) out.push(`${n.rel}:${imp.line} imports ${imp.spec}, which does not resolve`);
  return out;
}

export const RULES = {
  floors: ruleFloors,
  seam: ruleSeam,
  purity: rulePurity,
  cycles: ruleCycles,
  'cli-error': ruleCliError,
  startup: ruleStartup,
  'tty-only': ruleTtyOnly,
  'process-exit': ruleProcessExit,
  'process-global': ruleProcessGlobal,
  resolvable: ruleResolvable,
};

export function check(root) {
  const graph = buildGraph(root);
  const violations = [];
  for (const [name, rule] of Object.entries(RULES)) for (const v of rule(graph)) violations.push({ rule: name, message: v });
  return { files: graph.size, edges: [...graph.values()].reduce((s, n) => s + n.imports.length, 0), violations };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--root');
  const root = resolve(at >= 0 && args[at + 1] ? args[at + 1] : join(fileURLToPath(import.meta.url), '../..'));
  const { files, edges, violations } = check(root);
  for (const v of violations) console.log(`${v.rule}: ${v.message}`);
  console.log(`check:architecture: ${files} files, ${edges} imports, ${violations.length} violation(s)`);
  process.exitCode = violations.length ? 1 : 0;
}

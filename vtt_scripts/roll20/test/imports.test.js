'use strict';
// No require() cycles among the Roll20 sources (src/ and relay/): every require('./…')
// call counts, at the top of a module or inside a function, so a lazy require cannot
// hide a cycle; the shared piece moves down a layer instead. (build.js bundles the same
// calls: the pattern is the one its collect() follows.)
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const REQUIRE = /require\(\s*'(\.{1,2}\/[^']+)'\s*\)/g;

/** Module (path from ROOT) → the local modules it requires, for every .js under `dirs`. */
function requireGraph(root, dirs) {
  const graph = new Map();
  const visit = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) visit(rel);
      else if (rel.endsWith('.js')) {
        const source = fs.readFileSync(path.join(root, rel), 'utf8');
        const edges = new Set();
        for (const m of source.matchAll(REQUIRE)) {
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]));
          edges.add(target.endsWith('.js') ? target : `${target}.js`);
        }
        edges.delete(rel);
        graph.set(rel, edges);
      }
    }
  };
  dirs.forEach(visit);
  return graph;
}

/** Strongly connected components of more than one module (Tarjan), each sorted. */
function cycles(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const strong = (v) => {
    index.set(v, index.size);
    low.set(v, index.get(v));
    stack.push(v);
    onStack.add(v);
    for (const w of [...(graph.get(v) || [])].sort()) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v), index.get(w)));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strong(v);
  return found;
}

test('the Roll20 sources have no require() cycle', () => {
  const graph = requireGraph(ROOT, ['src', 'relay']);
  assert.ok(graph.size > 30 && graph.get('src/rulesets.js').has('src/registry.js'), 'the scan read the sources');
  const found = cycles(graph);
  assert.deepEqual(found, [], `require() cycles: ${found.map((c) => c.join(' ↔ ')).join('; ')}`);
});

test('the scan finds a cycle hidden in a function', (t) => {
  const dir = fs.mkdtempSync(path.join(require('node:os').tmpdir(), 'fracas-cycles-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'src', 'mod'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'src', 'a.js'), "const b = require('./mod/b');\n");
  fs.writeFileSync(path.join(dir, 'src', 'mod', 'b.js'), "function later() { return require( '../a' ); }\n");
  fs.writeFileSync(path.join(dir, 'src', 'c.js'), "require('./a.js');\n");
  const graph = requireGraph(dir, ['src']);
  assert.deepEqual([...graph.get('src/mod/b.js')], ['src/a.js']);
  assert.deepEqual(cycles(graph), [['src/a.js', 'src/mod/b.js']]);
});

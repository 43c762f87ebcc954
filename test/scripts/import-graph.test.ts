import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { makeTempRoot, repoRoot } from '../helpers/temp-root.js';

interface Edge {
  from: string;
  to: string;
}
interface Graph {
  files: string[];
  edges: Edge[];
}
/** The surface of scripts/import-graph.mjs this test uses. */
interface ImportGraphScript {
  readImportGraph(srcDir?: string): Graph;
  findCycles(graph: Graph): string[][];
  builderImports(graph: Graph): Edge[];
  withGeneratedSection(doc: string, graph: Graph): string;
}

const script = (await import(pathToFileURL(path.join(repoRoot, 'scripts', 'import-graph.mjs')).href)) as ImportGraphScript;

describe('import graph of src/', () => {
  const graph = script.readImportGraph();

  it('has no import cycle', () => {
    assert.ok(graph.edges.length > 100, 'the script found the imports');
    assert.deepEqual(script.findCycles(graph), []);
  });

  it('has no import from answer/, evaluate/ or retrieve/ into indexing/build-indexes.ts', () => {
    assert.deepEqual(script.builderImports(graph), []);
  });

  it('docs/architecture.md lists the cross-folder imports as they are (run `node scripts/import-graph.mjs --write`)', () => {
    const doc = readFileSync(path.join(repoRoot, 'docs', 'architecture.md'), 'utf8');
    assert.equal(script.withGeneratedSection(doc, graph), doc);
  });

  it('detects a cycle and a reader importing the index builder', () => {
    const tmp = makeTempRoot();
    try {
      const src = path.join(tmp.root, 'src');
      for (const dir of ['indexing', 'retrieve']) mkdirSync(path.join(src, dir), { recursive: true });
      writeFileSync(path.join(src, 'indexing', 'build-indexes.ts'), "import { a } from './a.js';\nexport const b = a;\n");
      writeFileSync(path.join(src, 'indexing', 'a.ts'), "import type { b } from './build-indexes.js';\nexport const a = 1 as typeof b;\n");
      writeFileSync(
        path.join(src, 'retrieve', 'r.ts'),
        "export async function r() {\n  return (await import('../indexing/build-indexes.js')).b;\n}\n",
      );
      const small = script.readImportGraph(src);
      assert.deepEqual(script.findCycles(small), [['indexing/a.ts', 'indexing/build-indexes.ts', 'indexing/a.ts']]);
      assert.deepEqual(
        script.builderImports(small).map((e) => e.from),
        ['retrieve/r.ts'],
      );
    } finally {
      tmp.cleanup();
    }
  });
});

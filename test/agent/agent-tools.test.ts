import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runTool, type ToolPassage } from '../../src/agent/agent-tools.js';
import { openRetriever, type OpenedRetriever } from '../../src/retrieve/open-retriever.js';
import type { Chunk } from '../../src/types.js';
import { buildFixtureIndex, type FixtureIndex } from '../retrieve/fixture-index.js';

function printed(label: string): number | null {
  return /^\d+$/.test(label.trim()) ? Number(label.trim()) : null;
}

describe("the agent's read tool reads by key and range, not the whole chunk table", () => {
  let fx: FixtureIndex;
  let retriever: OpenedRetriever;
  before(async () => {
    fx = await buildFixtureIndex();
    retriever = await openRetriever({ root: fx.root, config: fx.config });
  });
  after(() => {
    retriever.close();
    fx.cleanup();
  });

  const read = async (args: Record<string, unknown>): Promise<string[]> => {
    // Only what the tool may use: no `chunks`, so reading the whole table would fail here.
    const tools = {
      search: retriever.search.bind(retriever),
      chunk: retriever.chunk.bind(retriever),
      chunksBySeq: retriever.chunksBySeq.bind(retriever),
      chunksOnPages: retriever.chunksOnPages.bind(retriever),
    };
    const out = await runTool('read', args, { retriever: tools, outline: [], maxCharsPerCall: 100_000 });
    assert.equal(out.error, undefined, out.content);
    return (JSON.parse(out.content) as { passages: ToolPassage[] }).passages.map((p) => p.chunk_id);
  };

  it('returns what a scan of every chunk finds, for chunk ids with neighbours and for printed pages', async () => {
    const all: readonly Chunk[] = fx.chunks;
    const center = all[3]!;
    const around = all.filter(
      (c) =>
        c.source === center.source && c.chapter === center.chapter && c.section === center.section && Math.abs(c.seq - center.seq) <= 1,
    );
    assert.deepEqual(
      await read({ chunk_ids: [center.chunk_id], before: 1, after: 1 }),
      around.map((c) => c.chunk_id),
    );
    const onPages = (book: string | null, from: number, to: number): string[] =>
      all
        .filter((c) => {
          const start = printed(c.page_start);
          if (start === null || (book !== null && c.book !== book)) return false;
          return start <= to && (printed(c.page_end) ?? start) >= from;
        })
        .map((c) => c.chunk_id);
    const expected = onPages('上册', 3, 5);
    assert.ok(expected.length > 1, 'the fixture has passages on those pages');
    assert.deepEqual(await read({ book: '上册', pages: '3-5' }), expected);
    assert.deepEqual(await read({ pages: '3-4' }), onPages(null, 3, 4));
  });
});

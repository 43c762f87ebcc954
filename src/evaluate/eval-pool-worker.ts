import { parentPort, workerData } from 'node:worker_threads';
import { answerQuestion } from '../answer/answer-question.js';
import { questionFromParts } from '../answer/parse-question.js';
import { loadPrompts } from '../answer/prompt-templates.js';
import { analyzerFromConfig } from '../indexing/build-indexes.js';
import { projectPaths } from '../paths.js';
import { openRetriever } from '../retrieve/open-retriever.js';
import type { Analyzer } from '../text/analyzer.js';
import type { Chunk } from '../types.js';
import { memoizeAnalyzer, type EvalWorkerData, type EvalWorkerReply, type EvalWorkerRequest, type SerializedError } from './eval-pool.js';

/**
 * One thread of the eval pool (`eval-pool.ts`): opens its own retriever and answers rows with the offline
 * answerer, exactly as the in-process engine does, and replies with the result plus the chunks its evidence cites.
 */

function serialize(error: unknown): SerializedError {
  if (error instanceof Error) {
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    return { name: error.name, message: error.message, ...(typeof exitCode === 'number' ? { exitCode: exitCode as SerializedError['exitCode'] } : {}) };
  }
  return { name: 'Error', message: String(error) };
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('eval-pool-worker runs only as a worker thread');
  const data = workerData as EvalWorkerData;
  const post = (reply: EvalWorkerReply): void => port.postMessage(reply);
  let retriever: Awaited<ReturnType<typeof openRetriever>>;
  let analyzer: Analyzer;
  let prompts: ReturnType<typeof loadPrompts>;
  try {
    retriever = await openRetriever({ root: data.root, config: data.config });
    analyzer = memoizeAnalyzer(analyzerFromConfig(data.root, data.config).analyzer);
    prompts = loadPrompts(projectPaths(data.root).prompts);
  } catch (error) {
    post({ type: 'open-failed', error: serialize(error) });
    return;
  }
  port.on('message', (request: EvalWorkerRequest) => {
    if (request.type === 'close') {
      retriever.close();
      port.close();
      return;
    }
    const question = questionFromParts(request.row.question, Object.fromEntries(request.row.options.map((o) => [o.letter, o.text])));
    answerQuestion(question, { retriever, llm: null, answerer: 'offline', mode: request.mode, topK: data.topK, rerank: false, prompts, analyzer })
      .then((result) => {
        const cited = new Map<string, Chunk>();
        for (const e of result.evidence) {
          const c = retriever.chunk(e.chunk_id);
          if (c) cited.set(c.chunk_id, c);
        }
        post({ type: 'answer', id: request.id, result, chunks: [...cited.values()] });
      })
      .catch((error: unknown) => post({ type: 'failed', id: request.id, error: serialize(error) }));
  });
  post({ type: 'ready', embedderId: retriever.embedderId });
}

void main();

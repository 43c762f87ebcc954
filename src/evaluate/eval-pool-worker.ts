import { parentPort, workerData } from 'node:worker_threads';
import { createAnswerer, type Answerer } from '../answer/create-answerer.js';
import { questionFromParts } from '../answer/parse-question.js';
import type { Chunk } from '../types.js';
import { EVAL_SEARCH_CACHE_ENTRIES } from './eval-engine.js';
import type { EvalWorkerData, EvalWorkerReply, EvalWorkerRequest, SerializedError } from './eval-pool.js';

/**
 * One thread of the eval pool (`eval-pool.ts`): opens its own retriever and answers rows with the offline
 * answerer, exactly as the in-process engine does, and replies with the result plus the chunks its evidence cites.
 */

function serialize(error: unknown): SerializedError {
  if (error instanceof Error) {
    const exitCode = (error as { exitCode?: unknown }).exitCode;
    return {
      name: error.name,
      message: error.message,
      ...(typeof exitCode === 'number' ? { exitCode: exitCode as SerializedError['exitCode'] } : {}),
    };
  }
  return { name: 'Error', message: String(error) };
}

async function main(): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error('eval-pool-worker runs only as a worker thread');
  const data = workerData as EvalWorkerData;
  const post = (reply: EvalWorkerReply): void => port.postMessage(reply);
  let answerer: Answerer;
  try {
    // The same factory as ask and the in-process engine; a token cache because each row is tokenised in every mode.
    answerer = await createAnswerer({
      root: data.root,
      // faiss-node is not safe in worker threads: its native binding keeps one V8 reference across isolates, and a
      // second worker that loads it aborts the process. The exact JS index reads the same flat FAISS file and
      // returns the same ids and scores (test/indexing/faiss-equals-flat), so answers are unchanged.
      // The pool already answers on every core: no second thread per worker for the hybrid's keyword query.
      config: {
        ...data.config,
        vector: { ...data.config.vector, backend: 'js' },
        retrieval: { ...data.config.retrieval, parallelAbove: Number.MAX_SAFE_INTEGER },
      },
      answerer: 'offline',
      retrieval: true,
      topK: data.topK,
      rerank: false,
      cache: false,
      reopenOnRebuild: false,
      tokenCacheEntries: 200_000,
      searchCacheEntries: EVAL_SEARCH_CACHE_ENTRIES,
    });
  } catch (error) {
    post({ type: 'open-failed', error: serialize(error) });
    return;
  }
  port.on('message', (request: EvalWorkerRequest) => {
    if (request.type === 'close') {
      answerer.close();
      port.close();
      return;
    }
    // Everything a row does runs inside one promise: a synchronous throw (questionFromParts rejects a bad option key)
    // would otherwise be uncaught and end the thread with every row it holds. It is this row's failure only.
    const reply = async (): Promise<EvalWorkerReply> => {
      const question = questionFromParts(request.row.question, Object.fromEntries(request.row.options.map((o) => [o.letter, o.text])));
      const result = await answerer.answer(question, request.mode);
      const cited = new Map<string, Chunk>();
      for (const e of result.evidence) {
        const c = answerer.chunk(e.chunk_id);
        if (c) cited.set(c.chunk_id, c);
      }
      return { type: 'answer', id: request.id, result, chunks: [...cited.values()] };
    };
    reply()
      .then(post)
      .catch((error: unknown) => post({ type: 'failed', id: request.id, error: serialize(error) }));
  });
  post({ type: 'ready', embedderId: answerer.embedderId });
}

void main();

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import onnxProto from 'onnx-proto';
import { createTransformersEmbedder } from '../../src/indexing/embedders/transformers-embedder.js';
import { NotReadyError } from '../../src/errors.js';

// onnx-proto is CommonJS; its `onnx` namespace is a property of the default export.
const { onnx } = onnxProto;

const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '基', '金', '托', '管', '人', '债', '券', '久', '期'];
const DIM = 4;

/** Row i of the embedding table: deterministic, distinct, not normalised. */
function row(i: number): number[] {
  return Array.from({ length: DIM }, (_, d) => Math.sin(i * 1.7 + d * 0.9) + (d === i % DIM ? 1 : 0));
}

/** A BERT-shaped model whose whole graph is one Gather over the embedding table. */
function writeTinyModel(dir: string): void {
  mkdirSync(path.join(dir, 'onnx'), { recursive: true });
  const int64Input = (name: string) =>
    onnx.ValueInfoProto.create({
      name,
      type: { tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'seq' }] } } },
    });
  const graph = onnx.GraphProto.create({
    name: 'tiny-bert',
    node: [
      onnx.NodeProto.create({
        opType: 'Gather',
        input: ['embeddings', 'input_ids'],
        output: ['last_hidden_state'],
        attribute: [onnx.AttributeProto.create({ name: 'axis', i: 0, type: onnx.AttributeProto.AttributeType.INT })],
      }),
    ],
    initializer: [
      onnx.TensorProto.create({
        name: 'embeddings',
        dims: [VOCAB.length, DIM],
        dataType: onnx.TensorProto.DataType.FLOAT,
        floatData: VOCAB.flatMap((_, i) => row(i)),
      }),
    ],
    input: [int64Input('input_ids'), int64Input('attention_mask'), int64Input('token_type_ids')],
    output: [
      onnx.ValueInfoProto.create({
        name: 'last_hidden_state',
        type: {
          tensorType: {
            elemType: onnx.TensorProto.DataType.FLOAT,
            shape: { dim: [{ dimParam: 'batch' }, { dimParam: 'seq' }, { dimValue: DIM }] },
          },
        },
      }),
    ],
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'exam-copilot-test',
    graph,
  });
  writeFileSync(path.join(dir, 'onnx', 'model.onnx'), onnx.ModelProto.encode(model).finish());
  const special = (content: string, id: number) => ({
    id,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  writeFileSync(
    path.join(dir, 'tokenizer.json'),
    JSON.stringify({
      version: '1.0',
      truncation: null,
      padding: null,
      added_tokens: VOCAB.slice(0, 4).map((t, i) => special(t, i)),
      normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
      pre_tokenizer: { type: 'BertPreTokenizer' },
      post_processor: {
        type: 'TemplateProcessing',
        single: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
        ],
        pair: [
          { SpecialToken: { id: '[CLS]', type_id: 0 } },
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '[SEP]', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
          { SpecialToken: { id: '[SEP]', type_id: 1 } },
        ],
        special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
      },
      decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
      model: {
        type: 'WordPiece',
        unk_token: '[UNK]',
        continuing_subword_prefix: '##',
        max_input_chars_per_word: 100,
        vocab: Object.fromEntries(VOCAB.map((t, i) => [t, i])),
      },
    }),
  );
  writeFileSync(
    path.join(dir, 'tokenizer_config.json'),
    JSON.stringify({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      cls_token: '[CLS]',
      sep_token: '[SEP]',
    }),
  );
  writeFileSync(
    path.join(dir, 'config.json'),
    JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: DIM, vocab_size: VOCAB.length }),
  );
}

/** The hand-computed embedding: mean of the rows of [CLS] + characters + [SEP], L2-normalised. */
function expected(text: string): number[] {
  const ids = [2, ...[...text].map((ch) => Math.max(1, VOCAB.indexOf(ch))), 3];
  const mean = Array.from({ length: DIM }, (_, d) => ids.reduce((s, i) => s + row(i)[d]!, 0) / ids.length);
  const norm = Math.sqrt(mean.reduce((s, x) => s + x * x, 0));
  return mean.map((x) => x / norm);
}

describe('transformers.js embedder (tiny local model, offline)', () => {
  it('loads through the real pipeline and returns the mean of the embedding rows', async () => {
    const folder = mkdtempSync(path.join(os.tmpdir(), 'tiny-model-'));
    try {
      const modelDir = path.join(folder, 'tiny-bert');
      writeTinyModel(modelDir);
      const embedder = await createTransformersEmbedder({ modelPath: modelDir, cacheDir: path.join(folder, 'cache') });
      assert.equal(embedder.dimension, DIM);
      assert.match(embedder.id, /^transformers:tiny-bert:d4:[0-9a-f]{8}$/);
      // Different lengths in one batch: padding must not leak into the mean.
      const docs = await embedder.embedDocuments(['基金托管人', '债券久期', '基金X']);
      for (const [i, text] of ['基金托管人', '债券久期', '基金X'].entries()) {
        const got = Array.from(docs[i]!);
        expected(text).forEach((x, d) => assert.ok(Math.abs(got[d]! - x) < 1e-5, `${text}[${d}]: ${got[d]} vs ${x}`));
      }
      const q = Array.from(await embedder.embedQuery('托管'));
      expected('托管').forEach((x, d) => assert.ok(Math.abs(q[d]! - x) < 1e-5));
      // Prefixes change what is embedded (and the id), as e5/bge expect.
      const prefixed = await createTransformersEmbedder({ modelPath: modelDir, cacheDir: path.join(folder, 'cache'), queryPrefix: '基' });
      assert.notEqual(prefixed.id, embedder.id);
      const pq = Array.from(await prefixed.embedQuery('托管'));
      expected('基托管').forEach((x, d) => assert.ok(Math.abs(pq[d]! - x) < 1e-5));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('says what to do when the model folder is missing', async () => {
    await assert.rejects(
      createTransformersEmbedder({ modelPath: path.join(os.tmpdir(), 'no-such-model-xyz'), cacheDir: os.tmpdir() }),
      (e: unknown) => e instanceof NotReadyError && /config\.json/.test(e.message),
    );
  });
});

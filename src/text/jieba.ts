/**
 * @node-rs/jieba's `Jieba` class, loaded with `require` rather than `import`, for the reason given in
 * `sqlite-database.ts`: importing this CommonJS package through Node's ES module loader cost far more than the
 * native binding itself.
 */
import { createRequire } from 'node:module';
import type * as JiebaPackage from '@node-rs/jieba';

/** The segmenter class (`Jieba.withDict`, `loadDict`, `cutForSearch`). */
export const Jieba = (createRequire(import.meta.url)('@node-rs/jieba') as typeof JiebaPackage).Jieba;

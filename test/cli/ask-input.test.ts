import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { test } from 'node:test';
import { QuestionGrouper, readQuestions, type InputItem } from '../../src/cli/ask-input.js';

async function read(text: string, one = false): Promise<InputItem[]> {
  const items: InputItem[] = [];
  for await (const item of readQuestions(Readable.from([text]), { one })) items.push(item);
  return items;
}

void test('pipe grouping: a question ends after its last option or at a blank line; options E–H stay with it', async () => {
  const text = [
    '题一（ ）',
    'A.甲',
    'B.乙',
    'C.丙',
    'D.丁',
    'E.戊',
    '题二 A.甲 B.乙 C.丙 D.丁',
    '题三（ ）A.对 B.错',
    '',
    '问答题：什么是基金？',
    '请简述。',
    '',
    '',
  ].join('\n');
  const items = await read(text);
  assert.deepEqual(
    items.map((i) => ('question' in i ? [i.question.n, i.question.line, i.question.question] : ['failure'])),
    [
      [1, 1, '题一（ ）\nA.甲\nB.乙\nC.丙\nD.丁\nE.戊'],
      [2, 7, '题二 A.甲 B.乙 C.丙 D.丁'],
      [3, 8, '题三（ ）A.对 B.错'],
      [4, 10, '问答题：什么是基金？\n请简述。'],
    ],
  );
});

void test('JSONL lines are one question each, interleaved with text; a bad line becomes a failure that keeps its place and id', async () => {
  const text = [
    '{"id": 7, "question": "题一", "options": {"A": "甲", "B": 2}}',
    '{"id": "x", "question": ',
    '题二 A.甲 B.乙 C.丙 D.丁',
    '[1,2]',
  ].join('\n');
  const items = await read(text);
  assert.equal(items.length, 4);
  assert.deepEqual(items[0], { question: { n: 1, line: 1, id: '7', question: '题一', options: { A: '甲', B: '2' } } });
  assert.ok('failure' in items[1]! && items[1].failure.id === 'x' && /stdin:2: not valid JSON/.test(items[1].failure.error));
  assert.ok('question' in items[2]! && items[2].question.n === 3);
  assert.ok('question' in items[3]!, 'a line not starting with { is question text');
});

void test('--one reads everything as one question; the REPL grouper answers as soon as option D arrives', async () => {
  const items = await read('第一行\n\n第二行 A.甲\n', true);
  assert.deepEqual(items, [{ question: { n: 1, line: 1, question: '第一行\n\n第二行 A.甲' } }]);
  const repl = new QuestionGrouper(true);
  assert.deepEqual(repl.push('题一（ ）', 1), []);
  assert.deepEqual(repl.push('A.甲 B.乙 C.丙', 2), []);
  assert.deepEqual(repl.push('D.丁', 3), [{ text: '题一（ ）\nA.甲 B.乙 C.丙\nD.丁', line: 1 }]);
  assert.equal(repl.pending(), false);
});

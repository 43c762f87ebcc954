import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import OpenAI from 'openai';
import { chatReply, errorReply, startFakeOpenAiServer, type FakeOpenAiServer } from '../helpers/fake-openai-server.js';

let server: FakeOpenAiServer;
before(async () => {
  server = await startFakeOpenAiServer({ rejectResponseFormat: ['json_schema'] });
});
after(async () => {
  await server.close();
});

void test('the real openai client talks to the fake server and every request is recorded', async () => {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0, timeout: 2000 });
  server.enqueue(chatReply('hello'));
  const r = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] });
  assert.equal(r.choices[0]?.message.content, 'hello');
  assert.equal(server.chatRequests().length, 1);
  assert.equal((server.requests[0]?.body as { model: string }).model, 'm');
});

void test('scripted errors, response_format rejection, timeouts and default embeddings', async () => {
  const client = new OpenAI({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0, timeout: 300 });
  server.enqueue(errorReply(429, 'slow down', { 'Retry-After': '2' }));
  await assert.rejects(
    client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    (e: unknown) => e instanceof OpenAI.APIError && e.status === 429 && (e.headers as Headers).get('retry-after') === '2',
  );
  await assert.rejects(
    client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'x' }],
      response_format: { type: 'json_schema', json_schema: { name: 'a', schema: {} } },
    }),
    (e: unknown) => e instanceof OpenAI.APIError && e.status === 400 && /response_format/.test(e.message),
  );
  server.enqueue({ delayMs: 5000, json: {} });
  await assert.rejects(
    client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    OpenAI.APIConnectionTimeoutError,
  );
  const emb = await client.embeddings.create({ model: 'e', input: ['基金', '基金'] });
  assert.deepEqual(emb.data[0]?.embedding, emb.data[1]?.embedding);
  assert.equal(emb.data[0]?.embedding.length, 16);
  // Nothing scripted: a chat request fails loudly.
  await assert.rejects(
    client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    (e: unknown) => e instanceof OpenAI.APIError && e.status === 500,
  );
});

/**
 * A reply over the size cap is cut where it comes in, marked and traced (Issue 32, item 1). A 50 MB explorer
 * reply ran 27 minutes at 2.7 GB before: every later step counted, cached and re-sent all of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChatModel } from '../../src/llm/factory.ts';
import { capReply } from '../../src/llm/reply-cap.ts';
import type { ChatTrace } from '../../src/llm/types.ts';
import { startScriptedModelServer, type ScriptedModelServer } from '../support/scripted-model-server.ts';

const HUGE = `START ${'='.repeat(3_000_000)} END`;

describe('the reply cap', () => {
  let server: ScriptedModelServer;
  beforeAll(async () => {
    server = await startScriptedModelServer({
      rules: [
        { name: 'huge', match: 'flood', respond: { content: HUGE, completionTokens: 750_000 } },
        { name: 'any', match: '', respond: 'a short answer' },
      ],
    });
  });
  afterAll(() => server.stop());

  it('leaves a reply within the cap alone, and marks where a longer one was cut', () => {
    expect(capReply('short', 10)).toEqual({ text: 'short' });
    const { text, cut } = capReply('x'.repeat(25), 10);
    expect(text).toBe(`${'x'.repeat(10)}\n[locfix: the reply was cut here: 10 of 25 characters kept]`);
    expect(cut).toEqual({ keptChars: 10, totalChars: 25 });
  });

  it('a 3 MB reply comes back cut to the cap in seconds, the cut in the choice and the trace', { timeout: 60_000 }, async () => {
    const traces: ChatTrace[] = [];
    const model = createChatModel({ model: `openai:m@${server.openaiURL}`, maxReplyChars: 20_000 }, { trace: (t) => traces.push(t) });
    const started = Date.now();
    const response = await model.chat({ messages: [{ role: 'user', content: 'flood me' }], purpose: 'test' });
    expect(Date.now() - started).toBeLessThan(20_000);
    const choice = response.choices[0]!;
    expect(choice.content.startsWith('START ===')).toBe(true);
    expect(choice.content.length).toBeLessThan(20_100);
    expect(choice.content).toContain(`[locfix: the reply was cut here: 20000 of ${HUGE.length} characters kept]`);
    expect(choice.replyCut).toEqual({ keptChars: 20_000, totalChars: HUGE.length });
    expect(traces[0]!.response!.choices[0]!.replyCut).toEqual({ keptChars: 20_000, totalChars: HUGE.length });
    // an ordinary reply is untouched
    const plain = await model.chat({ messages: [{ role: 'user', content: 'hello' }], purpose: 'test' });
    expect(plain.choices[0]!.content).toBe('a short answer');
    expect(plain.choices[0]!.replyCut).toBeUndefined();
  });
});

/**
 * Building blocks for scenarios, so stage tests read as "what the model says" rather than HTTP plumbing.
 *
 *   useScriptedModelServer(scenario)  vitest hooks: start before all, reset before each, stop after all
 *   scriptedChatModel(server, ...)    a real ManagedChatModel pointed at the server (fast retries)
 *   byTurn([...])                     answer by the number of assistant turns so far (ReAct loops)
 *   bySample([...])                   answer by sample index (greedy first, then the sampled ones)
 *   fenced(value), thinking(r, a), harmony(analysis, final)   answer text in the shapes models produce
 */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { ManagedChatModel, type ChatModelOptions } from '../../src/llm/chat-model.ts';
import { OllamaTransport } from '../../src/llm/ollama.ts';
import { OpenAITransport } from '../../src/llm/openai.ts';
import { ScriptedModelServer, loadScenario, type Scenario, type ScenarioRule, type ScriptedChatRequest, type ScriptedReply } from './scripted-model-server.ts';

/**
 * Registers vitest hooks for one server per test file. `scenario` may be a Scenario, rules, or a scenario
 * file name under test/fixtures/scenarios/. Read `.server` inside tests (it exists once beforeAll ran).
 */
export function useScriptedModelServer(scenario: Scenario | ScenarioRule[] | string = {}): { readonly server: ScriptedModelServer } {
  let server: ScriptedModelServer | undefined;
  beforeAll(async () => {
    server = new ScriptedModelServer(typeof scenario === 'string' ? await loadScenario(scenario) : scenario);
    await server.start();
  });
  beforeEach(() => server?.reset());
  afterAll(async () => {
    await server?.stop();
  });
  return {
    get server(): ScriptedModelServer {
      if (!server) throw new Error('scripted model server is not started yet (use it inside tests or hooks)');
      return server;
    },
  };
}

export interface ScriptedChatModelOptions extends ChatModelOptions {
  /** which API the model speaks to the server (default 'openai') */
  provider?: 'openai' | 'ollama';
  /** default 'scripted' */
  model?: string;
  /** openai provider only (default true) */
  supportsN?: boolean;
}

/** A real chat model against the scripted server; retries back off in milliseconds so fault tests stay fast. */
export function scriptedChatModel(server: ScriptedModelServer, options: ScriptedChatModelOptions = {}): ManagedChatModel {
  const { provider = 'openai', model = 'scripted', supportsN, ...chatOptions } = options;
  const transport =
    provider === 'openai'
      ? new OpenAITransport({ model, baseURL: server.openaiURL, ...(supportsN !== undefined ? { supportsN } : {}) })
      : new OllamaTransport({ model, baseURL: server.url });
  return new ManagedChatModel(transport, { retryBaseDelayMs: 5, retryMaxDelayMs: 50, timeoutMs: 30_000, ...chatOptions });
}

/** Reply i to the request whose conversation already holds i assistant turns (the last reply repeats). */
export function byTurn(replies: ScriptedReply[]): (request: ScriptedChatRequest) => ScriptedReply {
  if (replies.length === 0) throw new Error('byTurn needs at least one reply');
  return (request) => {
    const turns = request.messages.filter((m) => m.role === 'assistant').length;
    return replies[Math.min(turns, replies.length - 1)]!;
  };
}

/** Reply i to sample i (the last reply repeats); samples are numbered per conversation, see the server. */
export function bySample(replies: ScriptedReply[]): (request: ScriptedChatRequest, sampleIndex: number) => ScriptedReply {
  if (replies.length === 0) throw new Error('bySample needs at least one reply');
  return (_request, sampleIndex) => replies[Math.min(sampleIndex, replies.length - 1)]!;
}

/** `value` (JSON-encoded unless a string) inside a Markdown code fence. */
export function fenced(value: unknown, language = typeof value === 'string' ? '' : 'json'): string {
  const body = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return `\`\`\`${language}\n${body}\n\`\`\``;
}

/** An answer preceded by a <think> block, as Qwen3 / DeepSeek-R1 write it. */
export function thinking(reasoning: string, answer: string): string {
  return `<think>\n${reasoning}\n</think>\n\n${answer}`;
}

/** An answer in gpt-oss harmony channels, as a server that passes raw tokens through sends it. */
export function harmony(analysis: string, final: string): string {
  return `<|channel|>analysis<|message|>${analysis}<|end|><|start|>assistant<|channel|>final<|message|>${final}<|return|>`;
}

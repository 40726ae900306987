import { describe, expect, it } from 'vitest';
import { llmSection } from '../../src/llm/config.ts';
import { artifactSettings, parseRunConfig } from '../../src/config.ts';
import { createChatModel, parseModelSpec } from '../../src/llm/factory.ts';
import { parseLlmConfig } from '../../src/llm/config.ts';

describe('model specs', () => {
  it('parses provider, model and optional base URL', () => {
    expect(parseModelSpec('openai:gpt-4o-2024-05-13')).toEqual({ provider: 'openai', model: 'gpt-4o-2024-05-13' });
    expect(parseModelSpec('openai:Qwen/Qwen2.5-Coder-32B@http://localhost:8000/v1')).toEqual({
      provider: 'openai',
      model: 'Qwen/Qwen2.5-Coder-32B',
      baseURL: 'http://localhost:8000/v1',
    });
    expect(parseModelSpec('ollama:gpt-oss:120b')).toEqual({ provider: 'ollama', model: 'gpt-oss:120b' });
    expect(parseModelSpec('ollama:qwen3:8b@http://localhost:11434')).toEqual({ provider: 'ollama', model: 'qwen3:8b', baseURL: 'http://localhost:11434' });
  });

  it('rejects bad specs with a clear message', () => {
    expect(() => parseModelSpec('gpt-4o')).toThrow(/must look like/);
    expect(() => parseModelSpec('anthropic:claude')).toThrow(/unknown provider "anthropic"/);
    expect(() => parseModelSpec('ollama:@http://x:1')).toThrow(/names no model/);
  });

  it('builds models with ids and config defaults', () => {
    expect(createChatModel('ollama:gpt-oss:120b@http://127.0.0.1:1').id).toBe('ollama:gpt-oss:120b');
    expect(createChatModel({ model: 'openai:m', baseURL: 'http://127.0.0.1:1/v1', supportsN: false }).id).toBe('openai:m');
  });
});

describe('llm config schema', () => {
  it('fills defaults', () => {
    expect(parseLlmConfig({ model: 'ollama:qwen3:8b' })).toMatchObject({ concurrency: 4, timeoutMs: 300_000, maxRetries: 4, prices: {} });
  });

  it('names every bad field', () => {
    expect(() => parseLlmConfig({ model: 'ollama:x', concurrency: 0, timeoutMs: 'long', bogus: 1 })).toThrow(/concurrency.*timeoutMs|timeoutMs.*concurrency/);
    expect(() => parseLlmConfig({ model: 'ollama:x', bogus: 1 })).toThrow(/bogus/);
    expect(() => parseLlmConfig({ model: 'ollama:x', prices: { 'gpt-4o': { input: -1, output: 2 } } })).toThrow(/prices/);
  });
});

describe('the llm setting in one normal form', () => {
  it('a model spec and a section are the same section; no model is undefined', () => {
    expect(llmSection('openai:m@http://127.0.0.1:9/v1')).toEqual({ model: 'openai:m@http://127.0.0.1:9/v1' });
    expect(llmSection({ model: 'ollama:x', maxRetries: 0 })).toEqual({ model: 'ollama:x', maxRetries: 0 });
    expect(llmSection(undefined)).toBeUndefined();
    expect(llmSection(null)).toBeUndefined();
    // the artifact settings of a run read the model through it, whichever form the config used
    const spec = artifactSettings(parseRunConfig({ runId: 'r', dataset: 'd.jsonl', llm: 'openai:m' }));
    const section = artifactSettings(parseRunConfig({ runId: 'r', dataset: 'd.jsonl', llm: { model: 'openai:m' } }));
    expect([spec.llm, section.llm]).toEqual(['openai:m', 'openai:m']);
  });
});

import { describe, expect, it } from 'vitest';
import { splitReasoning } from '../../src/llm/reasoning.ts';

describe('splitReasoning', () => {
  it('leaves plain answers alone', () => {
    expect(splitReasoning('  just the answer\n')).toEqual({ content: '  just the answer\n' });
  });

  it('removes <think> blocks and keeps them as reasoning', () => {
    expect(splitReasoning('<think>\nhmm, a.py\n</think>\n\n{"a.py": 8}')).toEqual({ content: '{"a.py": 8}', reasoning: 'hmm, a.py' });
    expect(splitReasoning('<think>one</think>A<think>two</think>B')).toEqual({ content: 'AB', reasoning: 'one\n\ntwo' });
  });

  it('handles a block opened by the chat template (only </think> in the output)', () => {
    expect(splitReasoning('reasoning here\n</think>\nfinal')).toEqual({ content: 'final', reasoning: 'reasoning here' });
  });

  it('treats an unclosed leading <think> as reasoning only (cut off while thinking)', () => {
    expect(splitReasoning('<think>still thinking about')).toEqual({ content: '', reasoning: 'still thinking about' });
  });

  it('splits gpt-oss harmony channels', () => {
    const raw =
      '<|channel|>analysis<|message|>Look at skeletons.<|end|><|start|>assistant<|channel|>commentary<|message|>tool talk<|end|>' +
      '<|start|>assistant<|channel|>final<|message|>Final Answer: {"b.py": 7}<|return|>';
    expect(splitReasoning(raw)).toEqual({ content: 'Final Answer: {"b.py": 7}', reasoning: 'Look at skeletons.\n\ntool talk' });
  });

  it('harmony without a final channel gives an empty answer', () => {
    expect(splitReasoning('<|channel|>analysis<|message|>thinking and then cut')).toEqual({ content: '', reasoning: 'thinking and then cut' });
  });

  it('harmony with a constrain marker on the final channel', () => {
    expect(splitReasoning('<|channel|>analysis<|message|>a<|end|><|start|>assistant<|channel|>final <|constrain|>json<|message|>{"x":1}')).toEqual({
      content: '{"x":1}',
      reasoning: 'a',
    });
  });

  it('harmony with the special tokens dropped by the server', () => {
    expect(splitReasoning('analysisNeed to check a.py.assistantfinal{"a.py": 9}')).toEqual({ content: '{"a.py": 9}', reasoning: 'Need to check a.py.' });
    expect(splitReasoning('an analysis of the assistant final answer')).toEqual({ content: 'an analysis of the assistant final answer' });
  });

  it('adds a separate reasoning field (Ollama thinking, vLLM reasoning_content) first', () => {
    expect(splitReasoning('<think>inline</think>answer', 'field')).toEqual({ content: 'answer', reasoning: 'field\n\ninline' });
    expect(splitReasoning('answer', '')).toEqual({ content: 'answer' });
  });
});

/**
 * Separates reasoning from the answer. Reasoning models emit it in several ways:
 *  - `<think>…</think>` blocks in the content (Qwen3, DeepSeek-R1); chat templates that open the block in
 *    the prompt leave only a closing `</think>`; an answer cut off by max tokens leaves an unclosed `<think>`;
 *  - gpt-oss "harmony" channels when a server passes them through raw:
 *    `<|channel|>analysis<|message|>…<|end|><|start|>assistant<|channel|>final<|message|>…<|return|>`,
 *    or with the special tokens dropped: `analysis…assistantfinal…`;
 *  - a separate field (Ollama `message.thinking`, vLLM `reasoning_content`, Ollama /v1 `reasoning`), which
 *    the provider passes in as `separateReasoning`.
 * The answer is what the pipeline parses; the reasoning only goes into traces.
 */

export interface SplitAnswer {
  content: string;
  reasoning?: string;
}

const HARMONY_MARKER = /<\|(?:channel|message|start|end|return|call|constrain)\|>/;

export function splitReasoning(raw: string, separateReasoning?: string | null): SplitAnswer {
  const reasoningParts: string[] = [];
  if (separateReasoning?.trim()) reasoningParts.push(separateReasoning.trim());

  let content = raw;
  if (HARMONY_MARKER.test(content)) content = splitHarmony(content, reasoningParts);
  else content = splitStrippedHarmony(content, reasoningParts);
  content = splitThinkTags(content, reasoningParts);

  const reasoning = reasoningParts.join('\n\n');
  return reasoning ? { content, reasoning } : { content };
}

function splitThinkTags(text: string, reasoningParts: string[]): string {
  let content = text;
  // A closing tag with no opening tag before it: the template opened the block; everything before is reasoning.
  const firstClose = content.search(/<\/think>/i);
  const firstOpen = content.search(/<think>/i);
  if (firstClose >= 0 && (firstOpen < 0 || firstClose < firstOpen)) {
    pushTrimmed(reasoningParts, content.slice(0, firstClose));
    content = content.slice(firstClose + '</think>'.length);
  }
  content = content.replace(/<think>([\s\S]*?)<\/think>/gi, (_match, inner: string) => {
    pushTrimmed(reasoningParts, inner);
    return '';
  });
  // An opening tag that is never closed (output truncated while thinking): the rest is reasoning.
  const open = content.search(/<think>/i);
  if (open >= 0) {
    pushTrimmed(reasoningParts, content.slice(open + '<think>'.length));
    content = content.slice(0, open);
  }
  return content === text ? text : content.trim();
}

/**
 * Harmony: a sequence of messages, each `[<|start|>role]<|channel|>NAME[ <|constrain|>…]<|message|>TEXT`
 * ended by `<|end|>`, `<|return|>`, `<|call|>` or the end of the text. The `final` channel is the answer;
 * `analysis` and `commentary` are reasoning. Text before the first channel marker is kept as answer text
 * only when there is no final channel.
 */
function splitHarmony(text: string, reasoningParts: string[]): string {
  const messagePattern =
    /(?:<\|start\|>[^<]*)?<\|channel\|>([^<]*?)(?:<\|constrain\|>[^<]*)?<\|message\|>([\s\S]*?)(?=<\|end\|>|<\|return\|>|<\|call\|>|<\|start\|>|<\|channel\|>|$)/g;
  const finals: string[] = [];
  let leading = '';
  let first = true;
  for (const match of text.matchAll(messagePattern)) {
    if (first) {
      leading = text.slice(0, match.index);
      first = false;
    }
    const channel = match[1]!.trim().split(/\s+/)[0] ?? '';
    const body = match[2]!;
    if (channel === 'final') finals.push(body.trim());
    else pushTrimmed(reasoningParts, body);
  }
  if (first) return text.replace(new RegExp(HARMONY_MARKER.source, 'g'), '').trim();
  if (finals.length) return finals.join('\n\n');
  // No final channel (truncated while reasoning): whatever preceded the channels is all the answer there is.
  return leading.replace(new RegExp(HARMONY_MARKER.source, 'g'), '').trim();
}

/**
 * Harmony whose special tokens a server dropped (vLLM/llama.cpp with skip_special_tokens): the channel
 * names run into the text as "analysis…assistantfinal…". Only that exact shape is recognised.
 */
function splitStrippedHarmony(text: string, reasoningParts: string[]): string {
  const match = /^\s*analysis([\s\S]*?)assistant(?:commentary[\s\S]*?assistant)?final([\s\S]*)$/.exec(text);
  if (!match) return text;
  pushTrimmed(reasoningParts, match[1]!);
  return match[2]!.trim();
}

function pushTrimmed(parts: string[], text: string): void {
  const trimmed = text.trim();
  if (trimmed) parts.push(trimmed);
}

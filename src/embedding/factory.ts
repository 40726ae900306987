/**
 * Embedder specs as given on the command line:
 *   lexical | lexical:<dims>
 *   ollama[:<model>][@<host>]          e.g. ollama:nomic-embed-text@http://127.0.0.1:11434
 *   openai[:<model>][@<baseURL>]       e.g. openai:text-embedding-3-small@http://127.0.0.1:8000/v1
 */
import type { Embedder } from './types.ts';
import { LexicalEmbedder } from './lexical.ts';
import { DEFAULT_OLLAMA_EMBED_MODEL, OllamaEmbedder, type OllamaEmbedderOptions } from './ollama.ts';
import { DEFAULT_OPENAI_EMBED_MODEL, OpenAIEmbedder, type OpenAIEmbedderOptions } from './openai.ts';

export type EmbedderSpec =
  | { provider: 'lexical'; dims?: number }
  | { provider: 'ollama'; model: string; url?: string }
  | { provider: 'openai'; model: string; url?: string };

export function parseEmbedderSpec(spec: string): EmbedderSpec {
  const s = spec.trim();
  const at = s.indexOf('@');
  const head = at >= 0 ? s.slice(0, at) : s;
  const url = at >= 0 ? s.slice(at + 1) : undefined;
  if (url !== undefined && !/^https?:\/\/[^\s]+$/.test(url)) {
    throw new Error(`embedder spec "${spec}": the part after "@" must be an http(s) URL, got "${url}"`);
  }
  const colon = head.indexOf(':');
  const provider = colon >= 0 ? head.slice(0, colon) : head;
  const model = colon >= 0 ? head.slice(colon + 1) : '';
  if (colon >= 0 && model === '') throw new Error(`embedder spec "${spec}": empty model name after "${provider}:"`);
  switch (provider) {
    case 'lexical': {
      if (url) throw new Error(`embedder spec "${spec}": the lexical embedder takes no URL`);
      if (!model) return { provider: 'lexical' };
      const dims = Number(model);
      if (!Number.isInteger(dims) || dims < 16) throw new Error(`embedder spec "${spec}": lexical dims must be an integer >= 16`);
      return { provider: 'lexical', dims };
    }
    case 'ollama':
      return { provider: 'ollama', model: model || DEFAULT_OLLAMA_EMBED_MODEL, url };
    case 'openai':
      return { provider: 'openai', model: model || DEFAULT_OPENAI_EMBED_MODEL, url };
    default:
      throw new Error(`embedder spec "${spec}": unknown provider "${provider}" (expected lexical, ollama or openai)`);
  }
}

export interface EmbedderOverrides {
  ollama?: Omit<OllamaEmbedderOptions, 'model' | 'host'>;
  openai?: Omit<OpenAIEmbedderOptions, 'model' | 'baseURL'>;
}

export function createEmbedder(spec: string | EmbedderSpec, overrides: EmbedderOverrides = {}): Embedder {
  const parsed = typeof spec === 'string' ? parseEmbedderSpec(spec) : spec;
  switch (parsed.provider) {
    case 'lexical':
      return new LexicalEmbedder({ dims: parsed.dims });
    case 'ollama':
      return new OllamaEmbedder({ ...overrides.ollama, model: parsed.model, host: parsed.url });
    case 'openai':
      return new OpenAIEmbedder({ ...overrides.openai, model: parsed.model, baseURL: parsed.url });
  }
}

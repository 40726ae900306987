/**
 * Localizers by name. Adding one is one new file plus one entry here; each entry loads its module lazily so
 * a model-free run never imports the LLM localizers.
 */
import type { FileLocalizer } from './types.ts';

export type LocalizerFactory = (options: Record<string, unknown>) => Promise<FileLocalizer>;

export const LOCALIZERS: Record<string, LocalizerFactory> = {
  retrieval: async (options) => new (await import('./retrieval-localizer.ts')).RetrievalLocalizer(options),
  oracle: async () => new (await import('./oracle.ts')).OracleLocalizer(),
  blagent: async (options) => new (await import('./blagent/index.ts')).BlagentLocalizer(options),
  agentless: async (options) => new (await import('./agentless/index.ts')).AgentlessLocalizer(options),
};

export function localizerNames(): string[] {
  return Object.keys(LOCALIZERS).sort();
}

export async function createLocalizer(name: string, options: Record<string, unknown> = {}): Promise<FileLocalizer> {
  const factory = LOCALIZERS[name];
  if (!factory) throw new Error(`unknown localizer "${name}"; known: ${localizerNames().join(', ')}`);
  return factory(options);
}

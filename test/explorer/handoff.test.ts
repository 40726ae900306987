/**
 * Handoff contracts between file localization and the hierarchy, through the real stages (top, the
 * default, is the Agentless hierarchy: the first topFiles and nothing else):
 *
 * - soft: the first topFiles go over as ranked candidates. A place the model names in another file at the
 *   base commit is followed, and that file goes on to line localization.
 * - hard: only the localizer's predicted set (the explorer's answer) is visible. Places elsewhere are
 *   ignored, and every file of the set is shown, with no topFiles cap.
 */
import { describe, expect, it } from 'vitest';
import { functionLocalizationStage, handedFiles, lineLocalizationStage, type FunctionStageOutput } from '../../localizer/hierarchy/stage.ts';
import type { FileLocalization } from '../../src/artifacts/localization.ts';
import type { ChatModel, ChatRequest } from '../../src/llm/types.ts';
import { STAGE, memoryInput } from '../../src/run/stage.ts';
import { shopInstance, shopSnapshot } from '../locagent/fixture.ts';

function answering(...texts: string[]): ChatModel & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    id: 'fixed:answer',
    prompts,
    async chat(request: ChatRequest) {
      prompts.push(request.messages.map((m) => m.content).join('\n'));
      const text = texts[Math.min(prompts.length - 1, texts.length - 1)]!;
      return {
        model: 'fixed',
        choices: Array.from({ length: request.n ?? 1 }, () => ({ content: text })),
        usage: { promptTokens: 1, completionTokens: 1, cost: 0 },
        cached: false,
        latencyMs: 0,
      };
    },
  };
}

const explorerAnswer: FileLocalization = {
  localizer: 'explorer',
  files: ['shop/cart.py', 'shop/report.py'].map((path, i) => ({ path, score: 2 - i })),
  predicted: ['shop/cart.py', 'shop/report.py'],
  trace: [],
  usage: { promptTokens: 0, completionTokens: 0, cost: 0, calls: 0 },
  timingsMs: {},
};
const RELATED = '```\nshop/cart.py\nfunction: Cart.total\n\nshop/pricing.py\nfunction: apply_discount\n```';
const LINES = '```\nshop/pricing.py\nline: 6\n```';

async function runHierarchy(handoff: 'top' | 'soft' | 'hard', topFiles: number) {
  const llm = answering(RELATED, LINES);
  const services = { snapshot: async () => shopSnapshot(), requireLlm: () => llm };
  const outputs = new Map<string, unknown>([[STAGE.files, explorerAnswer]]);
  const related = await functionLocalizationStage(services, { topFiles, handoff }).run(memoryInput(shopInstance(), outputs));
  outputs.set(STAGE.functions, related);
  const lines = await lineLocalizationStage(services, { topFiles, handoff, samples: 1 }).run(memoryInput(shopInstance(), outputs));
  return { related: related as FunctionStageOutput, lines, prompts: llm.prompts };
}

describe('handoff contracts', () => {
  it('hands over the predicted set whole under a hard gate, the first topFiles under a soft handoff', () => {
    expect(handedFiles(explorerAnswer, 'hard', 1)).toEqual(['shop/cart.py', 'shop/report.py']);
    expect(handedFiles(explorerAnswer, 'soft', 1)).toEqual(['shop/cart.py']);
    const { predicted: _, ...ranked } = explorerAnswer;
    expect(handedFiles(ranked, 'hard', 1)).toEqual(['shop/cart.py']);
  });

  it('soft: the function level follows a named file beyond the handoff, and line localization gets it', async () => {
    const { related, lines, prompts } = await runHierarchy('soft', 1);
    expect(related).toMatchObject({ handoff: 'soft', handed: ['shop/cart.py'], beyond: ['shop/pricing.py'] });
    expect(related.elements.map((e) => `${e.path}:${e.name}`)).toEqual(['shop/cart.py:Cart.total', 'shop/pricing.py:apply_discount']);
    expect(prompts[0]).not.toContain('def apply_discount');
    expect(lines.files).toEqual(['shop/cart.py', 'shop/pricing.py']);
    expect(lines.locationSets[0]?.files.map((f) => f.path)).toContain('shop/pricing.py');
  });

  it('top (the default): the first topFiles; a place named elsewhere is ignored, as in Agentless', async () => {
    const { related, lines } = await runHierarchy('top', 1);
    expect(related).toMatchObject({ handoff: 'top', handed: ['shop/cart.py'] });
    expect(related.beyond).toBeUndefined();
    expect(related.ignored).toContain('shop/pricing.py');
    expect(lines.files).toEqual(['shop/cart.py']);
  });

  it('hard: only the predicted set is visible; a place outside it is ignored and never reaches repair', async () => {
    const { related, lines, prompts } = await runHierarchy('hard', 1);
    expect(related).toMatchObject({ handoff: 'hard', handed: ['shop/cart.py', 'shop/report.py'] });
    expect(related.beyond).toBeUndefined();
    expect(related.ignored).toContain('shop/pricing.py');
    expect(related.elements.map((e) => `${e.path}:${e.name}`)).toEqual(['shop/cart.py:Cart.total']);
    // both files of the set were shown although topFiles is 1
    expect(prompts[0]).toContain('shop/report.py');
    expect(lines.files).toEqual(['shop/cart.py', 'shop/report.py']);
    expect(lines.locationSets.flatMap((s) => s.files.map((f) => f.path))).not.toContain('shop/pricing.py');
  });
});

/**
 * LocagentLocalizer through the real OpenAI client against the scripted model server. The scripted agent
 * reads each tool result and decides its next call from it, so the run only reaches the right answer if the
 * real graph tools return what they should: it searches the names in the issue, follows `Cart.total`'s
 * `invokes` edge, reads `apply_discount`, and answers. Also: the step budget (last-step message, files filled
 * from the trajectory with a warning), unusable replies, the time limit, a failing server, the registry.
 */
import { describe, expect, it } from 'vitest';
import { LocagentLocalizer } from '../../localizer/locagent/index.ts';
import { LAST_STEP_MESSAGE } from '../../localizer/locagent/agent.ts';
import { LocagentOptionsSchema } from '../../localizer/locagent/options.ts';
import { createLocalizer } from '../../localizer/registry.ts';
import type { ContextWith, LocalizerContext } from '../../localizer/types.ts';
import { withCapabilities } from '../../localizer/capabilities.ts';
import type { TraceEvent } from '../../src/artifacts/localization.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import { BudgetExhaustedError, SpendBudget, SpendScope } from '../../src/llm/spend.ts';
import { scriptedChatModel, useScriptedModelServer } from '../support/scenario-helpers.ts';
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { shopInstance, shopSnapshot, toolCall } from './fixture.ts';

const scripted = useScriptedModelServer();

function bareContext(llm: ChatModel | undefined): LocalizerContext {
  return { instance: shopInstance(), snapshot: shopSnapshot(), index: () => Promise.reject(new Error('locagent must not need the retrieval index')), llm };
}

/** What the stage hands LocAgent: a context holding the model it declared. */
function context(llm: ChatModel | undefined): ContextWith<'model'> {
  return withCapabilities(bareContext(llm), ['model']);
}

const options = (o: Record<string, unknown> = {}) => LocagentOptionsSchema.parse({ samples: 1, temperature: 0, ...o });
const lastObservation = (r: ScriptedChatRequest) => r.lastUser;

/** An agent that reads what the tools returned and moves on only when they returned what it needs. */
function graphWalker(request: ScriptedChatRequest): ScriptedReply {
  const turn = request.messages.filter((m) => m.role === 'assistant').length;
  const seen = lastObservation(request);
  if (turn === 0) return toolCall('search_code_snippets', { search_terms: ['Cart.total', 'summary'] }, 'The issue names Cart.total and summary.');
  if (turn === 1) {
    const id = /Found function `([^`]*Cart\.total)`/.exec(seen)?.[1];
    return id ? toolCall('explore_tree_structure', { start_entities: [id], dependency_type_filter: ['invokes'], traversal_depth: 1 }) : 'lost';
  }
  if (turn === 2) {
    const callee = /invokes ── (\S+)/.exec(seen)?.[1];
    return callee ? toolCall('get_entity_contents', { entity_names: [callee] }) : 'lost';
  }
  if (turn === 3 && /amount - amount \* rate/.test(seen)) {
    return `The rate is never capped.\n\`\`\`\nshop/pricing.py\nfunction: apply_discount\nline: 6\n\nshop/cart.py\nfunction: Cart.total\n\`\`\`\n${toolCall('finish')}`;
  }
  return toolCall('finish', {}, 'I could not find it.');
}

const tools = (trace: TraceEvent[]) => trace.filter((e) => e.type === 'tool');

describe('LocagentLocalizer with a scripted agent', () => {
  it('walks the graph with real tool calls to the answer; files, entities, trace and usage', async () => {
    scripted.server.setScenario({ policy: graphWalker });
    const loc = await new LocagentLocalizer(options()).localize(context(scriptedChatModel(scripted.server)));
    expect(loc.warnings).toBeUndefined();
    expect(loc.files.slice(0, 2).map((f) => f.path)).toEqual(['shop/pricing.py', 'shop/cart.py']);
    expect(loc.files[0]!.evidence).toMatchObject({ source: 'agent', reciprocalRank: 1, samples: 1 });
    // files the searches showed but the agent did not name come after its own, marked as such
    expect(loc.files.slice(2).every((f) => f.evidence?.source === 'trajectory')).toBe(true);
    expect(loc.functions).toEqual([
      { path: 'shop/pricing.py', name: 'apply_discount', score: 1 },
      { path: 'shop/cart.py', name: 'Cart.total', score: 0.5 },
    ]);
    expect(tools(loc.trace).map((t) => (t as { tool: string }).tool)).toEqual(['search_code_snippets', 'explore_tree_structure', 'get_entity_contents']);
    const sample = (loc.details!.samples as Array<Record<string, unknown>>)[0]!;
    expect(sample).toMatchObject({ stopReason: 'finish', steps: 4, toolCalls: 3, invalidReplies: 0 });
    // the trajectory is the message list; each tool result is what the model saw next
    const trajectory = sample.trajectory as Array<{ role: string; content: string }>;
    expect(trajectory).toHaveLength(2 + 4 + 3);
    const firstTool = tools(loc.trace)[0] as { output: string };
    expect(trajectory[3]!.content).toBe(`EXECUTION RESULT of [search_code_snippets]:\n${firstTool.output}`);
    const requests = scripted.server.chatRequests();
    expect(requests).toHaveLength(4);
    expect((requests[0]!.body as { stop: string[] }).stop).toEqual(['</function']);
    expect(loc.usage.calls).toBe(4);
    expect(loc.usage.promptTokens).toBeGreaterThan(0);
    expect(loc.details!.graph).toMatchObject({ counts: { nodes: { file: 6 } } });
  });

  it('asks for the answer at the step limit; with no file named, fills from the trajectory and warns', async () => {
    scripted.server.setScenario({ policy: () => toolCall('search_code_snippets', { search_terms: ['apply_discount'] }) });
    const loc = await new LocagentLocalizer(options({ maxSteps: 3 })).localize(context(scriptedChatModel(scripted.server)));
    const requests = scripted.server.chatRequests();
    expect(requests).toHaveLength(3);
    const last = (requests[2]!.body as { messages: Array<{ content: string }> }).messages;
    expect(last[last.length - 1]!.content).toBe(LAST_STEP_MESSAGE);
    expect((loc.details!.samples as Array<{ stopReason: string }>)[0]!.stopReason).toBe('max-steps');
    expect(loc.files[0]).toMatchObject({ path: 'shop/pricing.py', evidence: { source: 'trajectory' } });
    expect(loc.warnings?.[0]).toMatch(/named no file \(max-steps\)/);
  });

  it('answers unusable replies with a message and goes on', async () => {
    const replies = ['I think it is pricing.', toolCall('no_such_tool'), toolCall('explore_tree_structure', { direction: 'up' })];
    scripted.server.setScenario({
      policy: (r) => replies[r.messages.filter((m) => m.role === 'assistant').length] ?? `\`\`\`\nshop/pricing.py\n\`\`\`\n${toolCall('finish')}`,
    });
    const loc = await new LocagentLocalizer(options()).localize(context(scriptedChatModel(scripted.server)));
    const trajectory = (loc.details!.samples as Array<{ trajectory: Array<{ content: string }>; invalidReplies: number }>)[0]!;
    expect(trajectory.invalidReplies).toBe(3);
    const said = trajectory.trajectory.map((m) => m.content).join('\n');
    expect(said).toContain('Go on with the next step');
    expect(said).toContain('There is no function `no_such_tool`');
    expect(said).toContain('Invalid call: explore_tree_structure needs the parameter `start_entities`');
    expect(loc.files[0]!.path).toBe('shop/pricing.py');
  });

  it('stops at the time limit without waiting for the model, and starts no further sample', async () => {
    scripted.server.setScenario({ policy: () => ({ delayMs: 5_000, then: toolCall('finish') }) });
    const t0 = Date.now();
    const loc = await new LocagentLocalizer(options({ timeLimitSeconds: 1, samples: 2 })).localize(context(scriptedChatModel(scripted.server)));
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect((loc.details!.samples as Array<{ stopReason: string }>).map((s) => s.stopReason)).toEqual(['time']);
    expect(loc.warnings?.[0]).toMatch(/named no file \(time\)/);
  });

  it("stops at the run's spend cap: the call that would overspend is refused and the instance fails", async () => {
    scripted.server.setScenario({ policy: graphWalker });
    const budget = new SpendBudget('instance', 'acme__shop-1', { tokens: 1_500 });
    const err = await new SpendScope([budget])
      .run(() => new LocagentLocalizer(options()).localize(context(scriptedChatModel(scripted.server))))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExhaustedError);
    // some steps ran, and no call started once the budget could not pay for it
    const calls = scripted.server.chatRequests().length;
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(4);
    expect(budget.spent.calls).toBe(calls);
  });

  it('fails the instance when the model server fails (no answer is made up); the registry builds it', async () => {
    scripted.server.setScenario({ policy: () => ({ status: 503 }) });
    await expect(new LocagentLocalizer(options()).localize(context(scriptedChatModel(scripted.server, { maxAttempts: 2 })))).rejects.toThrow();
    // the model is in its context's type; the stage's one check refuses a context without it
    expect(() => context(undefined)).toThrow(/needs model/);
    const fromRegistry = await createLocalizer('locagent', { samples: 1 });
    expect(fromRegistry.name).toBe('locagent');
    await expect(createLocalizer('locagent', { samples: 0 })).rejects.toThrow(/samples/);
  });
});

/**
 * The explorer localizer end to end: the real OpenAI client against the scripted model server, commands
 * in the real read-only Docker workspace. The scripted explorer reads each observation and decides its next
 * command from it, so it only reaches the answer if the commands really ran on the snapshot: it greps the
 * names in the issue, reads `Cart.total`, follows its import to `shop/pricing.py`, and answers. Its attempted
 * write is refused, and a write tried in the sandbox directly changes nothing. Also covered: error rows
 * (a malformed answer twice, the time limit, the step limit), the per-command timeout, the output cut,
 * and the registry.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DockerReadOnlyWorkspaces, sweepWorkspaceVolumes } from '../../sandbox/docker/read-only-workspace.ts';
import { ExplorerLocalizer } from '../../localizer/explorer/index.ts';
import { ExplorerOptionsSchema } from '../../localizer/explorer/options.ts';
import { createLocalizer } from '../../localizer/registry.ts';
import type { ContextWith, LocalizerContext } from '../../localizer/types.ts';
import { withCapabilities } from '../../localizer/capabilities.ts';
import type { ChatModel } from '../../src/llm/types.ts';
import { toStageError } from '../../src/run/stage-runner.ts';
import { BudgetExhaustedError, SpendBudget, SpendScope } from '../../src/llm/spend.ts';
import { ensureDocker } from '../support/docker.ts';
import { scriptedChatModel, useScriptedModelServer } from '../support/scenario-helpers.ts';
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { SHOP_FILES, shopInstance, shopSnapshot } from '../locagent/fixture.ts';

const hasDocker = await ensureDocker('explorer localizer');
const scripted = useScriptedModelServer();
const RUN_ID = `explorer-test-${process.pid}`;
const workspaces = new DockerReadOnlyWorkspaces();

function bareContext(llm: ChatModel | undefined): LocalizerContext {
  const snapshot = shopSnapshot();
  return {
    instance: shopInstance(),
    snapshot,
    index: () => Promise.reject(new Error('the explorer must not need the retrieval index')),
    workspace: (o) => workspaces.open(snapshot, { ...o, runId: RUN_ID }),
    llm,
  };
}

/** What the stage hands the explorer: a context holding the model and the sandbox it declared. */
function context(llm: ChatModel | undefined): ContextWith<'model' | 'workspace'> {
  return withCapabilities(bareContext(llm), ['model', 'workspace']);
}

const options = (o: Record<string, unknown> = {}) => ExplorerOptionsSchema.parse(o);
const bash = (command: string, thought = 'Next.') => `THOUGHT: ${thought}\n\n\`\`\`bash\n${command}\n\`\`\``;
const answer = (files: string[]) => `THOUGHT: Found it.\n\n\`\`\`json\n${JSON.stringify({ files })}\n\`\`\``;
const lastUserOf = (i: number) => {
  const messages = (scripted.server.chatRequests()[i]!.body as { messages: Array<{ role: string; content: string }> }).messages;
  return messages.filter((m) => m.role === 'user').at(-1)!.content;
};
const turnOf = (r: ScriptedChatRequest) => r.messages.filter((m) => m.role === 'assistant').length;

/** greps the names, reads the method, follows its import, tries a write, reads the callee, answers */
function explorer(request: ScriptedChatRequest): ScriptedReply {
  const turn = turnOf(request);
  const seen = request.lastUser;
  if (turn === 0) return bash(`grep -rn "def total\\|def summary" shop/`, 'The issue names Cart.total and summary.');
  if (turn === 1) {
    const file = /^(shop\/\w+\.py):\d+:\s+def total/m.exec(seen.replace(/^<[^>]+>\n?/gm, ''))?.[1];
    return file ? bash(`nl -ba ${file} | sed -n '1,20p'`) : 'lost';
  }
  if (turn === 2) {
    const module = /from (shop\.\w+) import apply_discount/.exec(seen)?.[1];
    return module ? bash(`echo "capped" > ${module.replace('.', '/')}.py`, 'Let me try to fix it right away.') : 'lost';
  }
  if (turn === 3) return /Command refused: redirecting output/.test(seen) ? bash('cat shop/pricing.py') : 'lost';
  if (turn === 4 && /amount - amount \* rate/.test(seen)) return answer(['shop/pricing.py', './shop/cart.py']);
  return answer([]);
}

afterAll(async () => {
  if (hasDocker) await sweepWorkspaceVolumes(RUN_ID);
});

describe.skipIf(!hasDocker)('ExplorerLocalizer in the read-only Docker workspace', () => {
  it('explores with real commands to the answer; the refused write is recorded; usage, steps and reads', async () => {
    scripted.server.setScenario({ policy: explorer });
    const loc = await new ExplorerLocalizer(options()).localize(context(scriptedChatModel(scripted.server)));
    expect(loc.files.map((f) => f.path)).toEqual(['shop/pricing.py', 'shop/cart.py']);
    expect(loc.predicted).toEqual(['shop/pricing.py', 'shop/cart.py']);
    expect(loc.agent).toMatchObject({ stop: 'answer', steps: 5, commands: 3, reads: 2, refused: 1, writes: 0, formatErrors: 0 });
    expect(loc.usage.calls).toBe(5);
    expect(loc.usage.promptTokens).toBeGreaterThan(0);
    const tools = loc.trace.filter((e) => e.type === 'tool').map((e) => (e as { tool: string }).tool);
    expect(tools).toEqual(['shell', 'read', 'refused', 'read']);
    // the trajectory is the message list: system, task, then assistant / observation turns
    const trajectory = loc.details!.trajectory as Array<{ role: string; content: string }>;
    expect(trajectory).toHaveLength(2 + 5 + 4);
    expect(trajectory[3]!.content).toMatch(/^<returncode>0<\/returncode>\n<output>\nshop\/cart.py:9: {4}def total/);
    // the sandbox was removed with its snapshot copy
    expect(await sweepWorkspaceVolumes(RUN_ID)).toBe(0);
  });

  it('a write tried in the sandbox itself changes nothing: read-only snapshot, read-only root, unprivileged', async () => {
    const snapshot = shopSnapshot();
    const ws = await workspaces.open(snapshot, { image: options().image, runId: RUN_ID });
    try {
      const attempt = await ws.run(['/bin/sh', '-c', 'echo broken > shop/cart.py; rm -rf shop; touch new.py /tmp/x; mkdir /repo/d; id -u'], {
        timeoutMs: 10_000,
        maxOutputBytes: 100_000,
      });
      expect(attempt.output).toMatch(/Read-only file system/);
      expect(attempt.output.trim().split('\n').at(-1)).toBe('65534');
      const after = await ws.run(['/bin/sh', '-c', 'cat shop/cart.py; find . -type f | sort'], { timeoutMs: 10_000, maxOutputBytes: 100_000 });
      const files = Object.keys(SHOP_FILES)
        .sort()
        .map((f) => `./${f}`);
      expect(after.output).toBe(`${SHOP_FILES['shop/cart.py']}${files.join('\n')}\n`);
      // commands go to one shell session: a command reading stdin gets /dev/null, not the next command
      expect(await ws.run(['cat'], { timeoutMs: 5000, maxOutputBytes: 1000 })).toMatchObject({ exitCode: 0, output: '', timedOut: false });
      expect(await ws.run(['/bin/sh', '-c', 'printf "no newline"; exit 3'], { timeoutMs: 5000, maxOutputBytes: 1000 })).toMatchObject({
        exitCode: 3,
        output: 'no newline',
      });
    } finally {
      await ws.dispose();
    }
  });

  it('a command past its time limit is stopped and says so; the workspace stays usable; long output is cut', async () => {
    scripted.server.setScenario({
      policy: (r) =>
        [bash('cat /dev/zero | wc -c'), bash(`cat /dev/zero | head -c 30000 | tr '\\0' a`), bash('ls shop'), answer(['shop/pricing.py'])][turnOf(r)] ??
        answer([]),
    });
    const loc = await new ExplorerLocalizer(options({ commandTimeoutSeconds: 1, observationChars: 2000 })).localize(
      context(scriptedChatModel(scripted.server)),
    );
    const trajectory = loc.details!.trajectory as Array<{ role: string; content: string }>;
    expect(trajectory[3]!.content).toMatch(/^<returncode>124<\/returncode>\n<warning>The command was stopped after 1 s/);
    expect(trajectory[5]!.content).toContain('<elided_chars>28000 characters elided</elided_chars>');
    expect(trajectory[7]!.content).toContain('pricing.py');
    expect(loc.agent).toMatchObject({ commandTimeouts: 1, commands: 3 });
  });

  it('error rows keep their trajectory: a malformed answer twice, the step limit, the time limit', async () => {
    scripted.server.setScenario({ policy: () => 'THOUGHT: done\n```json\n{"files": "shop/pricing.py"}\n```' });
    const malformed = await new ExplorerLocalizer(options()).localize(context(scriptedChatModel(scripted.server))).then(() => undefined, toStageError);
    expect(malformed).toMatchObject({ kind: 'invalid-answer', details: { agent: { stop: 'invalid-answer', steps: 2, formatErrors: 2 } } });
    expect(lastUserOf(1)).toMatch(/Your final answer could not be read: "files" must be a list/);
    expect((malformed!.details!.usage as { calls: number }).calls).toBe(2);

    scripted.server.reset();
    scripted.server.setScenario({ policy: () => bash('ls') });
    const steps = await new ExplorerLocalizer(options({ maxSteps: 3 }))
      .localize(context(scriptedChatModel(scripted.server)))
      .then(() => undefined, toStageError);
    expect(steps).toMatchObject({ kind: 'max-steps', details: { agent: { steps: 3, commands: 3 } } });
    expect(lastUserOf(2)).toMatch(/This is your last reply/);

    scripted.server.reset();
    scripted.server.setScenario({
      policy: async () => {
        await new Promise((r) => setTimeout(r, 3000));
        return bash('ls');
      },
    });
    const slow = await new ExplorerLocalizer(options({ timeLimitSeconds: 1 }))
      .localize(context(scriptedChatModel(scripted.server)))
      .then(() => undefined, toStageError);
    expect(slow).toMatchObject({ kind: 'explorer-timeout', details: { agent: { stop: 'time' } } });
  });

  it("the run's spend cap stops the explorer mid-search, and its workspace is removed", async () => {
    scripted.server.setScenario({ policy: explorer });
    const budget = new SpendBudget('instance', 'acme__shop-1', { tokens: 1_500 });
    const err = await new SpendScope([budget])
      .run(() => new ExplorerLocalizer(options()).localize(context(scriptedChatModel(scripted.server))))
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BudgetExhaustedError);
    const calls = scripted.server.chatRequests().length;
    expect(calls).toBeGreaterThan(0);
    expect(calls).toBeLessThan(5);
    expect(budget.spent.calls).toBe(calls);
    expect(await sweepWorkspaceVolumes(RUN_ID)).toBe(0);
  });

  it('needs a model and a sandbox, and is in the registry with checked options', async () => {
    // what it needs is in its type: a context without the model or the sandbox does not compile, and the stage's
    // one check refuses one at run time, naming what is missing
    // @ts-expect-error a bare context lacks the model and the sandbox the explorer declared
    void (() => new ExplorerLocalizer(options()).localize(bareContext(undefined)));
    expect(() => context(undefined)).toThrow(expect.objectContaining({ kind: 'configuration', message: expect.stringMatching(/needs model/) }));
    const { workspace: _, ...noSandbox } = bareContext(scriptedChatModel(scripted.server));
    expect(() => withCapabilities(noSandbox, ['model', 'workspace'])).toThrow(/needs workspace/);
    expect((await createLocalizer('explorer', { maxSteps: 5 })).name).toBe('explorer');
    await expect(createLocalizer('explorer', { maxStep: 5 })).rejects.toThrow(/unknown option/);
  });
});

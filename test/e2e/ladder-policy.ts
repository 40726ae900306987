/**
 * A scripted model for the counterfactual ladder (`locfix ladder`): unlike PipelinePolicy, which steers each
 * instance to a category whatever it is shown, this one answers from what the prompt shows, as a model whose
 * only weakness is one level of localization:
 *
 *   file      it ranks wrong files (and names the gold one irrelevant); shown the gold file, it does the rest well
 *   function  it ranks the gold file, but names another of its functions; shown the gold function, it does the rest
 *   line      it names the gold function, but another function at line level; shown the gold lines, it fixes them
 *   repair    it localizes well, and never writes a useful edit: no localization fixes it
 *   none      it does everything well
 *
 * At every level it answers well only about code it was shown: shown no gold file, it names the first function it
 * sees; asked to repair code that does not hold the gold edit's lines, it writes a harmless no-op. So perfect
 * localization from the gold patch (the ladder's oracle rungs) fixes exactly the instances whose weakness the
 * oracle covers. The answers depend only on the request, so a replay of them is exact.
 */
import type { ScriptedChatRequest, ScriptedReply } from '../support/scripted-model-server.ts';
import { goldEdits } from '../support/gold-edits.ts';
import {
  block,
  firstNumberedFunction,
  firstShownFunction,
  issueKey,
  locations,
  noOpAtGoldLine,
  noOpInFirstShownFunction,
  reproducerFor,
  shownFiles,
  stageOfRequest,
  type InstanceScript,
} from './pipeline-policy.ts';

export type Weakness = 'file' | 'function' | 'line' | 'repair' | 'none';

export class LadderPolicy {
  private readonly weakness = new Map<string, Weakness>();
  readonly unplaced: string[] = [];

  constructor(
    private readonly scripts: readonly InstanceScript[],
    plan: Record<string, Weakness>,
  ) {
    for (const [id, w] of Object.entries(plan)) this.weakness.set(id, w);
  }

  readonly respond = (request: ScriptedChatRequest): ScriptedReply | undefined => {
    const stage = stageOfRequest(request);
    const script = this.scripts.find((s) => request.text.includes(issueKey(s.instance)));
    const weakness = script && this.weakness.get(script.instance.instance_id);
    if (!script || !weakness || stage === 'unknown') {
      this.unplaced.push(`${stage} / ${script?.instance.instance_id ?? 'unknown instance'}: ${request.lastUser.slice(0, 120)}`);
      return undefined;
    }
    const gold = script.goldFile;
    const goldFn = script.goldFunction.split('.').at(-1)!;
    switch (stage) {
      case 'files':
        return `\`\`\`\n${(weakness === 'file' ? script.wrongFiles : [gold, ...script.wrongFiles].slice(0, 3)).join('\n')}\n\`\`\``;
      case 'irrelevant':
        return weakness === 'file' ? `\`\`\`\n${gold}\n\`\`\`` : '```\n```';
      case 'related': {
        if (!request.lastUser.includes(`### File: ${gold} ###`)) {
          const shown = firstShownFunction(request.lastUser) ?? script.wrongFunction;
          return shown ? locations(shown.path, shown.name) : 'nothing relevant';
        }
        return locations(gold, weakness === 'function' ? script.otherFunction : script.goldFunction);
      }
      case 'lines': {
        const goldShown = request.lastUser.includes(`### ${gold}\n`) && new RegExp(`^\\d+\\|\\s*def ${goldFn}\\(`, 'm').test(request.lastUser);
        if (!goldShown) {
          const shown = firstNumberedFunction(request.lastUser) ?? script.wrongFunction;
          return shown ? locations(shown.path, shown.name) : 'nothing relevant';
        }
        return locations(gold, weakness === 'line' ? script.otherFunction : script.goldFunction);
      }
      case 'repair': {
        const edits = goldEdits(script.instance);
        const shown = shownFiles(request.lastUser);
        const visible = edits.every((e) => {
          const file = shown.find((f) => f.path === e.path);
          return file !== undefined && e.search.every((line) => file.lines.includes(line));
        });
        if (weakness !== 'repair' && visible) return 'The fix:\n\n' + edits.map(block).join('\n\n');
        if (weakness === 'repair' && visible) return block(noOpAtGoldLine(script.instance));
        const edit = noOpInFirstShownFunction(request.lastUser);
        return edit ? block(edit) : 'no function shown';
      }
      case 'regression':
        return '```\n```';
      case 'reproduction':
        return '```python\n' + reproducerFor(script) + '```';
      default:
        this.unplaced.push(`${stage} / ${script.instance.instance_id}: the ladder's policy has no BLAgent answers`);
        return undefined;
    }
  };
}

/**
 * The command line: `localize --localizer oracle`, then `localize-functions`, `localize-lines`,
 * `agentless-export` and `agentless-import` as subprocesses against the scripted model server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildMiniBenchmark, type MiniBenchBuild } from '../../src/minibench/build.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import type { StageArtifact } from '../../src/run/stage-runner.ts';
import type { LineStageOutput } from '../../localizer/hierarchy/stage.ts';
import { useScriptedModelServer } from '../support/scenario-helpers.ts';

const exec = promisify(execFile);
const BIN = path.resolve(import.meta.dirname, '../../bin/locfix.js');
const scripted = useScriptedModelServer();
let dir: string;
let bench: MiniBenchBuild;

function locfix(args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
  return exec(process.execPath, [BIN, ...args], { env: { ...process.env, LOCFIX_CACHE_DIR: path.join(dir, 'cache') }, maxBuffer: 1 << 24 })
    .then((r) => ({ ...r, code: 0 }))
    .catch((e: { stdout: string; stderr: string; code: number }) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }));
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-agentless-cli-'));
  bench = await buildMiniBenchmark(path.join(dir, 'minibench'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true, maxRetries: 5 });
});

describe('locfix localize-functions / localize-lines / agentless-export / agentless-import', () => {
  it('runs the hierarchy after the oracle localizer and round-trips through loc_outputs.jsonl', async () => {
    const id = 'minibench__confetti-5';
    const common = ['--dataset', bench.datasetPath, '--instances', id, '--mirrors', bench.mirrorsDir, '--cache-dir', path.join(dir, 'cache')];
    const run = path.join(dir, 'runs', 'cli');
    const llm = ['--llm', `openai:scripted@${scripted.server.openaiURL}`];
    scripted.server.setScenario({
      policy: (r, sample) =>
        r.lastUser.includes('skeletons of the relevant files')
          ? '```\nconfetti/types.py\nfunction: to_bool\n```'
          : r.lastUser.includes('places that have to be edited')
            ? `\`\`\`\nconfetti/types.py\nline: ${12 + sample}\n\`\`\``
            : undefined,
    });
    const loc = await locfix(['localize', '--localizer', 'oracle', ...common, '--out', run]);
    expect(loc.code, loc.stderr).toBe(0);
    const fn = await locfix(['localize-functions', ...common, ...llm, '--out', run]);
    expect(fn.code, fn.stderr).toBe(0);
    expect(fn.stderr).toMatch(/1 of 1 instances ok/);
    const ln = await locfix(['localize-lines', ...common, ...llm, '--out', run, '--stage-options', '{"samples":2}']);
    expect(ln.code, ln.stderr).toBe(0);
    const artifact = JSON.parse(await readFile(new RunLayout(run).artifactPath('localize-lines', id), 'utf8')) as StageArtifact<LineStageOutput>;
    expect(artifact.output!.locationSets).toEqual([
      { files: [{ path: 'confetti/types.py', ranges: [{ start: 12, end: 12 }], elements: ['line: 12'] }] },
      { files: [{ path: 'confetti/types.py', ranges: [{ start: 13, end: 13 }], elements: ['line: 13'] }] },
    ]);

    const jsonl = path.join(dir, 'loc_outputs.jsonl');
    const ex = await locfix(['agentless-export', run, '--to', jsonl]);
    expect(ex.code, ex.stderr).toBe(0);
    const record = JSON.parse((await readFile(jsonl, 'utf8')).trim());
    expect(record.found_edit_locs).toEqual([{ 'confetti/types.py': ['line: 12'] }, { 'confetti/types.py': ['line: 13'] }]);
    const run2 = path.join(dir, 'runs', 'imported');
    const im = await locfix(['agentless-import', jsonl, ...common, '--out', run2]);
    expect(im.code, im.stderr).toBe(0);
    const imported = JSON.parse(await readFile(new RunLayout(run2).artifactPath('localize-lines', id), 'utf8')) as StageArtifact<LineStageOutput>;
    expect(imported.output!.locationSets).toEqual(artifact.output!.locationSets);

    // without a model the hierarchy stages refuse clearly
    const noLlm = await locfix(['localize-functions', ...common, '--out', run]);
    expect(noLlm.code).not.toBe(0);
    expect(noLlm.stderr).toMatch(/needs? a chat model/);
  }, 600_000);
});

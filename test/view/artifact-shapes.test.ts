/**
 * Artifacts the pages do not expect (an older locfix's shape, a hand edit, a truncated trace) still give the
 * instance page: the stage says it could not be shown as usual, and why, and shows the artifact's JSON.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Catalogue } from '../../app/view/catalogue.ts';
import { viewApp } from '../../app/view/server.ts';
import { RunLayout } from '../../src/run/run-layout.ts';
import { EXAMPLE_ROW } from './fixture-runs.ts';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'locfix-view-shapes-'));
  const row = EXAMPLE_ROW;
  await writeFile(path.join(dir, 'rows.jsonl'), `${JSON.stringify(row)}\n`);
  const layout = new RunLayout(path.join(dir, 'old-run'));
  await mkdir(layout.stageDir('localize-files'), { recursive: true });
  // an older `locfix retrieve` wrote `ranking`, not `files`, and this trace lost its call record
  const artifact = {
    stage: 'localize-files',
    instanceId: row.instance_id,
    status: 'ok',
    startedAt: '2026-01-01T00:00:00.000Z',
    finishedAt: '2026-01-01T00:00:01.000Z',
    durationMs: 1000,
    attempt: 1,
    output: { localizer: 'retrieval', ranking: ['widget/core.py'], trace: [{ type: 'llm', step: 'files' }] },
  };
  await writeFile(layout.artifactPath('localize-files', row.instance_id), JSON.stringify(artifact));
  const selection = { stage: 'localize-files', dataset: path.join(dir, 'rows.jsonl'), instances: [row.instance_id], gold: {}, createdAt: '', settings: {} };
  await writeFile(layout.selectionPath('localize-files'), JSON.stringify(selection));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('an artifact of an unexpected shape', () => {
  it('is shown as its JSON with the reason, and the page still answers', async () => {
    const app = viewApp(await Catalogue.open([path.join(dir, 'old-run')]));
    const response = await app.request('/runs/old-run/instances/acme__widget-1');
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toMatch(/could not be shown as usual/);
    expect(page).toContain('widget/core.py');
    expect(page).toContain('<h2 id="localize-functions">');
  });
});

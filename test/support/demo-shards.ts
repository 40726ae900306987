/**
 * The demo pipeline (replayed from the bundled recording, so no model is needed) in the form a split run
 * takes: the demo's cascade escalates a share of the run, which a shard would rank within itself, so split
 * runs use a threshold instead — the one that escalates the same instances as the recorded run's share,
 * read from the kept retrieval answers of a quick run in one piece without Docker.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runExperiment } from '../../app/engine/experiment.ts';
import { parseRunConfig, type RunConfigInput } from '../../src/config.ts';
import type { MiniBenchBuild } from '../../src/minibench/build.ts';
import { DEMO_RECORDING_DIR, demoRunConfig, type DemoRecordingFile } from '../../src/minibench/demo-run.ts';

export async function readDemoRecording(): Promise<DemoRecordingFile> {
  return JSON.parse(await readFile(path.join(DEMO_RECORDING_DIR, 'recording.json'), 'utf8')) as DemoRecordingFile;
}

/** The demo's run config under `dir`, replaying the bundled recording. */
export function demoConfigIn(dir: string, bench: MiniBenchBuild, recording: DemoRecordingFile, runId: string, docker: boolean): RunConfigInput {
  return demoRunConfig({
    runId,
    runsDir: path.join(dir, 'runs'),
    datasetPath: bench.datasetPath,
    mirrorsDir: bench.mirrorsDir,
    cacheDir: path.join(dir, 'cache'),
    llm: `replay:${DEMO_RECORDING_DIR}`,
    instances: recording.instances,
    docker,
  });
}

/** The demo config for a split run: the cascade escalates by a top-margin threshold equivalent to the recorded share. */
export async function splitDemoConfig(dir: string, bench: MiniBenchBuild, recording: DemoRecordingFile, runId: string): Promise<RunConfigInput> {
  const whole = 'whole-for-threshold';
  await runExperiment(parseRunConfig(demoConfigIn(dir, bench, recording, whole, false)), { log: () => {} });
  const margins: number[] = [];
  for (const id of recording.instances) {
    const part = JSON.parse(await readFile(path.join(dir, 'runs', whole, 'localize-files.parts', id, 'tier-0.json'), 'utf8'));
    margins.push(part.output.confidence['top-margin']);
  }
  const sorted = [...margins].sort((a, b) => a - b);
  const k = Math.round(0.4 * sorted.length);
  const below = (sorted[k - 1]! + sorted[k]!) / 2;
  const tiers = [
    { localizer: 'retrieval', escalate: { signal: 'top-margin', below } },
    { localizer: 'agentless', merge: 'replace' },
  ];
  return { ...demoConfigIn(dir, bench, recording, runId, true), localizer: { name: 'cascade', options: { tiers } } };
}

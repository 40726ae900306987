/**
 * `locfix demo --ladder`: the counterfactual ladder (`locfix ladder`) on the bundled mini-benchmark, replaying the
 * bundled ladder recording (minibench/ladder-recording/, made by `scripts/record-demo.ts --ladder` against a
 * scripted model that is weak at one level of localization per instance). It runs the configuration as it is and
 * with the oracle down to file, function and line level, prints the ladder, and checks that each instance gets the
 * cause of the recorded ladder. Every rung is graded, so it needs Docker and the base image.
 */
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseRunConfig } from '../../src/config.ts';
import { buildMiniBenchmark } from '../../src/minibench/build.ts';
import { ladderDemoConfig, type LadderRecordingFile } from '../../src/minibench/demo-run.ts';
import { renderLadder } from '../../results/ladder-report.ts';
import { runLadder } from '../engine/ladder.ts';

export interface LadderDemoFlags {
  out: string;
  minibench: string;
  cacheDir: string;
  recording: string;
  fresh?: boolean;
}

/** Runs the ladder demo; `dockerMissing` says why the rungs cannot be graded here (then nothing runs). */
export async function demoLadder(flags: LadderDemoFlags, dockerMissing: string | undefined): Promise<void> {
  const log = (line: string) => process.stderr.write(line + '\n');
  if (dockerMissing) {
    log(`demo --ladder: ${dockerMissing}; every rung of the ladder is graded, so the ladder needs Docker and the base image`);
    process.exitCode = 1;
    return;
  }
  const recordingDir = path.resolve(flags.recording);
  const recording = JSON.parse(await readFile(path.join(recordingDir, 'recording.json'), 'utf8')) as LadderRecordingFile;
  log(`demo: building the mini-benchmark in ${flags.minibench} …`);
  const bench = await buildMiniBenchmark(flags.minibench);
  const out = path.resolve(flags.out);
  if (flags.fresh) await rm(out, { recursive: true, force: true });
  log(`demo: REPLAY of the ladder's model answers recorded ${recording.recordedAt} in ${recordingDir} — no model is called`);
  const config = ladderDemoConfig({
    runId: path.basename(out),
    runsDir: path.dirname(out),
    datasetPath: bench.datasetPath,
    mirrorsDir: bench.mirrorsDir,
    cacheDir: path.resolve(flags.cacheDir),
    llm: `replay:${recordingDir}`,
    instances: recording.instances,
  });
  const outcome = await runLadder(parseRunConfig(config), { seeds: 1, log });
  if (!outcome.result) {
    log(`demo --ladder: stopped at ${outcome.stoppedAt?.rung}: ${outcome.stoppedAt?.how}; rerun to go on`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(renderLadder(outcome.result, 'Counterfactual ladder of the mini-benchmark'));
  const differ = outcome.result.instances.filter((i) => recording.causes[i.instanceId] !== i.cause);
  for (const i of differ) process.stdout.write(`${i.instanceId}: cause ${i.cause}, the recorded ladder's ${recording.causes[i.instanceId]}\n`);
  process.stdout.write(`\nThe ladder: ${out}/ladder.md; its rungs: ${out}/rungs/; view them with locfix view ${out}/rungs/*\n`);
  if (differ.length) process.exitCode = 1;
  else process.stdout.write('Every instance got the cause of the recorded ladder.\n');
}

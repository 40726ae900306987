/**
 * The gate of a selection (validation/gate.ts) run with a command's configuration and backend, its progress and
 * table printed: `locfix gate` and `locfix evaluate --gate` share it.
 */
import path from 'node:path';
import type { RunConfig } from '../../src/config.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import type { ExecutionBackend } from '../../src/sandbox/types.ts';
import { describeGate, type GateResult, runGate } from '../../validation/gate.ts';
import { gradingRulesOf } from '../../validation/grading-rules.ts';

/** Runs the gate of `dataset` into `runDir` and prints its table. */
export async function gateRows(run: {
  config: RunConfig;
  dataset: SweInstance[];
  backend: ExecutionBackend;
  runDir: string;
  repeats?: number;
}): Promise<GateResult> {
  const { config } = run;
  let done = 0;
  const total = run.dataset.length * ((run.repeats ?? 1) + 1);
  const gate = await runGate({
    runDir: run.runDir,
    dataset: run.dataset,
    backend: run.backend,
    timeoutMs: config.evaluation.timeoutSeconds * 1000,
    maxWorkers: config.concurrency.sandboxes,
    network: config.evaluation.network,
    grading: gradingRulesOf(config.evaluation),
    repeats: run.repeats ?? 1,
    onProgress: (what, o) => {
      done += 1;
      const state = o.completed ? (o.resolved ? 'resolved' : 'unresolved') : `error: ${o.error}`;
      console.log(`[gate ${done}/${total}] ${what} ${o.instanceId}: ${state}${o.reused ? ' (existing report)' : ''}`);
    },
  });
  console.log([...describeGate(gate), `  written to ${path.join(run.runDir, 'gate.json')}`].join('\n'));
  return gate;
}

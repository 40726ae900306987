/**
 * Where a run keeps its files. Every stage writes one atomic JSON artifact per instance:
 *
 *   runs/<id>/manifest.json                  config, versions, models, seeds, start/end times
 *   runs/<id>/<stage>/<instance>.json        a StageArtifact (status, timings, output or error)
 *   runs/<id>/<stage>.selection.json         the instances a stage command selected, with their gold files
 *   runs/<id>/evaluation/<instance>/…        harness logs and report.json
 *
 * A stage is resumable because "done" means "its artifact exists"; a kill at any moment loses at most the
 * instances that were in flight in that stage.
 */
import path from 'node:path';
import { safeFileName } from '../util/fsx.ts';

/**
 * The instances a stage command selected (in order) and their gold files. It lists every selected instance,
 * so metrics keep failed and never-finished instances in the denominator.
 */
export interface StageSelection {
  stage: string;
  dataset: string;
  /** every selected instance id, in processing order */
  instances: string[];
  /** gold files per instance, from the reference patch (absent when the dataset has no patch) */
  gold: Record<string, string[]>;
  createdAt: string;
  settings: Record<string, unknown>;
}

export class RunLayout {
  constructor(readonly root: string) {}

  get id(): string {
    return path.basename(this.root);
  }

  stageDir(stage: string): string {
    return path.join(this.root, stage);
  }

  artifactPath(stage: string, instanceId: string): string {
    return path.join(this.stageDir(stage), `${safeFileName(instanceId)}.json`);
  }

  selectionPath(stage: string): string {
    return path.join(this.root, `${stage}.selection.json`);
  }

  get manifestPath(): string {
    return path.join(this.root, 'manifest.json');
  }

  file(...parts: string[]): string {
    return path.join(this.root, ...parts);
  }
}

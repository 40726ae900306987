/**
 * Definition boost: files that *define* what the issue names. A class or function named in a traceback,
 * in backticks or in a code block is usually defined in (or next to) the file to change. A name defined in
 * many files says little about any one of them, so its weight is spread: each defining file gets
 * weight / n^spread. `Class.method` mentions add weight to the file whose qualified definition matches.
 */
import type { Definition } from '../../src/parsing/types.ts';
import type { MentionSource, StructuralSignals } from './structural-query.ts';

export interface DefinitionLookup {
  /** every definition of this bare name (class, function or method) in the indexed files */
  definitionsOf(name: string): readonly Definition[];
}

export interface DefinitionBoostSettings {
  mentionWeights: Record<MentionSource, number>;
  qualifiedWeight: number;
  definitionSpreadExponent: number;
  maxDefiningFiles: number;
}

export interface DefinitionEvidence {
  path: string;
  name: string;
  qualifiedName: string;
  startLine: number;
  endLine: number;
  weight: number;
}

export function definitionScores(
  signals: StructuralSignals,
  index: DefinitionLookup,
  settings: DefinitionBoostSettings,
): { scores: Map<string, number>; evidence: DefinitionEvidence[] } {
  const scores = new Map<string, number>();
  const evidence: DefinitionEvidence[] = [];
  const credit = (def: Definition, weight: number): void => {
    scores.set(def.path, (scores.get(def.path) ?? 0) + weight);
    evidence.push({ path: def.path, name: def.name, qualifiedName: def.qualifiedName, startLine: def.startLine, endLine: def.endLine, weight });
  };

  for (const mention of signals.names) {
    const defs = index.definitionsOf(mention.name);
    if (defs.length === 0) continue;
    const byFile = new Map<string, Definition>();
    for (const d of defs) if (!byFile.has(d.path)) byFile.set(d.path, d);
    if (byFile.size > settings.maxDefiningFiles) continue;
    const weight = settings.mentionWeights[mention.source] / Math.pow(byFile.size, settings.definitionSpreadExponent);
    for (const def of byFile.values()) credit(def, weight);
  }

  for (const qualified of signals.qualifiedNames) {
    const member = qualified.slice(qualified.lastIndexOf('.') + 1);
    const matches = index.definitionsOf(member).filter((d) => d.qualifiedName === qualified || d.qualifiedName.endsWith(`.${qualified}`));
    const files = new Map<string, Definition>();
    for (const d of matches) if (!files.has(d.path)) files.set(d.path, d);
    if (files.size === 0 || files.size > settings.maxDefiningFiles) continue;
    const weight = settings.qualifiedWeight / Math.pow(files.size, settings.definitionSpreadExponent);
    for (const def of files.values()) credit(def, weight);
  }
  return { scores, evidence };
}

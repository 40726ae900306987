/**
 * Every structural feature, per language, on a small repository the test writes itself: the language's
 * fixture file (test/fixtures/languages/: a type, a method, a nested function, an impl block or receiver,
 * an import) at a source path, beside a test file, a vendored copy and a README. For each language:
 * - the index takes only the source file, and says why it left out the others;
 * - chunks carry the path line and the qualified names of what they hold;
 * - BLAgent's skeleton shows the method's signature without its body;
 * - Agentless' related-elements step shows the compressed file fenced for its language, and the model's
 *   `class:`/`function:` answer resolves to the definitions' lines; its line-level step then shows those
 *   lines numbered and reads a `line:` answer;
 * - the repair syntax check accepts the file and rejects it with its closing delimiter removed.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fittedSkeleton } from '../../localizer/blagent/index.ts';
import { localizeEditLocations } from '../../localizer/hierarchy/edit-locations.ts';
import { localizeRelatedElements } from '../../localizer/hierarchy/related-elements.ts';
import { PythonAnalyzer } from '../../repair/analyzer.ts';
import { checkSyntax } from '../../repair/syntax.ts';
import type { SweInstance } from '../../src/dataset/schema.ts';
import { LexicalEmbedder } from '../../src/embedding/lexical.ts';
import { buildRepoIndex } from '../../src/index/repo-index.ts';
import type { ChatModel, ChatRequest } from '../../src/llm/types.ts';
import { extractDefinitions } from '../../src/parsing/definitions.ts';
import { languageForPath } from '../../src/languages/index.ts';
import { parserForPath } from '../../src/parsing/parsers.ts';
import { MemoryVectorStore } from '../../src/vectorstore/memory.ts';
import { MemorySnapshot } from '../support/memory-snapshot.ts';

const FIXTURES = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/languages');

interface LanguageRepo {
  fixture: string;
  /** where the fixture file lives in the repository */
  source: string;
  /** a test file by the ecosystem's naming, and a vendored file: both never indexed */
  test: string;
  vendored: string;
  fence: string;
  /** a type and one of its methods (qualified), as the model names them */
  type: string;
  method: string;
  /** the method's skeleton line, and a line of its body that the skeleton must not show */
  signature: string;
  bodyLine: string;
  /** a line of a multi-line body that Agentless' compressed view leaves out (one-line bodies stay) */
  compressedAway?: string;
}

const REPOS: LanguageRepo[] = JSON.parse(readFileSync(path.join(FIXTURES, '../language-repos.json'), 'utf8'));

/** A chat model that answers every request with the same text (per sample). */
function answering(text: string): ChatModel & { prompts: string[] } {
  const prompts: string[] = [];
  return {
    id: 'fixed:answer',
    prompts,
    async chat(request: ChatRequest) {
      prompts.push(request.messages.map((m) => m.content).join('\n'));
      const usage = { promptTokens: 1, completionTokens: 1, cost: 0 };
      return { model: 'fixed', choices: Array.from({ length: request.n ?? 1 }, () => ({ content: text })), usage, cached: false, latencyMs: 0 };
    },
  };
}

const instance = (repo: string): SweInstance =>
  ({ instance_id: `${repo.replace('/', '__')}-1`, repo, base_commit: 'c'.repeat(40), problem_statement: 'The method misbehaves.', patch: '' }) as SweInstance;

describe.each(REPOS)('a $fence repository', (lang) => {
  const content = readFileSync(path.join(FIXTURES, lang.fixture), 'utf8');
  const files = { [lang.source]: content, [lang.test]: content, [lang.vendored]: content, 'README.md': '# fixture\n' };
  const snapshot = new MemorySnapshot(`fixtures/${lang.fence}`, 'c'.repeat(40), files);
  const definitions = extractDefinitions(lang.source, content);
  const definition = (name: string) => definitions.find((d) => d.qualifiedName === name)!;

  it('indexes the source file only, with chunks named by what they hold and a reason for every other file', async () => {
    const cacheDir = await mkdtemp(path.join(os.tmpdir(), 'locfix-langrepo-'));
    const index = await buildRepoIndex(snapshot, {
      embedder: new LexicalEmbedder({ dims: 64 }),
      vectorStore: new MemoryVectorStore(),
      cacheDir,
      persistParsedFiles: false,
    });
    expect(index.filePaths).toEqual([lang.source]);
    const skipped = lang.vendored.includes('min.js') ? 'minified' : /^(dist|build|target)\//.test(lang.vendored) ? 'build-output' : 'vendored';
    expect(index.fileSelection?.counts).toEqual({ indexed: 1, test: 1, [skipped]: 1, 'not-source': 1 });
    const chunks = index.chunksOfFile(lang.source);
    expect(chunks.length).toBeGreaterThan(0);
    for (const c of chunks) expect(c.text.startsWith(`# file: ${lang.source}\n`)).toBe(true);
    expect(index.definitionsByQualifiedName(lang.method).map((d) => d.path)).toEqual([lang.source]);
    // split small, the chunks holding the method are named by it
    const { chunkFile } = await import('../../src/parsing/chunker.ts');
    const small = await chunkFile(lang.source, content, { maxChars: 60 });
    const m = definition(lang.method);
    // (the last piece of a member also takes the closing lines of its type)
    const inMethod = small.filter((c) => c.startLine >= m.startLine && c.startLine <= m.endLine);
    expect(inMethod.length).toBeGreaterThan(0);
    for (const c of inMethod) expect(c.symbol).toBe(lang.method);
  });

  it('shows the skeleton: signatures, no bodies', () => {
    const skeleton = fittedSkeleton(content, 2000, parserForPath(lang.source));
    expect(skeleton.split('\n')).toContain(lang.signature);
    expect(skeleton).not.toContain(lang.bodyLine);
  });

  it('localizes to the function and line level through the Agentless hierarchy', async () => {
    const m = definition(lang.method);
    const type = definition(lang.type);
    const related = answering(`\`\`\`\n${lang.source}\nclass: ${lang.type}\nfunction: ${lang.method}\n\`\`\``);
    const out = await localizeRelatedElements({ instance: instance(snapshot.repo), snapshot, files: [lang.source] }, { llm: related });
    expect(related.prompts[0]).toContain(`\`\`\`${lang.fence}\n`);
    // the answer format's example paths are in the file's language
    expect(related.prompts[0]).toContain(`path/to/first${languageForPath(lang.source)!.extensions[0]}\n`);
    expect(related.prompts[0]).not.toContain('path/to/first.py');
    const away = lang.compressedAway ?? (lang.fence === 'cpp' ? undefined : lang.bodyLine);
    if (away) expect(related.prompts[0]).not.toContain(away); // multi-line bodies are compressed away
    expect(out.unresolved).toEqual([]);
    expect(out.elements.map((e) => [e.name, e.range])).toEqual([
      [type.qualifiedName, { start: type.startLine, end: type.endLine }],
      [m.qualifiedName, { start: m.startLine, end: m.endLine }],
    ]);

    const lines = answering(`\`\`\`\n${lang.source}\nline: ${m.startLine + 1}\n\`\`\``);
    const edit = await localizeEditLocations(
      { instance: instance(snapshot.repo), snapshot, files: [lang.source], related: out.locations },
      { llm: lines },
      { samples: 1 },
    );
    expect(lines.prompts[0]).toContain(`${m.startLine + 1}|`);
    expect(edit.locationSets[0]?.files.map((f) => f.path)).toEqual([lang.source]);
  });

  it('checks the syntax of a repaired file with its own grammar', async () => {
    const analyzer = await PythonAnalyzer.create();
    expect(checkSyntax(lang.source, content, content, analyzer).ok).toBe(true);
    const closer = lang.fence === 'ruby' ? 'end' : '}';
    const at = content.lastIndexOf(closer);
    const broken = content.slice(0, at) + content.slice(at + closer.length);
    const verdict = checkSyntax(lang.source, content, broken, analyzer);
    expect(verdict.ok).toBe(false);
    expect(verdict.errorNodes).toBeGreaterThan(0);
  });
});

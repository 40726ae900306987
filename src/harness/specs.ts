/**
 * Per-repository, per-version environment specs, kept as data in each language folder's `specs.json`
 * (src/languages/<language>/) and the mini-benchmark's in `src/harness/specs/`, read without Docker.
 *
 * A spec file maps a repository pattern ("owner/name", or "owner/*") to groups of versions that share the
 * same facts. Version "*" matches any version. The facts follow the SWE-bench harness'
 * MAP_REPO_VERSION_TO_SPECS (test_cmd, install, eval_commands, …) plus locfix's own offline-build fields:
 *   env_from        "base": the environment layer is built on the base image
 *   env_setup       commands run (without network) on top of env_from to make the environment image
 *   instance_setup  commands run in /testbed after the checkout is copied in (defaults to the harness'
 *                   `install` command when a user-named environment image is used)
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { HARNESS_LANGUAGES, type HarnessLanguage, SPEC_FILES } from '../languages/index.ts';

const commandList = z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(z.string()));

export const EnvSpecSchema = z
  .object({
    /** one command (Python: the test directives are appended) or several run in order (other languages) */
    test_cmd: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
    /** other languages: commands run after the test patch is applied and before the tests (compile) */
    build: commandList.optional(),
    python: z.string().optional(),
    packages: z.string().optional(),
    pip_packages: z.array(z.string()).optional(),
    pre_install: commandList.optional(),
    /** the repository's install commands (Python: one; other languages: several) */
    install: commandList.optional(),
    eval_commands: commandList.optional(),
    env_from: z.literal('base').optional(),
    env_setup: commandList.optional(),
    instance_setup: commandList.optional(),
  })
  .passthrough();
export type EnvSpec = z.infer<typeof EnvSpecSchema>;

/** The harness' language keys (MAP_REPO_TO_EXT), one per language folder: a spec names its repository's. */
export const SPEC_LANGUAGES = HARNESS_LANGUAGES;
export type SpecLanguage = HarnessLanguage;

const RepoEntrySchema = z.object({
  /** the repository's language as the harness keys it; decides the eval script's form (default py) */
  language: z.enum(SPEC_LANGUAGES).default('py'),
  /** the test-log format (the language folders' log parsers own the names; grading checks them) */
  log_parser: z.string().min(1),
  /**
   * how test directives come out of the test patch: file paths, Django's dotted test modules, or none (the
   * other languages' test commands name what they run)
   */
  test_directives: z.enum(['paths', 'django_modules', 'none']).default('paths'),
  groups: z.array(z.object({ versions: z.array(z.string()).min(1), spec: EnvSpecSchema })).min(1),
});

const SpecFileSchema = z.object({ repos: z.record(z.string(), RepoEntrySchema) });

export interface ResolvedSpec {
  repo: string;
  version: string;
  /** the pattern of the spec file entry that matched */
  pattern: string;
  language: SpecLanguage;
  logParser: string;
  testDirectives: 'paths' | 'django_modules' | 'none';
  spec: EnvSpec;
}

/** The spec's test commands in order. */
export function testCommandsOf(spec: EnvSpec): string[] {
  return typeof spec.test_cmd === 'string' ? [spec.test_cmd] : [...spec.test_cmd];
}

/** A Python spec's one test command, to which the directives are appended (a list means its last command). */
export function pythonTestCommand(spec: EnvSpec): string {
  return testCommandsOf(spec).at(-1)!;
}

type RepoEntry = z.infer<typeof RepoEntrySchema>;

export class SpecRegistry {
  private readonly entries = new Map<string, RepoEntry>();

  /** Adds the entries of a parsed spec file; later files override earlier ones for the same pattern. */
  add(data: unknown, source = 'spec data'): this {
    const parsed = SpecFileSchema.safeParse(data);
    if (!parsed.success) throw new Error(`${source}: invalid spec file: ${parsed.error.message}`);
    for (const [pattern, entry] of Object.entries(parsed.data.repos)) this.entries.set(pattern, entry);
    return this;
  }

  addFile(file: string): this {
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`${file}: cannot read spec file: ${err instanceof Error ? err.message : String(err)}`);
    }
    return this.add(data, file);
  }

  /** The spec for `repo` at `version`; undefined when no entry matches. */
  find(repo: string, version: string | undefined): ResolvedSpec | undefined {
    const owner = repo.split('/')[0];
    const pattern = this.entries.has(repo) ? repo : this.entries.has(`${owner}/*`) ? `${owner}/*` : undefined;
    if (!pattern) return undefined;
    const entry = this.entries.get(pattern)!;
    const v = version ?? '';
    const group = entry.groups.find((g) => g.versions.includes(v)) ?? entry.groups.find((g) => g.versions.includes('*'));
    if (!group) return undefined;
    return { repo, version: v, pattern, language: entry.language, logParser: entry.log_parser, testDirectives: entry.test_directives, spec: group.spec };
  }

  /** Like `find`, but a missing spec is an error that names what is missing. */
  get(repo: string, version: string | undefined): ResolvedSpec {
    const found = this.find(repo, version);
    if (found) return found;
    const known = this.entries.has(repo) || this.entries.has(`${repo.split('/')[0]}/*`);
    throw new Error(
      known
        ? `no environment spec for ${repo} version ${JSON.stringify(version ?? '')}; add the version to its language folder's specs.json (src/languages/)`
        : `no environment spec for repository ${repo}; add one to its language folder's specs.json (src/languages/)`,
    );
  }
}

/** The mini-benchmark's specs: data beside this file (its repositories are locfix's own fixtures). */
const SPEC_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), 'specs');

/** The specs shipped with locfix: each language folder's specs.json, then src/harness/specs/*.json in name order. */
export function loadBuiltinSpecs(): SpecRegistry {
  const registry = new SpecRegistry();
  for (const file of SPEC_FILES) registry.addFile(file);
  for (const name of readdirSync(SPEC_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    registry.addFile(path.join(SPEC_DIR, name));
  }
  return registry;
}

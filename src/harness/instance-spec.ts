/**
 * What would run for one instance, as one value computed without Docker (the SWE-bench harness'
 * TestSpec): the resolved environment spec, the test directives taken from the test patch, the eval
 * script, and the name of the harness' prebuilt image. Image builders, evaluation and validation all read
 * it, so "what is run" is decided here once.
 */
import type { SweInstance } from '../dataset/schema.ts';
import { harnessEvalScript, makeCommonEvalScript, makeEvalScript, testDirectives, type EvalScriptOptions } from './eval-script.ts';
import { END_TEST_OUTPUT, START_TEST_OUTPUT, TEST_EXIT_CODE_VAR } from './constants.ts';
import { loadBuiltinSpecs, type ResolvedSpec, type SpecRegistry } from './specs.ts';
import { languageEvaluation, languageOfParser } from '../languages/index.ts';

export interface InstanceSpec {
  instanceId: string;
  repo: string;
  version: string;
  baseCommit: string;
  spec: ResolvedSpec;
  /** the test files (or Django test modules) the test command runs, from the test patch */
  testDirectives: string[];
  /** the harness' name for the prebuilt evaluation image of this instance (x86_64; `officialImageName` for arm64) */
  officialImage: string;
  /** the eval script; `prelude` and `runInstall` depend on the image it runs in. A 5.0 row's own script is what
   * runs in the official image (`official`), as the harness runs it; locfix's images get the script it writes */
  evalScript(options?: EvalScriptOptions & { official?: boolean }): string;
}

/** the architectures official image names carry */
export const IMAGE_ARCHS = ['x86_64', 'arm64'] as const;
export type ImageArch = (typeof IMAGE_ARCHS)[number];

/** The harness' name for the prebuilt evaluation image of an instance. */
export function officialImageName(instanceId: string, arch: ImageArch = 'x86_64', namespace = 'swebench', tag = 'latest'): string {
  return `${namespace}/sweb.eval.${arch}.${instanceId.replace(/__/g, '_1776_')}:${tag}`.toLowerCase();
}

let builtin: SpecRegistry | undefined;

/**
 * A 5.0 row of a repository no shipped spec covers: it carries its eval script, parser and image, which
 * is all the harness needs. Its spec is what the row says: the test commands between the script's markers, the
 * row's parser, the language of that parser's runner (JavaScript otherwise); no offline build recipe, so without
 * its official image it fails naming the image.
 */
function specOfRow(instance: SweInstance): ResolvedSpec | undefined {
  if (!instance.eval_script || !instance.log_parser) return undefined;
  const logParser = instance.log_parser.replace(/^parse_log_/, '');
  const lines = instance.eval_script.split('\n');
  const start = lines.findIndex((l) => l.includes(START_TEST_OUTPUT));
  const end = lines.findIndex((l) => l.includes(END_TEST_OUTPUT));
  const commands = start >= 0 && end > start ? lines.slice(start + 1, end).filter((l) => l.trim() && !l.startsWith(`${TEST_EXIT_CODE_VAR}=`)) : [];
  const language = languageOfParser(logParser) ?? 'js';
  return {
    repo: instance.repo,
    version: instance.version ?? '',
    pattern: instance.repo,
    language,
    logParser,
    testDirectives: 'none',
    spec: { test_cmd: commands.length ? commands : ['true'] },
  };
}

/** The spec of an instance; throws when no spec covers its repository and version (the message says which). */
export function makeInstanceSpec(instance: SweInstance, specs: SpecRegistry = (builtin ??= loadBuiltinSpecs())): InstanceSpec {
  const found = specs.find(instance.repo, instance.version) ?? specOfRow(instance) ?? specs.get(instance.repo, instance.version);
  // a 5.0 row names its own parser (`parse_log_X`, or locfix's name X)
  const spec = instance.log_parser ? { ...found, logParser: instance.log_parser.replace(/^parse_log_/, '') } : found;
  return {
    instanceId: instance.instance_id,
    repo: instance.repo,
    version: spec.version,
    baseCommit: instance.base_commit,
    spec,
    testDirectives: spec.testDirectives === 'none' ? [] : testDirectives(instance.test_patch, spec.testDirectives),
    officialImage: instance.image ?? officialImageName(instance.instance_id),
    // Python's script runs in a conda environment with directives; the others' as the harness' common form
    evalScript: (options) =>
      options?.official && instance.eval_script && !options.testCommand
        ? harnessEvalScript(instance.eval_script)
        : languageEvaluation(spec.language).evalScript === 'python'
          ? makeEvalScript(instance, spec, options)
          : makeCommonEvalScript(instance, spec, options?.testCommand ? { testCommands: [options.testCommand] } : {}),
  };
}

/**
 * Every command-line flag of every command, in one table: one spelling per option. The flags that set a run
 * configuration key come from RUN_FLAGS (run-flags.ts, where each names its key); the rest are below. A command
 * takes its flags by name through `useFlags`, and may word the help for itself or give its own default, never
 * its own spelling. `scripts/check-architecture.ts` refuses an `.option(` anywhere else, so a new flag is added
 * here, where a reader sees whether the same option already has a name.
 */
import type { Command } from 'commander';
import {
  jsonObject,
  nonNegativeNumber,
  oneOf,
  optionName,
  portNumber,
  positiveInt,
  RETRY_ERRORS_FLAG,
  RETRY_ERRORS_HELP,
  retryErrorsValue,
} from './flag-values.ts';
import { RUN_FLAGS } from './run-flags.ts';
import { QUERY_PRESETS } from '../../localizer/retrieval/query.ts';

export interface FlagSpec {
  /** commander's spelling, e.g. "--out <dir>" */
  flag: string;
  description: string;
  default?: unknown;
  /** repeatable: each use is collected into a list */
  repeat?: boolean;
  /** the value's parser (flag-values.ts): text and the flag's spelling → value; a repeatable flag collects the values */
  value?: (text: string, name: string) => unknown;
  /** commander's own parser, for a flag whose uses fold together otherwise (--retry-errors, evaluate's --instances) */
  parse?: (value: string, previous: unknown) => unknown;
}

/** commander's parser of a flag whose values `value` parses: one value, or (repeatable) the list of them. */
function commanderParser(spec: FlagSpec): FlagSpec['parse'] {
  const name = spec.flag.split(/[ ,]/).find((w) => w.startsWith('--'))!;
  const value = spec.value;
  if (!value) return spec.repeat ? collect : undefined;
  if (spec.repeat) return (text, previous) => [...((previous as unknown[] | undefined) ?? []), value(text, name)];
  return (text) => value(text, name);
}

const collect = (value: string, previous: unknown) => [...((previous as string[] | undefined) ?? []), value];

/** Flags of no run configuration key: what a command reads or writes, and how it shows its result. */
const COMMAND_FLAGS = {
  config: { flag: '--config <file>', description: 'JSON run configuration (see README); flags override it' },
  out: { flag: '--out <dir>', description: 'run directory, e.g. runs/my-run' },
  to: { flag: '--to <file>', description: 'output file' },
  json: { flag: '--json', description: 'print JSON' },
  html: { flag: '--html <file>', description: 'also write a self-contained HTML page' },
  retryErrors: { flag: RETRY_ERRORS_FLAG, description: RETRY_ERRORS_HELP, parse: (value: string) => retryErrorsValue(value) },
  label: { flag: '--label <name>', description: 'localizer name recorded in the artifacts' },
  format: { flag: '--format <name>', description: 'the format of the input' },
  arm: { flag: '--arm <name=runs>', description: 'group runs into a named arm, e.g. --arm full=run-1,run-2 (repeatable)', repeat: true },
  stage: { flag: '--stage <name>', description: 'the stage whose artifacts are read' },
  fileStage: { flag: '--file-stage <name>', description: 'the stage whose file ranking is read' },
  stageOptions: { flag: '--stage-options <json>', description: "the stage's options as JSON", value: jsonObject },
  level: { flag: '--level <level>', description: 'file | function' },
  // evaluate
  predictions: { flag: '--predictions <file|gold>', description: 'predictions (JSONL, JSON list or dict), or "gold" for the dataset patches' },
  taskDataset: { flag: '-d, --task-dataset <name>', description: 'with a task repository: only the tasks of this dataset its sweb.yaml publishes' },
  gate: { flag: '--gate', description: "run the gate first: each row's gold patch and empty patch on this machine (gate.json in the run)" },
  // gate
  repeats: { flag: '--repeats <n>', description: 'gold runs per row; 2 or more tell a flaky row (default 1)', value: positiveInt },
  // ladder
  seeds: { flag: '--seeds <n>', description: 'runs of every rung, seeds --seed … --seed + n − 1 (default 1)', value: positiveInt },
  // calibrate
  escalateTo: { flag: '--escalate-to <run>', description: 'the upper tier: a run of the same instances (e.g. an imported BLAgent run)' },
  signal: { flag: '--signal <name>', description: 'the signal the curve escalates on (default: the one with the highest AUROC)' },
  merge: { flag: '--merge <how>', description: 'replace | fuse: how the upper answer merges with the lower', value: oneOf(['replace', 'fuse']) },
  steps: { flag: '--steps <n>', description: 'points of the curve beyond 0 %', value: positiveInt },
  // demo
  minibench: { flag: '--minibench <dir>', description: 'where to build the mini-benchmark' },
  recording: { flag: '--recording <dir>', description: 'the recorded model answers to replay' },
  docker: { flag: '--no-docker', description: 'leave out validation and evaluation even when a sandbox is there' },
  fresh: { flag: '--fresh', description: 'discard an earlier run instead of resuming it' },
  ladder: { flag: '--ladder', description: 'the counterfactual ladder (locfix ladder) instead of one run' },
  // retrieve
  queries: { flag: '--queries <preset>', description: QUERY_PRESETS.join(' | ') },
  queriesFile: { flag: '--queries-file <file>', description: 'JSON {instance_id: [{label, text}]} of queries written by another stage (e.g. T0/T1)' },
  keepEnvironmentReports: {
    flag: '--keep-environment-reports',
    description: 'search the issue exactly as written (default: pip list / show_versions tables are left out)',
  },
  fusion: { flag: '--fusion <method>', description: 'weighted | rrf | learned (the shipped ranker model reorders the weighted fusion)' },
  rankerModel: { flag: '--ranker-model <file>', description: 'with --fusion learned: a model file from npm run ranker:train (default: the shipped one)' },
  poolCap: { flag: '--pool-cap <n>', description: 'candidate pool size (default 15)', value: positiveInt },
  // repair and select
  samplesPerSet: { flag: '--samples-per-set <n>', description: 'samples per location set, the greedy one included', value: positiveInt },
  temperature: { flag: '--temperature <t>', description: 'temperature of the non-greedy samples', value: nonNegativeNumber },
  maxTokens: { flag: '--max-tokens <n>', description: 'completion tokens per sample', value: positiveInt },
  modelName: { flag: '--model-name <name>', description: 'model_name_or_path in the predictions (default: the repair model)' },
  // view
  port: { flag: '--port <n>', description: 'port to listen on (0: any free port)', value: portNumber },
  host: { flag: '--host <address>', description: 'address to listen on; the default serves this machine only' },
  allowHost: {
    flag: '--allow-host <name>',
    description:
      'a further Host name the server answers to, e.g. a DNS name of this machine (repeatable; loopback names, the address and the host name always are)',
    repeat: true,
  },
  export: { flag: '--export <dir>', description: 'write the pages as static HTML to DIR instead of serving them' },
  // images and sweep
  archive: { flag: '--archive <file>', description: 'a `docker save` or `podman save` archive' },
  tree: { flag: '--tree <dir>', description: 'a root filesystem folder, e.g. made by debootstrap' },
  fromEngine: { flag: '--from-engine <image>', description: 'an image of the Docker engine (DOCKER_HOST or the local socket), saved and flattened' },
  keep: { flag: '--keep <level>', description: 'what stays: none | base | env | instance' },
  filter: { flag: '--filter <text>', description: 'only images whose name contains this text' },
  dryRun: { flag: '--dry-run', description: 'list what would be removed, remove nothing' },
} satisfies Record<string, FlagSpec>;

/** The flags of RUN_FLAGS, by option name: their spelling, help and value parser, for every command that takes them. */
function runFlagSpecs(): Record<string, FlagSpec> {
  const specs: Record<string, FlagSpec> = {};
  for (const f of RUN_FLAGS) {
    const name = optionName(f.flag);
    specs[name] = { flag: f.flag, description: f.description, ...(f.repeat ? { repeat: true } : {}), ...(f.parse ? { value: f.parse } : {}) };
  }
  return specs;
}

const RUN_FLAG_SPECS = runFlagSpecs();
for (const name of Object.keys(COMMAND_FLAGS)) {
  if (name in RUN_FLAG_SPECS) throw new Error(`flag-table: ${name} is declared both in RUN_FLAGS and in COMMAND_FLAGS`);
}

/** Every flag, by option name. */
export const FLAGS: Readonly<Record<string, FlagSpec>> = { ...RUN_FLAG_SPECS, ...COMMAND_FLAGS };
export type FlagName = keyof typeof COMMAND_FLAGS | (string & {});

/** What a command may say for itself about a flag: its help, its default, that it is required. */
export interface FlagUse {
  description?: string;
  default?: unknown;
  required?: boolean;
  parse?: FlagSpec['parse'];
}

/** Declares flags from the table on a command, each optionally with the command's own help, default or requirement. */
export function useFlags(command: Command, names: readonly FlagName[], uses: Partial<Record<FlagName, FlagUse>> = {}): Command {
  for (const name of names) {
    const spec = FLAGS[name];
    if (!spec) throw new Error(`flag-table: no flag named ${name}`);
    const use = uses[name] ?? {};
    const description = use.description ?? spec.description;
    const parse = use.parse ?? spec.parse ?? commanderParser(spec);
    const fallback = use.default ?? spec.default ?? (spec.repeat ? [] : undefined);
    const declare = use.required ? command.requiredOption.bind(command) : command.option.bind(command);
    if (parse) declare(spec.flag, description, parse as (value: string, previous: unknown) => unknown, fallback);
    else if (fallback !== undefined) declare(spec.flag, description, fallback as string | boolean | string[]);
    else declare(spec.flag, description);
  }
  return command;
}

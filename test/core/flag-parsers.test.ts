/**
 * A flag's value parser travels with its spelling (app/commands/flag-table.ts): every command that takes a flag gets
 * its value parsed and checked the same way, and none parses it again. Before, `locfix sweep --backend` took any word
 * (and swept Docker), `--concurrency 0` reached the stage commands as the string "0", and `--llm-timeout` was
 * parsed by hand apart from `locfix run`'s parser.
 */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../app/cli.ts';
import { llmFrom } from '../../app/commands/common.ts';

/** The flags a command would act on: its action replaced by one that returns them. */
async function flagsOf(argv: string[]): Promise<Record<string, unknown>> {
  const full = ['node', 'locfix', ...argv];
  const program = await buildProgram(full);
  program.exitOverride();
  let seen: Record<string, unknown> = {};
  const command = program.commands.find((c) => c.name() === argv[0])! as Command;
  command.exitOverride();
  command.action((...args: unknown[]) => {
    seen = (args.at(-2) ?? {}) as Record<string, unknown>;
  });
  await program.parseAsync(full);
  return seen;
}

describe('flag values parsed by their table, for every command', () => {
  it('a stage command gets numbers, checked as `locfix run` checks them', async () => {
    const flags = await flagsOf([
      'localize',
      '--dataset',
      'd.jsonl',
      '--out',
      'o',
      '--limit',
      '3',
      '--concurrency',
      '2',
      '--instances',
      'a, b',
      '--llm-timeout',
      '30',
    ]);
    expect(flags).toMatchObject({ limit: 3, concurrency: 2, instances: ['a', 'b'], llmTimeout: 30_000 });
    await expect(flagsOf(['localize', '--dataset', 'd.jsonl', '--out', 'o', '--concurrency', '0'])).rejects.toThrow(
      '--concurrency expects a positive integer, got "0"',
    );
    await expect(flagsOf(['retrieve', '--dataset', 'd.jsonl', '--out', 'o', '--pool-cap', 'many'])).rejects.toThrow(
      '--pool-cap expects a positive integer, got "many"',
    );
  });

  it('a backend no sandbox kind has is refused by every command, sweep included', async () => {
    await expect(flagsOf(['sweep', '--backend', 'podmn'])).rejects.toThrow(/--backend must be one of local, docker-pool, bwrap, got "podmn"/);
    expect(await flagsOf(['sweep', '--backend', 'bwrap'])).toMatchObject({ backend: 'bwrap' });
  });

  it('--mirror and --localizer-options reach the stage commands parsed, once', async () => {
    const flags = await flagsOf([
      'localize',
      '--dataset',
      'd.jsonl',
      '--out',
      'o',
      '--mirror',
      'psf/requests=/m/r.git',
      '--localizer-options',
      '{"queries":"raw"}',
    ]);
    expect(flags).toMatchObject({ mirror: [['psf/requests', '/m/r.git']], localizerOptions: { queries: 'raw' } });
    await expect(flagsOf(['localize', '--dataset', 'd.jsonl', '--out', 'o', '--mirror', 'requests=/m'])).rejects.toThrow('--mirror expects owner/name=PATH');
  });

  it('the view port and calibrate steps come typed', async () => {
    expect(await flagsOf(['view', 'runs/x', '--port', '0'])).toMatchObject({ port: 0 });
    await expect(flagsOf(['view', 'runs/x', '--port', '70000'])).rejects.toThrow('--port expects a port number (0-65535), got "70000"');
    await expect(flagsOf(['calibrate', 'runs/x', '--merge', 'blend'])).rejects.toThrow('--merge must be one of replace, fuse, got "blend"');
  });

  it('a handoff contract is checked by the table, for run and the hierarchy commands alike', async () => {
    expect(await flagsOf(['localize-functions', '--dataset', 'd.jsonl', '--out', 'o', '--handoff', 'soft'])).toMatchObject({ handoff: 'soft' });
    for (const command of ['localize-functions', 'localize-lines', 'run'])
      await expect(flagsOf([command, '--dataset', 'd.jsonl', '--out', 'o', '--handoff', 'loose'])).rejects.toThrow(
        '--handoff must be one of top, soft, hard, got "loose"',
      );
  });

  it('--llm with its limits, from the parsed values', () => {
    expect(llmFrom({ llm: 'openai:m@http://h/v1', llmTimeout: 30_000, llmRetries: 0 })).toEqual({
      model: 'openai:m@http://h/v1',
      timeoutMs: 30_000,
      maxRetries: 0,
    });
    expect(llmFrom({ llm: 'ollama:q' })).toBe('ollama:q');
  });
});

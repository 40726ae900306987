/**
 * The cause model of stage failures (src/run/failure-cause.ts): each recorded error kind, with the details an
 * LlmError records, is the method's, the infrastructure's or the configuration's; and a replay that holds no
 * answer fails with its own kind.
 */
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/errors.ts';
import { createChatModel } from '../../src/llm/factory.ts';
import { causeOf, describeCause } from '../../src/run/failure-cause.ts';
import { toStageError } from '../../src/run/stage-runner.ts';

describe('failure causes', () => {
  it('reads the class from the kind and the recorded details, never from the message', () => {
    const of = (err: Error) => causeOf(toStageError(err));
    expect(of(new LlmError('connection', 'Connection error.'))).toEqual({ cause: 'model-unreachable', class: 'infrastructure' });
    expect(of(new LlmError('connection', 'anything', { circuitOpen: true }))).toEqual({ cause: 'circuit-open', class: 'infrastructure' });
    expect(of(new LlmError('timeout', 'no answer'))).toEqual({ cause: 'model-timeout', class: 'infrastructure' });
    expect(of(new LlmError('http', 'x', { status: 429 })).cause).toBe('rate-limited');
    expect(of(new LlmError('http', 'x', { status: 503 })).cause).toBe('server-error');
    expect(of(new LlmError('http', 'x', { status: 401 }))).toEqual({ cause: 'model-access', class: 'configuration' });
    expect(of(new LlmError('http', 'context length exceeded', { status: 400 }))).toEqual({ cause: 'bad-request', class: 'method' });
    expect(of(new LlmError('parse', 'unparseable'))).toEqual({ cause: 'unusable-answer', class: 'method' });
    // a recording's gap is no infrastructure that will be back (issue 52)
    expect(of(new LlmError('replay-miss', 'not recorded'))).toEqual({ cause: 'recording-gap', class: 'recording' });
    expect(of(Object.assign(new Error('no mirror'), { kind: 'missing-repo' })).class).toBe('configuration');
    expect(of(new Error('a bug of the stage')).class).toBe('method');
    expect(describeCause(causeOf({ kind: 'connection' }))).toBe('infrastructure (model-unreachable: the model server did not answer)');
  });

  it("evaluation errors by harness 5.0's tiers: the environment's are infrastructure, ambiguous ones stay the method's (issue 41)", () => {
    const evaluation = (error: Record<string, unknown>) => causeOf(error, 'evaluate');
    // before: a test timeout read as a model timeout, and every other evaluation error as the method's
    expect(evaluation({ kind: 'timeout' })).toEqual({ cause: 'tests-timed-out', class: 'method', tier: 'ambiguous' });
    expect(evaluation({ kind: 'cannot-run:network' })).toEqual({ cause: 'evaluation-environment', class: 'infrastructure', tier: 'environment' });
    expect(evaluation({ kind: 'cannot-run:collection-failed' }).class).toBe('infrastructure');
    expect(evaluation({ kind: 'evaluation-error', details: { infraFailure: { reason: 'container_unavailable', tier: 'environment' } } })).toMatchObject({
      class: 'infrastructure',
      tier: 'environment',
    });
    expect(evaluation({ kind: 'evaluation-error', details: { infraFailure: { reason: 'missing_module', tier: 'ambiguous' } } })).toEqual({
      cause: 'evaluation-ambiguous',
      class: 'method',
      tier: 'ambiguous',
    });
    expect(evaluation({ kind: 'patch-apply-failed' })).toEqual({ cause: 'patch-does-not-apply', class: 'method' });
    expect(evaluation({ kind: 'no-tests' }).class).toBe('configuration');
    expect(causeOf({ kind: 'timeout' })).toEqual({ cause: 'model-timeout', class: 'infrastructure' });
    expect(causeOf({ kind: 'missing-commit' })).toEqual({ cause: 'repository-unavailable', class: 'infrastructure' });
    expect(describeCause(evaluation({ kind: 'timeout' }))).toBe(
      'method (tests-timed-out: the tests timed out (the patch or the machine: ambiguous); harness tier ambiguous)',
    );
  });

  it('a replay that holds no answer for a request fails as a replay miss', async () => {
    const cache = await mkdtemp(path.join(os.tmpdir(), 'locfix-cause-'));
    const key = '00key0';
    await mkdir(path.join(cache, 'llm', '00', key), { recursive: true });
    await writeFile(
      path.join(cache, 'llm', '00', key, 'request.json'),
      JSON.stringify({ provider: 'openai', baseURL: 'http://127.0.0.1:9/v1', model: 'm', messages: [], options: {} }),
    );
    const model = createChatModel(`replay:${cache}`, { cacheDir: cache });
    await expect(model.chat({ messages: [{ role: 'user', content: 'never asked' }] })).rejects.toMatchObject({ kind: 'replay-miss' });
  });
});

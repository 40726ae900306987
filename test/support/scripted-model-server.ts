/**
 * A real HTTP model server on 127.0.0.1 for tests, answering from a scenario instead of a model. It speaks
 * enough of both APIs for the official clients:
 *   OpenAI:  POST /v1/chat/completions (n, stop, max_tokens, seed, usage, SSE streaming), GET /v1/models,
 *            POST /v1/embeddings (float and base64)
 *   Ollama:  POST /api/chat (non-streaming and NDJSON streaming), POST /api/embed, POST /api/embeddings,
 *            GET /api/tags, GET /api/version
 *
 * Scenario: ordered rules (first match wins) and/or a policy function; see `Scenario` below. Every request
 * is recorded (`requests`), in-flight requests are counted (`maxInFlight`), and token usage is counted with
 * the same o200k_base counter locfix uses. Embeddings are deterministic feature-hashed bags of words, so
 * texts that share words are close.
 *
 * Sample index: for a chat request the index of choice j is `j + samples already served successfully for
 * the same model + messages + temperature` since start/reset. So n=10 natively, 10 repeated n=1 calls, or
 * 4 cached + a request for the 6 missing all see indices 0..9 (repeated calls in arrival order).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { countChatTokens, countTokens, decodeTokens, encodeTokens } from '../../src/llm/tokens.ts';

export type ScriptedApi = 'openai' | 'ollama';

export interface ScriptedMessage {
  role: string;
  content: string;
}

/** What rules and policies see of a chat request. */
export interface ScriptedChatRequest {
  api: ScriptedApi;
  path: string;
  model: string;
  messages: ScriptedMessage[];
  /** every message's content joined by blank lines: what string and RegExp rules match against */
  text: string;
  /** content of the last user message ('' when none) */
  lastUser: string;
  /** content of the first system message ('' when none) */
  system: string;
  temperature?: number;
  maxTokens?: number;
  stop?: string[];
  seed?: number;
  /** choices asked for (1 for Ollama) */
  n: number;
  stream: boolean;
  /** the parsed JSON body as sent */
  body: Record<string, unknown>;
  /** how many earlier requests with the same model, messages and temperature this server answered */
  repeat: number;
}

/** A chat answer with its reasoning sent the way reasoning servers do (OpenAI: `reasoning_content`, Ollama: `thinking`). */
export interface ScriptedAnswer {
  content: string;
  reasoning?: string;
  finishReason?: string;
  /** override the counted usage of this sample */
  promptTokens?: number;
  completionTokens?: number;
}

/**
 * One reply:
 *  - a string: the answer text (may contain <think> blocks or harmony channel markup, sent verbatim);
 *  - ScriptedAnswer: answer with separate reasoning;
 *  - `{ status, body?, headers? }`: an HTTP error (body defaults to the API's error shape);
 *  - `{ raw, status?, contentType? }`: a verbatim body, e.g. malformed JSON;
 *  - `{ reset: true }`: the connection is destroyed without an answer;
 *  - `{ delayMs, then? }`: wait, then answer with `then` (or the rule's normal answer). With `then` omitted
 *    in a `failures` list, the request is answered after the delay as if it were not a failure.
 */
export type ScriptedReply =
  | string
  | ScriptedAnswer
  | { status: number; body?: unknown; headers?: Record<string, string> }
  | { raw: string; status?: number; contentType?: string }
  | { reset: true }
  | { delayMs: number; then?: ScriptedReply };

export type ScriptedResponder =
  | string
  | string[]
  | ScriptedReply
  | ((request: ScriptedChatRequest, sampleIndex: number) => ScriptedReply | Promise<ScriptedReply>);

export type RuleMatch = string | RegExp | ((request: ScriptedChatRequest) => boolean);

export interface ScenarioRule {
  /** shown in `servedBy` of recorded requests */
  name?: string;
  /** substring or RegExp tested against `request.text`, or a predicate; omitted: every chat request */
  match?: RuleMatch;
  /** only requests of this API */
  api?: ScriptedApi;
  /** only requests for this model (exact or RegExp) */
  model?: string | RegExp;
  /** the first matching requests get these replies in order (fault injection), later ones get `respond` */
  failures?: ScriptedReply[];
  /** the rule serves this many requests (failures included), then is skipped; default unlimited */
  times?: number;
  /** wait before every answer of this rule */
  delayMs?: number;
  /** a string[] gives sample i element i (the last one for higher i) */
  respond: ScriptedResponder;
}

export interface Scenario {
  name?: string;
  rules?: ScenarioRule[];
  /** asked when no rule matches; return undefined to fall through to `fallback` */
  policy?: (request: ScriptedChatRequest, sampleIndex: number) => ScriptedReply | undefined | Promise<ScriptedReply | undefined>;
  /** answer when neither a rule nor the policy answers; default HTTP 400 naming the request */
  fallback?: ScriptedReply;
  /** listed by /v1/models and /api/tags; default ["scripted"] */
  models?: string[];
  /** default 64 */
  embeddingDim?: number;
  /** OpenAI endpoint honours `n` (default true); false answers one choice whatever `n` asks, like Ollama's /v1 */
  supportsN?: boolean;
  /** report token usage (default true); false lets clients fall back to counting */
  reportUsage?: boolean;
}

export interface RecordedRequest {
  api: ScriptedApi | 'unknown';
  kind: 'chat' | 'embed' | 'models' | 'other';
  method: string;
  path: string;
  body: unknown;
  /** ms since epoch, on arrival */
  timestamp: number;
  /** ms since epoch, when the answer was finished or the connection dropped */
  finishedAt?: number;
  /** HTTP status sent; undefined when the connection was reset or dropped */
  status?: number;
  /** rule name (or index), "policy", or "fallback" */
  servedBy?: string;
  /** sample indices of the choices sent */
  sampleIndices?: number[];
}

export class ScriptedModelServer {
  readonly requests: RecordedRequest[] = [];
  /** the largest number of chat/embedding requests being handled at once since start/reset */
  maxInFlight = 0;
  inFlight = 0;
  /** errors thrown by scenario functions (each answered with HTTP 400); tests can assert it stays empty */
  readonly scenarioErrors: string[] = [];
  private scenario: Scenario;
  private server?: http.Server;
  private port = 0;
  private readonly ruleUse = new Map<number, number>();
  private readonly samplesServed = new Map<string, number>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly promptTokenMemo = new Map<string, number>();

  constructor(scenario: Scenario | ScenarioRule[] = {}) {
    this.scenario = Array.isArray(scenario) ? { rules: scenario } : scenario;
  }

  /** Starts listening on a random loopback port; resolves to `url`. */
  async start(): Promise<string> {
    if (this.server) return this.url;
    const server = http.createServer((req, res) => {
      this.handle(req, res).catch((err: unknown) => {
        // A scenario that throws is a bug in the test: answer 400 (clients do not retry it) and keep the error.
        const message = `scripted-model-server: scenario error: ${(err as Error)?.stack ?? String(err)}`;
        this.scenarioErrors.push(message);
        if (!res.headersSent) sendJson(res, 400, req.url?.startsWith('/api/') ? { error: message } : { error: { message } });
        else res.destroy();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this.url;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** http://127.0.0.1:<port> — the Ollama host */
  get url(): string {
    if (!this.server) throw new Error('scripted model server is not started');
    return `http://127.0.0.1:${this.port}`;
  }

  /** http://127.0.0.1:<port>/v1 — the OpenAI base URL */
  get openaiURL(): string {
    return `${this.url}/v1`;
  }

  /** Forgets recorded requests, rule counters, sample counters and in-flight maxima; keeps the scenario. */
  reset(): void {
    this.requests.length = 0;
    this.scenarioErrors.length = 0;
    this.ruleUse.clear();
    this.samplesServed.clear();
    this.maxInFlight = 0;
  }

  setScenario(scenario: Scenario | ScenarioRule[]): void {
    this.scenario = Array.isArray(scenario) ? { rules: scenario } : scenario;
    this.reset();
  }

  chatRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.kind === 'chat');
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = url.pathname.replace(/\/+$/, '');
    const text = await readBody(req);
    const record: RecordedRequest = {
      api: route.startsWith('/v1/') ? 'openai' : route.startsWith('/api/') ? 'ollama' : 'unknown',
      kind: 'other',
      method: req.method ?? 'GET',
      path: route,
      body: undefined,
      timestamp: Date.now(),
    };
    this.requests.push(record);
    res.on('close', () => {
      record.finishedAt = Date.now();
      if (res.writableFinished) record.status = res.statusCode;
    });

    let body: Record<string, unknown> = {};
    if (text.length > 0) {
      try {
        body = JSON.parse(text) as Record<string, unknown>;
        record.body = body;
      } catch {
        record.body = text;
        return sendJson(res, 400, { error: `request body is not JSON: ${text.slice(0, 200)}` });
      }
    }

    const key = `${req.method} ${route}`;
    const counted =
      key === 'POST /v1/chat/completions' ||
      key === 'POST /api/chat' ||
      key === 'POST /v1/embeddings' ||
      key === 'POST /api/embed' ||
      key === 'POST /api/embeddings';
    if (counted) {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.on('close', () => this.inFlight--);
    }
    switch (key) {
      case 'POST /v1/chat/completions':
        record.kind = 'chat';
        return this.chat('openai', route, body, record, res);
      case 'POST /api/chat':
        record.kind = 'chat';
        return this.chat('ollama', route, body, record, res);
      case 'POST /v1/embeddings':
        record.kind = 'embed';
        return this.openaiEmbeddings(body, res);
      case 'POST /api/embed':
      case 'POST /api/embeddings':
        record.kind = 'embed';
        return this.ollamaEmbed(route, body, res);
      case 'GET /v1/models':
        record.kind = 'models';
        return sendJson(res, 200, {
          object: 'list',
          data: this.models().map((id) => ({ id, object: 'model', created: 0, owned_by: 'scripted' })),
        });
      case 'GET /api/tags':
        record.kind = 'models';
        return sendJson(res, 200, {
          models: this.models().map((name) => ({
            name,
            model: name,
            modified_at: new Date(0).toISOString(),
            size: 0,
            digest: sha256(name),
            details: { format: 'gguf', family: 'scripted', parameter_size: '0B', quantization_level: 'none' },
          })),
        });
      case 'GET /api/version':
        return sendJson(res, 200, { version: '0.0.0-scripted' });
      default:
        return sendJson(res, 404, { error: `scripted-model-server: no endpoint ${key}` });
    }
  }

  private models(): string[] {
    return this.scenario.models ?? ['scripted'];
  }

  private async chat(api: ScriptedApi, route: string, body: Record<string, unknown>, record: RecordedRequest, res: http.ServerResponse): Promise<void> {
    const parsed = parseChatRequest(api, route, body);
    if (typeof parsed === 'string') return sendError(api, res, 400, parsed);
    const conversation = sha256(JSON.stringify([parsed.model, parsed.messages, parsed.temperature ?? null]));
    const served = this.samplesServed.get(conversation) ?? 0;
    const request: ScriptedChatRequest = { ...parsed, repeat: served };
    const choiceCount = api === 'openai' && this.scenario.supportsN !== false ? request.n : 1;
    const indices = Array.from({ length: choiceCount }, (_, j) => served + j);

    // Pick who answers: the first rule that matches and still has uses, else the policy, else the fallback.
    let replies: ScriptedReply[] | undefined;
    let ruleDelay = 0;
    for (const [i, rule] of (this.scenario.rules ?? []).entries()) {
      if (!ruleMatches(rule, request)) continue;
      const used = this.ruleUse.get(i) ?? 0;
      if (rule.times !== undefined && used >= rule.times) continue;
      this.ruleUse.set(i, used + 1);
      record.servedBy = rule.name ?? `rule ${i}`;
      ruleDelay = rule.delayMs ?? 0;
      const failure = rule.failures?.[used];
      if (failure !== undefined && !isPlainDelay(failure)) {
        replies = [failure];
      } else {
        if (failure !== undefined) ruleDelay += (failure as { delayMs: number }).delayMs;
        replies = await Promise.all(indices.map((index) => respond(rule.respond, request, index)));
      }
      break;
    }
    if (!replies && this.scenario.policy) {
      const fromPolicy = await Promise.all(indices.map((index) => this.scenario.policy!(request, index)));
      if (fromPolicy.every((r) => r !== undefined)) {
        replies = fromPolicy as ScriptedReply[];
        record.servedBy = 'policy';
      }
    }
    if (!replies) {
      record.servedBy = 'fallback';
      if (!this.scenario.fallback) {
        const excerpt = request.lastUser.slice(0, 300);
        return sendError(api, res, 400, `scripted-model-server: no rule matched ${api} chat request for model "${request.model}": ${JSON.stringify(excerpt)}`);
      }
      replies = indices.map(() => this.scenario.fallback!);
    }

    // Delays first (the longest one of any sample), then the first non-answer reply decides the whole request.
    let delay = ruleDelay;
    const resolved: ScriptedReply[] = replies.map((reply) => {
      let r = reply;
      let d = 0;
      while (typeof r === 'object' && r !== null && 'delayMs' in r) {
        d += r.delayMs;
        if (r.then === undefined) throw new Error(`scenario reply {delayMs: ${r.delayMs}} has no "then" answer`);
        r = r.then;
      }
      delay = Math.max(delay, ruleDelay + d);
      return r;
    });
    if (delay > 0 && !(await this.wait(delay, res))) return;

    const failure = resolved.find((r) => typeof r === 'object' && r !== null && ('status' in r || 'raw' in r || 'reset' in r));
    if (failure !== undefined) return sendFailure(api, res, failure);

    const answers = resolved.map((reply) => finishAnswer(toAnswer(reply), request));
    this.samplesServed.set(conversation, served + answers.length);
    record.sampleIndices = indices.slice(0, answers.length);
    const promptTokens = this.promptTokens(request.messages);
    const reportUsage = this.scenario.reportUsage !== false;
    if (api === 'openai') return sendOpenAIChat(res, request, answers, promptTokens, reportUsage);
    return sendOllamaChat(res, request, answers[0]!, promptTokens, reportUsage);
  }

  /** Counting a 20k-token prompt takes a while; samples of one prompt arrive in many requests. */
  private promptTokens(messages: ScriptedMessage[]): number {
    const key = sha256(JSON.stringify(messages));
    let count = this.promptTokenMemo.get(key);
    if (count === undefined) {
      count = countChatTokens(messages.map((m) => ({ role: m.role as 'user', content: m.content })));
      if (this.promptTokenMemo.size > 10_000) this.promptTokenMemo.clear();
      this.promptTokenMemo.set(key, count);
    }
    return count;
  }

  /** Resolves true after `ms`, false when the client went away first (or the server stopped). */
  private wait(ms: number, res: http.ServerResponse): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        res.off('close', onClose);
        resolve(!res.destroyed);
      }, ms);
      const onClose = (): void => {
        clearTimeout(timer);
        this.timers.delete(timer);
        resolve(false);
      };
      this.timers.add(timer);
      res.once('close', onClose);
    });
  }

  private openaiEmbeddings(body: Record<string, unknown>, res: http.ServerResponse): void {
    const inputs = embeddingInputs(body.input);
    if (!inputs) return sendError('openai', res, 400, '"input" must be a string or an array of strings');
    const dim = typeof body.dimensions === 'number' ? body.dimensions : (this.scenario.embeddingDim ?? 64);
    const base64 = body.encoding_format === 'base64';
    const tokens = inputs.reduce((sum, t) => sum + countTokens(t), 0);
    sendJson(res, 200, {
      object: 'list',
      model: String(body.model ?? 'scripted'),
      data: inputs.map((text, index) => {
        const vector = hashEmbedding(text, dim);
        return {
          object: 'embedding',
          index,
          embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
        };
      }),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  }

  private ollamaEmbed(route: string, body: Record<string, unknown>, res: http.ServerResponse): void {
    const dim = this.scenario.embeddingDim ?? 64;
    if (route === '/api/embeddings') {
      if (typeof body.prompt !== 'string') return sendError('ollama', res, 400, '"prompt" must be a string');
      return sendJson(res, 200, { embedding: hashEmbedding(body.prompt, dim) });
    }
    const inputs = embeddingInputs(body.input);
    if (!inputs) return sendError('ollama', res, 400, '"input" must be a string or an array of strings');
    sendJson(res, 200, {
      model: String(body.model ?? 'scripted'),
      embeddings: inputs.map((t) => hashEmbedding(t, dim)),
      total_duration: 1000,
      load_duration: 0,
      prompt_eval_count: inputs.reduce((sum, t) => sum + countTokens(t), 0),
    });
  }
}

/** Starts a server for `scenario`; remember to `stop()` it (afterAll). */
export async function startScriptedModelServer(scenario: Scenario | ScenarioRule[] = {}): Promise<ScriptedModelServer> {
  const server = new ScriptedModelServer(scenario);
  await server.start();
  return server;
}

// ---------------------------------------------------------------------------------------------------------
// Requests

function parseChatRequest(api: ScriptedApi, route: string, body: Record<string, unknown>): Omit<ScriptedChatRequest, 'repeat'> | string {
  if (typeof body.model !== 'string' || !body.model) return '"model" is required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return '"messages" must be a non-empty array';
  const messages: ScriptedMessage[] = [];
  for (const [i, m] of (body.messages as unknown[]).entries()) {
    const message = m as { role?: unknown; content?: unknown };
    if (typeof message?.role !== 'string') return `messages[${i}].role must be a string`;
    const content = Array.isArray(message.content)
      ? (message.content as { text?: unknown }[]).map((part) => (typeof part?.text === 'string' ? part.text : '')).join('')
      : message.content;
    if (typeof content !== 'string') return `messages[${i}].content must be text`;
    messages.push({ role: message.role, content });
  }
  const options = (api === 'ollama' ? (body.options ?? {}) : body) as Record<string, unknown>;
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const stopValue = options.stop;
  const stop = typeof stopValue === 'string' ? [stopValue] : Array.isArray(stopValue) ? stopValue.filter((s): s is string => typeof s === 'string') : undefined;
  const n = api === 'openai' ? (num(body.n) ?? 1) : 1;
  if (!Number.isInteger(n) || n < 1 || n > 128) return `"n" must be an integer in 1..128, got ${String(body.n)}`;
  const maxTokens = api === 'openai' ? (num(body.max_completion_tokens) ?? num(body.max_tokens)) : num(options.num_predict);
  return {
    api,
    path: route,
    model: body.model,
    messages,
    text: messages.map((m) => m.content).join('\n\n'),
    lastUser: [...messages].reverse().find((m) => m.role === 'user')?.content ?? '',
    system: messages.find((m) => m.role === 'system')?.content ?? '',
    ...(num(options.temperature) !== undefined ? { temperature: num(options.temperature) } : {}),
    ...(maxTokens !== undefined && maxTokens > 0 ? { maxTokens } : {}),
    ...(stop?.length ? { stop } : {}),
    ...(num(options.seed) !== undefined ? { seed: num(options.seed) } : {}),
    n,
    // Ollama streams unless told not to; OpenAI does not unless asked.
    stream: api === 'ollama' ? body.stream !== false : body.stream === true,
    body,
  };
}

function ruleMatches(rule: ScenarioRule, request: ScriptedChatRequest): boolean {
  if (rule.api && rule.api !== request.api) return false;
  if (rule.model !== undefined) {
    if (typeof rule.model === 'string' ? rule.model !== request.model : !rule.model.test(request.model)) return false;
  }
  const match = rule.match;
  if (match === undefined) return true;
  if (typeof match === 'string') return request.text.includes(match);
  if (match instanceof RegExp) {
    match.lastIndex = 0;
    return match.test(request.text);
  }
  return match(request);
}

function isPlainDelay(reply: ScriptedReply): boolean {
  return typeof reply === 'object' && reply !== null && 'delayMs' in reply && reply.then === undefined;
}

async function respond(responder: ScriptedResponder, request: ScriptedChatRequest, sampleIndex: number): Promise<ScriptedReply> {
  if (typeof responder === 'function') return responder(request, sampleIndex);
  if (Array.isArray(responder)) {
    if (responder.length === 0) throw new Error('scenario rule responds with an empty array');
    return responder[Math.min(sampleIndex, responder.length - 1)]!;
  }
  return responder;
}

function toAnswer(reply: ScriptedReply): ScriptedAnswer {
  if (typeof reply === 'string') return { content: reply };
  if (typeof reply === 'object' && reply !== null && 'content' in reply && typeof reply.content === 'string') return reply;
  throw new Error(`scenario reply is not an answer: ${JSON.stringify(reply)}`);
}

/** Applies stop sequences and max tokens as a server would: cut the text, set finish_reason. */
function finishAnswer(answer: ScriptedAnswer, request: ScriptedChatRequest): Required<Pick<ScriptedAnswer, 'content' | 'finishReason'>> & ScriptedAnswer {
  let content = answer.content;
  let finishReason = answer.finishReason ?? 'stop';
  if (request.stop) {
    let cut = -1;
    for (const s of request.stop) {
      const at = s ? content.indexOf(s) : -1;
      if (at >= 0 && (cut < 0 || at < cut)) cut = at;
    }
    if (cut >= 0) {
      content = content.slice(0, cut);
      finishReason = 'stop';
    }
  }
  const reasoningTokens = answer.reasoning ? countTokens(answer.reasoning) : 0;
  if (request.maxTokens !== undefined) {
    const tokens = encodeTokens(content);
    const budget = Math.max(0, request.maxTokens - reasoningTokens);
    if (tokens.length > budget) {
      content = decodeTokens(tokens.slice(0, budget));
      finishReason = 'length';
    }
  }
  return {
    ...answer,
    content,
    finishReason,
    completionTokens: answer.completionTokens ?? countTokens(content) + reasoningTokens,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Responses

function sendJson(res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

function sendError(api: ScriptedApi, res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = api === 'openai' ? { error: { message, type: status === 429 ? 'rate_limit_error' : 'invalid_request_error', code: null } } : { error: message };
  sendJson(res, status, body, headers);
}

function sendFailure(api: ScriptedApi, res: http.ServerResponse, reply: ScriptedReply): void {
  const r = reply as { status?: number; body?: unknown; headers?: Record<string, string>; raw?: string; contentType?: string; reset?: boolean };
  if (r.reset) {
    res.socket?.destroy();
    return;
  }
  if (r.raw !== undefined) {
    res.writeHead(r.status ?? 200, { 'content-type': r.contentType ?? 'application/json', 'content-length': Buffer.byteLength(r.raw) });
    res.end(r.raw);
    return;
  }
  const status = r.status!;
  if (r.body !== undefined) return sendJson(res, status, r.body, r.headers);
  sendError(api, res, status, `scripted failure: HTTP ${status}`, r.headers);
}

type FinishedAnswer = ReturnType<typeof finishAnswer>;

let completionCounter = 0;

function sendOpenAIChat(res: http.ServerResponse, request: ScriptedChatRequest, answers: FinishedAnswer[], promptTokens: number, reportUsage: boolean): void {
  const id = `chatcmpl-scripted-${++completionCounter}`;
  const created = Math.floor(Date.now() / 1000);
  const prompt = answers[0]?.promptTokens ?? promptTokens;
  const completion = answers.reduce((sum, a) => sum + a.completionTokens!, 0);
  const usage = { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
  if (!request.stream) {
    return sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: request.model,
      system_fingerprint: 'fp_scripted',
      choices: answers.map((a, index) => ({
        index,
        message: { role: 'assistant', content: a.content, ...(a.reasoning !== undefined ? { reasoning_content: a.reasoning } : {}) },
        logprobs: null,
        finish_reason: a.finishReason,
      })),
      ...(reportUsage ? { usage } : {}),
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}): void => {
    res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: request.model, choices, ...extra })}\n\n`);
  };
  for (const [index, a] of answers.entries()) {
    chunk([{ index, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    if (a.reasoning) chunk([{ index, delta: { reasoning_content: a.reasoning }, finish_reason: null }]);
    for (const piece of splitPieces(a.content)) chunk([{ index, delta: { content: piece }, finish_reason: null }]);
    chunk([{ index, delta: {}, finish_reason: a.finishReason }]);
  }
  const streamOptions = request.body.stream_options as { include_usage?: boolean } | undefined;
  if (reportUsage && streamOptions?.include_usage) chunk([], { usage });
  res.end('data: [DONE]\n\n');
}

function sendOllamaChat(res: http.ServerResponse, request: ScriptedChatRequest, answer: FinishedAnswer, promptTokens: number, reportUsage: boolean): void {
  const createdAt = new Date().toISOString();
  const doneReason = answer.finishReason === 'length' ? 'length' : 'stop';
  const stats = {
    total_duration: 1_000_000,
    load_duration: 0,
    ...(reportUsage ? { prompt_eval_count: answer.promptTokens ?? promptTokens, eval_count: answer.completionTokens } : {}),
    prompt_eval_duration: 500_000,
    eval_duration: 500_000,
  };
  if (!request.stream) {
    return sendJson(res, 200, {
      model: request.model,
      created_at: createdAt,
      message: { role: 'assistant', content: answer.content, ...(answer.reasoning !== undefined ? { thinking: answer.reasoning } : {}) },
      done: true,
      done_reason: doneReason,
      ...stats,
    });
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (value: unknown): void => {
    res.write(`${JSON.stringify(value)}\n`);
  };
  if (answer.reasoning)
    line({ model: request.model, created_at: createdAt, message: { role: 'assistant', content: '', thinking: answer.reasoning }, done: false });
  for (const piece of splitPieces(answer.content))
    line({ model: request.model, created_at: createdAt, message: { role: 'assistant', content: piece }, done: false });
  line({ model: request.model, created_at: createdAt, message: { role: 'assistant', content: '' }, done: true, done_reason: doneReason, ...stats });
  res.end();
}

/** Stream pieces of a few words, so clients really have to join chunks. */
function splitPieces(text: string): string[] {
  return (
    text
      .match(/\S*\s*/g)
      ?.filter(Boolean)
      .reduce<string[]>((pieces, word, i) => {
        if (i % 3 === 0) pieces.push(word);
        else pieces[pieces.length - 1] += word;
        return pieces;
      }, []) ?? []
  );
}

// ---------------------------------------------------------------------------------------------------------
// Embeddings

function embeddingInputs(input: unknown): string[] | undefined {
  if (typeof input === 'string') return [input];
  if (Array.isArray(input) && input.every((t) => typeof t === 'string')) return input as string[];
  return undefined;
}

/**
 * Deterministic embedding: lower-cased word tokens (identifiers split on _ and camelCase too) hashed into
 * `dim` signed buckets, L2-normalized. Texts sharing words get a high cosine similarity; the empty text
 * maps to the first unit vector.
 */
export function hashEmbedding(text: string, dim = 64): number[] {
  const vector = new Array<number>(dim).fill(0);
  const words = text.match(/[A-Za-z0-9]+/g) ?? [];
  const tokens: string[] = [];
  for (const word of words) {
    tokens.push(word.toLowerCase());
    const parts = word.split(/(?<=[a-z0-9])(?=[A-Z])/).map((p) => p.toLowerCase());
    if (parts.length > 1) tokens.push(...parts);
  }
  for (const token of tokens) {
    const h = fnv1a(token);
    vector[h % dim]! += (h >>> 31) & 1 ? -1 : 1;
  }
  const norm = Math.hypot(...vector);
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  return vector.map((v) => v / norm);
}

function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function readBody(req: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// ---------------------------------------------------------------------------------------------------------
// Scenario files

export const SCENARIO_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/scenarios');

/**
 * Loads a scenario from test/fixtures/scenarios/ (a bare name like "llm-smoke") or any path.
 * - `.json`: `{ name?, models?, embeddingDim?, supportsN?, reportUsage?, fallback?, rules: [...] }` where a
 *   rule's `match` is a substring, `{ "regex": "...", "flags": "i" }`, or `{ "all": [match, ...] }`, and
 *   `respond` / `failures` hold replies as JSON (strings, string arrays, {content, reasoning}, {status},
 *   {raw}, {reset: true}, {delayMs, then}).
 * - `.ts` / `.js`: the default export is a Scenario (or a function returning one).
 */
export async function loadScenario(nameOrPath: string): Promise<Scenario> {
  const candidates =
    path.isAbsolute(nameOrPath) || nameOrPath.includes('/')
      ? [path.resolve(nameOrPath)]
      : ['', '.json', '.ts', '.js'].map((ext) => path.join(SCENARIO_DIR, nameOrPath + ext));
  for (const file of candidates) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    if (file.endsWith('.json')) return scenarioFromJson(JSON.parse(text) as unknown, file);
    const module = (await import(pathToFileURL(file).href)) as { default?: Scenario | (() => Scenario | Promise<Scenario>) };
    const exported = module.default;
    if (!exported) throw new Error(`scenario module ${file} has no default export`);
    return typeof exported === 'function' ? exported() : exported;
  }
  throw new Error(`scenario "${nameOrPath}" not found (looked at ${candidates.join(', ')})`);
}

type JsonMatch = string | { regex: string; flags?: string } | { all: JsonMatch[] };

function matchFromJson(match: JsonMatch, where: string): (request: ScriptedChatRequest) => boolean {
  if (typeof match === 'string') return (r) => r.text.includes(match);
  if (match && typeof match === 'object' && 'regex' in match) {
    const re = new RegExp(match.regex, match.flags);
    return (r) => {
      re.lastIndex = 0;
      return re.test(r.text);
    };
  }
  if (match && typeof match === 'object' && 'all' in match && Array.isArray(match.all)) {
    const parts = match.all.map((m, i) => matchFromJson(m, `${where}.all[${i}]`));
    return (r) => parts.every((p) => p(r));
  }
  throw new Error(`${where}: "match" must be a string, {regex, flags?} or {all: [...]}`);
}

export function scenarioFromJson(value: unknown, source = 'scenario'): Scenario {
  if (!value || typeof value !== 'object') throw new Error(`${source}: a scenario must be a JSON object`);
  const json = value as Record<string, unknown> & { rules?: unknown };
  if (json.rules !== undefined && !Array.isArray(json.rules)) throw new Error(`${source}: "rules" must be an array`);
  const rules = ((json.rules as Record<string, unknown>[] | undefined) ?? []).map((rule, i): ScenarioRule => {
    const where = `${source}: rules[${i}]`;
    if (rule.respond === undefined) throw new Error(`${where} has no "respond"`);
    return {
      ...(typeof rule.name === 'string' ? { name: rule.name } : {}),
      ...(rule.match !== undefined ? { match: matchFromJson(rule.match as JsonMatch, where) } : {}),
      ...(rule.api === 'openai' || rule.api === 'ollama' ? { api: rule.api } : {}),
      ...(typeof rule.model === 'string' ? { model: rule.model } : {}),
      ...(Array.isArray(rule.failures) ? { failures: rule.failures as ScriptedReply[] } : {}),
      ...(typeof rule.times === 'number' ? { times: rule.times } : {}),
      ...(typeof rule.delayMs === 'number' ? { delayMs: rule.delayMs } : {}),
      respond: rule.respond as ScriptedResponder,
    };
  });
  return {
    ...(typeof json.name === 'string' ? { name: json.name } : {}),
    rules,
    ...(Array.isArray(json.models) ? { models: json.models as string[] } : {}),
    ...(typeof json.embeddingDim === 'number' ? { embeddingDim: json.embeddingDim } : {}),
    ...(typeof json.supportsN === 'boolean' ? { supportsN: json.supportsN } : {}),
    ...(typeof json.reportUsage === 'boolean' ? { reportUsage: json.reportUsage } : {}),
    ...(json.fallback !== undefined ? { fallback: json.fallback as ScriptedReply } : {}),
  };
}

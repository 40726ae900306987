/**
 * A Docker client whose every request is answered in bounded time.
 *
 * An engine can accept connections and never answer (a daemon wedged on a storage lock, a `tcp://` host whose
 * daemon hangs, an ssh tunnel whose far end stalls). dockerode waits forever by default, so one such engine
 * stalled `locfix evaluate` without printing anything. Here each request must be answered — the response
 * begins, or an exec stream is attached — within `answerMs`. An upload (a folder copied in, an image loaded)
 * must keep being taken: each chunk the engine takes restarts the wait, and it answers within `answerMs` of
 * the last, or `transferMs` where it processes the whole body first (loading an image, a build). What streams after the answer is bounded by its user: an exec by its command timeout and
 * a ping of the engine every `answerMs` while it runs (DockerSandbox.exec), a download by the transfer bound.
 *
 * The bound wraps the modem's `dial`, the one function every dockerode request goes through, and aborts the
 * request with the caller's own signal mechanism, so a request that times out leaves no socket behind.
 */
import { type Readable, Transform } from 'node:stream';
import Docker from 'dockerode';

export const ENGINE_ANSWER_MS = 60_000;
export const ENGINE_TRANSFER_MS = 30 * 60_000;

export interface EngineBounds {
  /** an ordinary request: until the engine answers */
  answerMs: number;
  /** an image load or build after its upload, and a download read to its end */
  transferMs: number;
}

export const DEFAULT_ENGINE_BOUNDS: EngineBounds = { answerMs: ENGINE_ANSWER_MS, transferMs: ENGINE_TRANSFER_MS };

/** The engine did not answer a request in time: it is wedged, or the way to it is. */
export class EngineNoAnswerError extends Error {
  readonly code = 'ENGINE_NO_ANSWER';
  constructor(
    readonly engine: string,
    readonly request: string,
    readonly waitedMs: number,
  ) {
    const seconds = waitedMs / 1000;
    super(`Docker engine ${engine} did not answer ${request} within ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`);
    this.name = 'EngineNoAnswerError';
  }
}

interface DialOptions {
  method?: string;
  path?: string;
  file?: unknown;
  abortSignal?: AbortSignal;
}
type DialCallback = (err: unknown, data?: unknown) => void;
interface DialingModem {
  dial(options: DialOptions, callback: DialCallback): unknown;
  socketPath?: unknown;
  host?: string;
  port?: number | string;
}

/** How an engine is named in messages: its socket or host, as the user gave it. */
export function engineName(docker: Docker): string {
  const modem = docker.modem as unknown as DialingModem;
  if (modem.host) return `${modem.host}:${modem.port ?? ''}`;
  if (typeof modem.socketPath === 'string') return `unix://${modem.socketPath}`;
  return process.env.DOCKER_HOST ?? 'the local engine';
}

const boundsOf = new WeakMap<Docker, EngineBounds>();

/** The bounds of a client made by `engineClient` (undefined for a plain dockerode client). */
export function engineBoundsOf(docker: Docker): EngineBounds | undefined {
  return boundsOf.get(docker);
}

/** Requests whose answer comes only after the engine has processed the whole body (an image to load, a build). */
const PROCESSES_BODY = /^\/(?:v[\d.]+\/)?(?:images\/load|build)\b/;

/** `options` as for dockerode (nothing: DOCKER_HOST or the local socket), every request bounded. */
export function engineClient(options: Docker.DockerOptions = {}, bounds: EngineBounds = DEFAULT_ENGINE_BOUNDS): Docker {
  const docker = new Docker(options);
  boundsOf.set(docker, bounds);
  const modem = docker.modem as unknown as DialingModem;
  const dial = modem.dial.bind(modem);
  modem.dial = (request, callback) => {
    const path = (request.path ?? '').split('?')[0]!;
    const what = `${request.method ?? 'GET'} ${path}`;
    const timeout = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const wait = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => timeout.abort(new EngineNoAnswerError(engineName(docker), what, ms)), ms);
    };
    wait(bounds.answerMs);
    let file = request.file;
    if (isReadable(file)) {
      // an upload: the engine must keep taking it (each chunk it takes restarts the wait), then answer
      const body = new Transform({
        transform: (chunk, _encoding, done) => {
          wait(bounds.answerMs);
          done(null, chunk);
        },
        flush: (done) => {
          wait(PROCESSES_BODY.test(path) ? bounds.transferMs : bounds.answerMs);
          done();
        },
      });
      file.on('error', (err) => body.destroy(err));
      file = file.pipe(body);
    }
    const signal = request.abortSignal ? AbortSignal.any([request.abortSignal, timeout.signal]) : timeout.signal;
    return dial({ ...request, ...(file !== undefined ? { file } : {}), abortSignal: signal }, (err, data) => {
      clearTimeout(timer);
      callback(timeout.signal.aborted ? timeout.signal.reason : err, data);
    });
  };
  return docker;
}

function isReadable(value: unknown): value is Readable {
  return typeof (value as Readable | undefined)?.pipe === 'function';
}

/** Rejects with EngineNoAnswerError when `work` (a download read to its end, a kill) outlasts `ms`. */
export async function withinEngineBound<T>(docker: Docker, what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EngineNoAnswerError(engineName(docker), what, ms)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * While a command runs, the engine is pinged every `answerMs` of its bounds: a stream that stops because the
 * engine stalled ends with EngineNoAnswerError instead of waiting out the command's timeout (hours, or none).
 */
export function engineHeartbeat(docker: Docker): { silent: Promise<never>; stop(): void } {
  const bounds = engineBoundsOf(docker);
  let interval: NodeJS.Timeout | undefined;
  const silent = new Promise<never>((_, reject) => {
    if (!bounds) return;
    interval = setInterval(
      () => {
        docker.ping().catch((err: unknown) => {
          if (err instanceof EngineNoAnswerError) reject(err);
        });
      },
      Math.max(1000, bounds.answerMs),
    );
  });
  silent.catch(() => undefined); // rejected after the race may have ended
  return { silent, stop: () => clearInterval(interval) };
}

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
import { createRequire } from 'node:module';
import Docker from 'dockerode';

/** docker-modem's redirect-following http wrapper: its module-level redirect limit is set below */
const modemHttp = createRequire(import.meta.url)('docker-modem/lib/http.js') as { maxRedirects: number };

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

/** A request path the engine's API is never asked: it names something the caller did not mean to name. */
export class EnginePathError extends Error {
  readonly code = 'ENGINE_PATH_REFUSED';
  constructor(readonly path: string) {
    super(
      `refused to send ${JSON.stringify(path.slice(0, 200))} to the Docker engine: a path segment that is empty, "." or "..", or a character no API path holds`,
    );
    this.name = 'EnginePathError';
  }
}

/**
 * Whether `path` is one the API itself would route: dockerode puts names into paths unescaped, so a name such as
 * `../../../../etc` made a path the daemon answered with a redirect to another host. Names are checked where
 * they enter (src/util/image-reference.ts); this is the last line, for any name that was not.
 */
function routablePath(path: string): boolean {
  if (!/^[A-Za-z0-9._~:@!$&'()*+,;=/%-]*$/.test(path) || /%2e|%2f|%5c/i.test(path)) return false;
  return path
    .split('/')
    .slice(1)
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

// The API never redirects; a redirect is an answer to a path it was not meant to see, and docker-modem would
// follow one to any host (it reads this at each request). With 0, a 3xx is the request's error.
modemHttp.maxRedirects = 0;

/** `options` as for dockerode (nothing: DOCKER_HOST or the local socket), every request bounded. */
export function engineClient(options: Docker.DockerOptions = {}, bounds: EngineBounds = DEFAULT_ENGINE_BOUNDS): Docker {
  const docker = new Docker(options);
  boundsOf.set(docker, bounds);
  const modem = docker.modem as unknown as DialingModem;
  const dial = modem.dial.bind(modem);
  modem.dial = (request, callback) => {
    const path = (request.path ?? '').split('?')[0]!;
    if (!routablePath(path)) {
      // dockerode's promise form passes a callback too; answered on the next turn, as a request would be
      setImmediate(() => callback(new EnginePathError(path)));
      return undefined;
    }
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

/**
 * The one owner of the terminating signals (SIGINT, SIGTERM, SIGHUP) in a locfix process.
 *
 * Why one owner: the parts that must clean up when the process ends (run locks, the Chroma server locfix
 * started, live sandbox containers) each used to install their own handler and re-raise the signal only
 * when no other listener was left. With a second such party — proper-lockfile's `signal-exit` follows the same
 * rule — every party waited for another, and SIGTERM (scancel, a Slurm time limit, `kill`) was swallowed: the
 * run went on with its Docker children killed and reported their failures as its result.
 *
 * The rule now:
 * - A signal nobody claims ends the process. Cleanups that need time (removing containers) get a bounded wait,
 *   then the exit cleanups run and the process ends by that same signal, as the default action would.
 * - A command that stops gracefully (Ctrl-C finishes the stages in flight) claims SIGINT while it runs; its
 *   handler decides, and calls `terminate` when the user insists.
 * - A second signal while ending ends the process at once.
 */

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type TerminatingSignal = (typeof SIGNALS)[number];
const SIGNAL_NUMBER: Record<TerminatingSignal, number> = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 };

/** how long the cleanups that need time may take before the process ends anyway */
export const SIGNAL_CLEANUP_MS = 10_000;

const exitCleanups = new Set<() => void>();
const signalCleanups = new Set<() => Promise<unknown>>();
const claims = new Map<TerminatingSignal, Array<() => void>>();
let installed = false;
let terminating = false;

function runExitCleanups(): void {
  for (const cleanup of [...exitCleanups]) {
    exitCleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // one failing cleanup must not keep the others from running while the process ends
    }
  }
}

function onSignal(signal: TerminatingSignal): void {
  if (terminating) {
    runExitCleanups();
    process.exit(128 + SIGNAL_NUMBER[signal]);
  }
  const claim = claims.get(signal)?.at(-1);
  if (claim) claim();
  else terminate(signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  process.on('exit', runExitCleanups);
  for (const signal of SIGNALS) process.on(signal, onSignal);
}

/** Runs `cleanup` (synchronous) once when the process ends, normally or by a signal. Returns the undo. */
export function onExit(cleanup: () => void): () => void {
  install();
  exitCleanups.add(cleanup);
  return () => exitCleanups.delete(cleanup);
}

/** Awaits `cleanup` (bounded by SIGNAL_CLEANUP_MS) before a signal ends the process. Returns the undo. */
export function beforeSignalExit(cleanup: () => Promise<unknown>): () => void {
  install();
  signalCleanups.add(cleanup);
  return () => signalCleanups.delete(cleanup);
}

/** While claimed, `signal` calls `handler` instead of ending the process; the latest claim wins. Returns the undo. */
export function claimSignal(signal: TerminatingSignal, handler: () => void): () => void {
  install();
  const list = claims.get(signal) ?? [];
  list.push(handler);
  claims.set(signal, list);
  return () => {
    const at = list.indexOf(handler);
    if (at >= 0) list.splice(at, 1);
  };
}

/** Ends the process as `signal` would: bounded time for the cleanups that need it, then the exit cleanups. */
export function terminate(signal: TerminatingSignal): void {
  install();
  if (terminating) return;
  terminating = true;
  const pending = [...signalCleanups].map((cleanup) =>
    Promise.resolve()
      .then(cleanup)
      .catch(() => undefined),
  );
  const end = (): void => {
    runExitCleanups();
    // end by the signal itself, so a parent (a shell, Slurm) sees what stopped the process; nothing may be
    // left listening, or the signal would be caught again. The exit code is the fallback if it is not.
    for (const s of SIGNALS) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    process.exit(128 + SIGNAL_NUMBER[signal]);
  };
  if (!pending.length) return end();
  const timer = setTimeout(end, SIGNAL_CLEANUP_MS);
  void Promise.all(pending).then(() => {
    clearTimeout(timer);
    end();
  });
}

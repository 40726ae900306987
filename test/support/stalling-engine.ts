/**
 * A Docker engine that stops answering, for the fault tests of bounded engine waits: a unix socket in front
 * of the real engine's. Until `stall()` it passes every byte both ways; after it, connections stay open and
 * nothing more flows — what a daemon wedged on a lock, or a tunnel whose far end hangs, looks like to a
 * client. With `{ stalled: true }` it never answers anything (no real engine needed).
 */
import net from 'node:net';
import path from 'node:path';

export interface StallingEngine {
  url: string;
  /** requests it has seen a connection for */
  connections: number;
  stall(): void;
  close(): Promise<void>;
}

export interface StallingOptions {
  /** the real engine's socket (default /var/run/docker.sock) */
  upstream?: string;
  /** stalled from the start: accepts connections, answers nothing */
  stalled?: boolean;
  /** stalls by itself `delayMs` after a request matching `request` has passed (e.g. an exec started) */
  stallAfter?: { request: RegExp; delayMs: number };
}

export async function startStallingEngine(dir: string, options: StallingOptions = {}): Promise<StallingEngine> {
  const socketPath = path.join(dir, 'stalling.sock');
  const upstream = options.upstream ?? '/var/run/docker.sock';
  let stalled = options.stalled ?? false;
  const open = new Set<net.Socket>();
  const engine: StallingEngine = {
    url: `unix://${socketPath}`,
    connections: 0,
    stall: () => {
      stalled = true;
      for (const socket of open) socket.pause(); // what is in flight stops where it is
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
  const server = net.createServer((client) => {
    engine.connections += 1;
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => undefined);
    if (stalled) {
      client.pause();
      return;
    }
    const real = net.connect(upstream);
    open.add(real);
    real.on('close', () => open.delete(real));
    real.on('error', () => client.destroy());
    client.on('close', () => real.destroy());
    // each chunk checks the switch, so a stall also stops a stream already attached (an exec's output)
    client.on('data', (chunk) => {
      if (stalled) return client.pause();
      real.write(chunk);
      const trigger = options.stallAfter;
      if (trigger?.request.test(chunk.toString('latin1'))) setTimeout(engine.stall, trigger.delayMs);
    });
    real.on('data', (chunk) => (stalled ? real.pause() : client.write(chunk)));
    real.on('end', () => client.end());
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return engine;
}

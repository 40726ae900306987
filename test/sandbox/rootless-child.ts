/**
 * Run by test/sandbox/bwrap-rootless.test.ts as an unprivileged user: imports a `docker save` archive into a store of
 * its own, opens a sandbox, writes to the image's /etc, and runs the fork probe under a pids limit; prints one JSON line.
 */
import { RootfsStore } from '../../sandbox/bwrap/image-store.ts';
import { importArchive } from '../../sandbox/bwrap/import.ts';
import { BwrapRuntime } from '../../sandbox/bwrap/runtime.ts';
import { FORK_EXPLOSION } from '../support/sandbox-probes.ts';

const dir = process.argv[2]!;
const store = new RootfsStore(`${dir}/store`);
await importArchive(store, `${dir}/base.tar`, 'base');
const runtime = new BwrapRuntime({ store });
await runtime.ping();
const limits = await runtime.limitsInEffect();
const run = await runtime.withSandbox({ image: 'base', runId: 'rootless' }, (sandbox) =>
  sandbox
    .copyFiles([{ path: '/probe/x.py', content: 'import os\nprint("uid", os.getuid())\n' }])
    .then(() => sandbox.exec('python3 /probe/x.py && echo written > /etc/written && cat /etc/written && head -1 /etc/hosts')),
);
const forks = await runtime.withSandbox({ image: 'base', runId: 'rootless', limits: { pidsLimit: 32 } }, (sandbox) =>
  sandbox.exec(FORK_EXPLOSION, { timeoutMs: 60_000 }),
);
console.log(JSON.stringify({ uid: process.getuid?.(), limits, run, forks, left: await runtime.sandboxesOfRun('rootless') }));

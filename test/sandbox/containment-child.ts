/**
 * Run by test/sandbox/bwrap-rootless.test.ts as an unprivileged user: imports a `docker save` archive into a store of
 * its own and runs the containment battery (test/support/containment-battery.ts) on the bwrap kind; prints one
 * JSON line with each case's outcome.
 */
import os from 'node:os';
import { RootfsStore } from '../../sandbox/bwrap/image-store.ts';
import { importArchive } from '../../sandbox/bwrap/import.ts';
import { BwrapRuntime, type BwrapSandbox } from '../../sandbox/bwrap/runtime.ts';
import { batteryToken, runBattery } from '../support/containment-battery.ts';

const dir = process.argv[2]!;
const store = new RootfsStore(`${dir}/battery-store`);
await importArchive(store, `${dir}/base.tar`, 'base');
const runtime = new BwrapRuntime({ store });
await runtime.ping();
const results = await runBattery({
  image: 'base',
  runId: 'battery-rootless',
  token: batteryToken(),
  hostPaths: [store.root, dir, os.homedir()],
  runtime: {
    create: (options) => runtime.create(options),
    memoryLimit: async () => (await runtime.limitsInEffect()).memory,
    hostPathOf: async (sandbox, inside) => `${(sandbox as BwrapSandbox).upperDir}${inside}`,
  },
});
console.log(JSON.stringify({ uid: process.getuid?.(), results }));

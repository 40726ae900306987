// Worker-thread entry for src/index/worker-parser.ts. Plain JS so that Node can start it without a
// TypeScript loader; it registers tsx in this thread (a worker does not inherit the main thread's
// loader hooks when locfix runs through bin/locfix) and then loads the TypeScript worker body.
import { register } from 'tsx/esm/api';

register();
await import('./parse-worker.ts');

#!/usr/bin/env node
// locfix ships TypeScript sources and runs them through tsx, so there is no build step to forget.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli.ts');
await main();

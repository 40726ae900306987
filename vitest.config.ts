import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Chroma, Docker and git-backed tests start real processes; give them room.
    testTimeout: 120_000,
    hookTimeout: 300_000,
    pool: 'forks',
    globalSetup: ['test/global-setup.ts'],
  },
});

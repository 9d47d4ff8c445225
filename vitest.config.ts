import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // The runtime kernels run under in the suite (TALLY_SANDBOX_RUNTIME): runc unless the environment says otherwise,
    // until the whole suite passes under gVisor. The attack, runtime and hardened-spec tests run under runc and
    // runsc whatever this says.
    env: { TALLY_SANDBOX_RUNTIME: process.env.TALLY_SANDBOX_RUNTIME ?? 'runc' },
    reporters: ['default'],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    // The runtime of the sandboxes tests start directly (test/support/sandbox-fixture.ts): runc unless the
    // environment says otherwise, until they all pass under gVisor. The attack, runtime and hardened-spec tests
    // run under runc and runsc whatever this says; tally started by a test takes its own default (auto: runsc).
    env: { TALLY_SANDBOX_RUNTIME: process.env.TALLY_SANDBOX_RUNTIME ?? 'runc' },
    reporters: ['default'],
  },
});

#!/usr/bin/env node
// The `tally` command (package.json `bin`): runs src/cli/main.ts under tsx, from wherever it is called.
// Installed on the PATH by `npm link` in a clone; `npx tally …` works inside the clone too.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/main.ts');

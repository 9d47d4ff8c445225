/** `tally --version` says the version in the project's package.json, wherever the command line's files sit. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { version } from '../../src/cli/cli-usage.js';

describe('tally --version', () => {
  it("reads the version from the project's package.json", () => {
    const manifest = JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8')) as {
      version: string;
    };
    expect(version()).toBe(manifest.version);
    expect(version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

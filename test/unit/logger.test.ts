import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.js';

describe('createLogger', () => {
  it('redacts tokens, keys and passwords wherever they sit', () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createLogger({ destination });
    logger.info({ token: 'xoxb-1', llm: { apiKey: 'sk-2' }, db: { url: { password: 'p3' } }, user: 'ann' }, 'started');
    logger.child({ component: 'slack' }).warn({ authorization: 'Bearer xyz' }, 'retrying');
    const output = lines.join('');
    for (const secret of ['xoxb-1', 'sk-2', 'p3', 'Bearer xyz']) expect(output).not.toContain(secret);
    expect(output).toContain('[redacted]');
    expect(output).toContain('"user":"ann"');
  });
});

/** A logger whose lines the test reads back (level and message, with the rest of each JSON line). */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/base/logger.js';

export interface LoggedLine {
  level: number;
  msg: string;
}

export function capturedLog(level: 'debug' | 'info' | 'warn' = 'info'): { logger: Logger; logged: LoggedLine[] } {
  const logged: LoggedLine[] = [];
  const logger = createLogger({
    level,
    destination: new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) logged.push(JSON.parse(line));
        done();
      },
    }),
  });
  return { logger, logged };
}

import { expect, it } from 'vitest';
import { parseExportFlags } from '../../src/cli/export-training-command.js';

it('takes --out FILE and --out=FILE, like ask, and says what is wrong otherwise', () => {
  expect(parseExportFlags(['--out', 'a.jsonl'])).toEqual({ out: 'a.jsonl' });
  expect(parseExportFlags(['--out=a.jsonl'])).toEqual({ out: 'a.jsonl' });
  expect(parseExportFlags([])).toEqual({ problem: 'needs --out FILE.jsonl' });
  expect(parseExportFlags(['--out'])).toEqual({ problem: 'needs --out FILE.jsonl' });
  expect(parseExportFlags(['--out='])).toEqual({ problem: 'needs --out FILE.jsonl' });
  expect(parseExportFlags(['--out', 'a.jsonl', '--verbose'])).toEqual({ problem: 'unknown flag --verbose' });
});

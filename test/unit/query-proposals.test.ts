/** Which SQL an accepted section proposes as a verified query: the query behind its numbers. */
import { describe, expect, it } from 'vitest';
import type { Cell, FigureCheck, Section } from '../../src/report/report.js';
import { proposalFor } from '../../src/sessions/query-proposals.js';

const cell = (fields: Partial<Cell> & Pick<Cell, 'language' | 'code'>): Cell => ({
  author: 'model',
  figures: [],
  ranAt: 1,
  ...fields,
});

function section(cells: Cell[], checks: FigureCheck[] = []): Section {
  return {
    id: 's1',
    request: 'Which contracts churn most?',
    status: 'accepted',
    decisions: [],
    versions: [{ version: 1, title: 'Churn by contract', narrative: '…', cells, figures: [], createdAt: 1, checks }],
  };
}

const counts = cell({ language: 'sql', code: 'SELECT COUNT(*) FROM user_payments', database: 'telco', call: 'c1' });
const rates = cell({
  language: 'sql',
  code: ' SELECT Contract, AVG(x) FROM t GROUP BY 1 ',
  database: 'telco',
  call: 'c2',
});
const python = cell({ language: 'python', code: 'rates.round(3)', call: 'c3' });

describe('proposalFor', () => {
  it('proposes the query whose result holds most of the grounded figures', () => {
    const checks: FigureCheck[] = [
      { text: '42.7%', start: 0, end: 5, status: 'grounded', source: 'c2' },
      { text: '11.3%', start: 9, end: 14, status: 'grounded', source: 'c2' },
      { text: '5,634', start: 20, end: 25, status: 'grounded', source: 'c1' },
    ];
    expect(proposalFor(section([counts, rates, python], checks))).toEqual({
      database: 'telco',
      name: 'Churn by contract',
      question: 'Which contracts churn most?',
      sql: 'SELECT Contract, AVG(x) FROM t GROUP BY 1',
    });
  });

  it('proposes nothing when no figure comes straight from a query', () => {
    const fromPython: FigureCheck[] = [{ text: '42.7%', start: 0, end: 5, status: 'grounded', source: 'c3' }];
    expect(proposalFor(section([rates, counts, python], fromPython))).toBeUndefined();
    expect(proposalFor(section([python]))).toBeUndefined();
  });

  it('does not propose what already is a verified query', () => {
    const checks: FigureCheck[] = [{ text: '42.7%', start: 0, end: 5, status: 'grounded', source: 'c2' }];
    expect(proposalFor(section([{ ...rates, verifiedQuery: 'churn rate by contract' }], checks))).toBeUndefined();
  });
});

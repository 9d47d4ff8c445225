/** The review state machine: draft -> accepted | revision-requested -> draft … | discarded. */
import { describe, expect, it } from 'vitest';
import {
  acceptedSections,
  addDraft,
  type Cell,
  decide,
  emptyReport,
  latest,
  mayReview,
  type Report,
  ReviewError,
} from '../../src/report/report.js';

const cell = (code: string): Cell => ({ language: 'python', code, author: 'model', figures: [], ranAt: 1 });

function draft(report: Report, title: string, extra: { revises?: string; code?: string } = {}) {
  return addDraft(report, {
    title,
    narrative: `${title} narrative`,
    request: 'why do customers churn?',
    cells: [cell(extra.code ?? `print("${title}")`)],
    figures: [],
    at: 10,
    ...(extra.revises ? { revises: extra.revises } : {}),
  });
}

describe('review state machine', () => {
  it('numbers sections in drafting order and starts each as a draft, version 1', () => {
    const report = emptyReport('t', 0);
    const first = draft(report, 'Overview');
    const second = draft(report, 'Drivers');
    expect([first.section.id, second.section.id]).toEqual(['s1', 's2']);
    expect(report.sections.map((section) => [section.status, section.versions.length])).toEqual([
      ['draft', 1],
      ['draft', 1],
    ]);
  });

  it('puts accepted sections into the report in the order they were accepted', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    draft(report, 'Drivers');
    decide(report, 's2', { action: 'accept', by: 'U1', at: 20 });
    decide(report, 's1', { action: 'accept', by: 'U1', at: 21 });
    expect(acceptedSections(report).map((section) => latest(section).title)).toEqual(['Drivers', 'Overview']);
    expect(report.sections[0]?.decisions).toEqual([{ action: 'accept', version: 1, by: 'U1', at: 21 }]);
  });

  it('goes draft -> revision-requested -> draft (version 2, with the feedback) -> accepted', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    decide(report, 's1', { action: 'revise', by: 'U1', at: 20, feedback: 'add the missing ids' });
    expect(report.sections[0]?.status).toBe('revision-requested');
    expect(acceptedSections(report)).toEqual([]);
    const revised = draft(report, 'Overview, revised', { revises: 's1' });
    expect(revised.version).toMatchObject({ version: 2, feedback: 'add the missing ids' });
    expect(revised.section.status).toBe('draft');
    decide(report, 's1', { action: 'accept', by: 'U1', at: 30, version: 2 });
    expect(acceptedSections(report).map((section) => latest(section).title)).toEqual(['Overview, revised']);
    expect(report.sections).toHaveLength(1);
  });

  it('refuses a decision on a version that was replaced', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    decide(report, 's1', { action: 'revise', by: 'U1', at: 20, feedback: 'shorter' });
    draft(report, 'Overview v2', { revises: 's1' });
    expect(() => decide(report, 's1', { action: 'accept', by: 'U1', at: 30, version: 1 })).toThrow(
      /Version 1 of section s1 was replaced by version 2/,
    );
    expect(report.sections[0]?.status).toBe('draft');
  });

  it('keeps discarded sections out of the report and refuses to decide twice', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    decide(report, 's1', { action: 'discard', by: 'U1', at: 20 });
    expect(report.sections[0]?.status).toBe('discarded');
    expect(acceptedSections(report)).toEqual([]);
    expect(() => decide(report, 's1', { action: 'accept', by: 'U1', at: 21 })).toThrow(ReviewError);
    expect(() => decide(report, 's1', { action: 'accept', by: 'U1', at: 21 })).toThrow(/already discarded/);
  });

  it('lets a section awaiting revision be discarded, but not accepted', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    decide(report, 's1', { action: 'revise', by: 'U1', at: 20, feedback: 'x' });
    expect(() => decide(report, 's1', { action: 'accept', by: 'U1', at: 21 })).toThrow(/already revision-requested/);
    decide(report, 's1', { action: 'discard', by: 'U1', at: 22 });
    expect(report.sections[0]?.status).toBe('discarded');
  });

  it('accepts an accepted section only once', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    decide(report, 's1', { action: 'accept', by: 'U1', at: 20 });
    expect(() => decide(report, 's1', { action: 'accept', by: 'U2', at: 21 })).toThrow(/already accepted/);
    expect(report.accepted).toEqual(['s1']);
  });

  it('never revises an accepted or discarded section, and names unknown ones', () => {
    const report = emptyReport('t', 0);
    draft(report, 'Overview');
    decide(report, 's1', { action: 'accept', by: 'U1', at: 20 });
    expect(() => draft(report, 'Again', { revises: 's1' })).toThrow(/s1 is accepted/);
    expect(() => decide(report, 's9', { action: 'accept', by: 'U1', at: 20 })).toThrow(
      /no section s9 \(sections: s1\)/,
    );
  });

  it('lets the owner and configured reviewers decide, nobody else', () => {
    expect(mayReview('U1', 'U1', [])).toBe(true);
    expect(mayReview('U2', 'U1', ['U2'])).toBe(true);
    expect(mayReview('U3', 'U1', ['U2'])).toBe(false);
  });
});

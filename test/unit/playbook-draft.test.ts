import { describe, expect, it } from 'vitest';
import { draftPlaybook } from '../../src/agent/playbook-draft.js';
import { loadPlaybooks, PLAYBOOK_SECTIONS, parsePlaybook, rankPlaybooks } from '../../src/agent/playbooks.js';
import {
  acceptedSections,
  addDraft,
  type Cell,
  decide,
  emptyReport,
  type Report,
  ReviewError,
} from '../../src/report/report.js';
import type { ReportDocument } from '../../src/report/report-document.js';

const REQUEST = 'Why do fiber optic customers churn more than DSL customers?';
const DAY = Date.UTC(2025, 2, 14, 9, 30);

const cell = (language: Cell['language'], code: string, extra: Partial<Cell> = {}): Cell => ({
  language,
  code,
  author: 'model',
  figures: [],
  ranAt: DAY,
  ...extra,
});

/** A thread's report: two accepted sections (the second after a revision) and a discarded one. */
function reviewedReport(): Report {
  const report = emptyReport('slack:C42:1710400000.0001', DAY);
  addDraft(report, {
    title: 'Fiber and DSL customers',
    stage: 'data overview',
    request: REQUEST,
    narrative: 'Fiber optic customers are 44% of the 5,517 internet customers. DSL customers stay longer.',
    cells: [
      cell('sql', "SELECT customerID, InternetService, tenure FROM user_services WHERE InternetService <> 'No'", {
        database: 'telco_db',
        dataframe: 'services',
        rows: 5517,
      }),
      cell(
        'python',
        'import pandas as pd\nshare = services.InternetService.value_counts(normalize=True)\nprint(share)',
      ),
    ],
    figures: [{ id: 's1-1', title: 'Customers by internet service', alt: 'bar chart' }],
    at: DAY,
  });
  decide(report, 's1', { action: 'accept', by: 'U_ANNA', at: DAY + 1000 });
  addDraft(report, {
    title: 'Churn of fiber optic versus DSL customers',
    stage: 'drivers',
    request: REQUEST,
    narrative: 'Fiber churn is higher OLD_VERSION_NARRATIVE.',
    cells: [cell('python', 'OLD_VERSION_CODE = 1')],
    figures: [],
    at: DAY + 2000,
  });
  decide(report, 's2', { action: 'revise', by: 'U_ANNA', at: DAY + 3000, feedback: 'Control for contract type' });
  addDraft(report, {
    title: 'Churn of fiber optic versus DSL customers',
    stage: 'drivers',
    request: REQUEST,
    revises: 's2',
    narrative:
      '## Result\n\nFiber optic customers churn at **41.9%** against 19.0% for DSL, also within each contract type.',
    cells: [
      cell(
        'sql',
        'SELECT p.customerID, p.MonthlyCharges, c.Churn FROM user_payments p JOIN user_churn c USING (customerID)',
        {
          database: 'telco_db',
          dataframe: 'pay_churn',
          rows: 7032,
        },
      ),
      cell(
        'python',
        [
          'import matplotlib.pyplot as plt',
          'from scipy.stats import chi2_contingency',
          "df = pay_churn.merge(services, on='customerID')",
          '## rates by contract and internet type',
          "rates = pd.crosstab([df.Contract, df.InternetService], df.Churn == 'Yes', normalize='index')",
          "rates[True].unstack().plot.bar(title='Churn by contract and internet service')",
        ].join('\n'),
      ),
      cell('python', '# split by contract, as asked\nchi2_contingency(pd.crosstab(df.InternetService, df.Churn))', {
        author: 'human',
      }),
    ],
    figures: [{ id: 's2-1', title: 'Churn by contract and internet service', alt: 'grouped bars' }],
    at: DAY + 4000,
  });
  decide(report, 's2', { action: 'accept', by: 'U_BEN', at: DAY + 5000 });
  addDraft(report, {
    title: 'DISCARDED_TITLE',
    request: 'What is the weather?',
    narrative: 'Unrelated.',
    cells: [cell('python', 'DISCARDED_CODE = 1')],
    figures: [],
    at: DAY + 6000,
  });
  decide(report, 's3', { action: 'discard', by: 'U_ANNA', at: DAY + 7000 });
  return report;
}

/** What the report book hands the exporters: the accepted sections at their accepted versions. */
function documentOf(report: Report): ReportDocument {
  return {
    title: 'Fiber churn',
    threadKey: report.threadKey,
    createdAt: report.createdAt,
    exportedAt: DAY + 10_000,
    databases: [{ name: 'telco_db', dialect: 'sqlite' }],
    sections: acceptedSections(report).map((section) => {
      const decision = section.decisions.findLast((candidate) => candidate.action === 'accept');
      const version = section.versions.find((candidate) => candidate.version === decision?.version);
      if (!decision || !version) throw new Error(`section ${section.id} is not accepted`);
      return {
        id: section.id,
        request: section.request,
        ...(section.stage ? { stage: section.stage } : {}),
        title: version.title,
        narrative: version.narrative,
        version: version.version,
        cells: version.cells,
        figures: version.figures.map((figure) => ({ ...figure, png: Buffer.from('png') })),
        acceptedBy: decision.by,
        acceptedAt: decision.at,
        feedback: section.decisions.flatMap((candidate) => (candidate.feedback ? [candidate.feedback] : [])),
      };
    }),
  };
}

const doc = documentOf(reviewedReport());

describe('draftPlaybook', () => {
  it('writes a playbook that parsePlaybook reads back, with all four sections filled', () => {
    const draft = draftPlaybook(doc);
    const playbook = parsePlaybook(draft.file, draft.markdown);
    expect(draft.title).toBe('Why do fiber optic customers churn more than DSL customers');
    expect(draft.file).toBe('why-do-fiber-optic-customers-churn-more-than-dsl-customers.md');
    expect(playbook.title).toBe(draft.title);
    expect(playbook.when).toBe(`The user asks something like "${REQUEST}"`);
    expect(playbook.tags).toEqual(['customers', 'fiber', 'dsl', 'optic', 'churn', 'overview']);
    expect(Object.keys(playbook.sections)).toEqual([...PLAYBOOK_SECTIONS]);
    for (const section of PLAYBOOK_SECTIONS) expect(playbook.sections[section].trim()).not.toBe('');
  });

  it('states a requirement per section, the method per stage and the code per section', () => {
    const { sections } = parsePlaybook('draft.md', draftPlaybook(doc).markdown);
    expect(sections.Requirements.split('\n')).toEqual([
      '- Establish fiber and DSL customers; the accepted report found: Fiber optic customers are 44% of the 5,517 internet customers.',
      '- Establish churn of fiber optic versus DSL customers; the accepted report found: Fiber optic customers churn at 41.9% against 19.0% for DSL, also within each contract type.',
    ]);
    expect(sections.Specs).toContain('- Stage **data overview** (s1 "Fiber and DSL customers"):');
    expect(sections.Specs).toContain('  - SQL reads `user_services` on telco_db.');
    expect(sections.Specs).toContain('  - SQL reads `user_payments`, `user_churn` on telco_db.');
    expect(sections.Specs).toContain(
      '  - DataFrames: `pay_churn` (7,032 rows) from SQL, `df` in Python, `rates` in Python.',
    );
    expect(sections.Specs).toContain('  - Python uses matplotlib.pyplot, scipy.stats.');
    expect(sections.Specs).toContain('  - Charts: "Churn by contract and internet service".');
    expect(sections.Specs.indexOf('data overview')).toBeLessThan(sections.Specs.indexOf('**drivers**'));
    expect(sections['Example code'].match(/^```(sql|python)$/gm)).toEqual([
      '```sql',
      '```python',
      '```sql',
      '```python',
      '```python',
    ]);
    expect(sections['Example code']).toContain('-- loaded with load_dataframe into services (5,517 rows), on telco_db');
    expect(sections['Example code']).toContain('s2, Churn of fiber optic versus DSL customers (drivers):');
  });

  it('turns human-written cells and revisions into hints and says where the playbook came from', () => {
    const { sections } = parsePlaybook('draft.md', draftPlaybook(doc).markdown);
    expect(sections.Hints).toContain('"Churn of fiber optic versus DSL customers" was accepted only after 1 revision');
    expect(sections.Hints).toContain(
      'Reviewers asked for "Churn of fiber optic versus DSL customers": Control for contract type',
    );
    expect(sections.Hints).toContain('`chi2_contingency(pd.crosstab(df.InternetService, df.Churn))`');
    expect(sections.Hints).toContain('thread `slack:C42:1710400000.0001`');
    expect(sections.Hints).toContain('accepted by U_ANNA, U_BEN, last on 2025-03-14');
  });

  it('dates the playbook by the export when the acceptance time is unknown', () => {
    const unknown = {
      ...doc,
      sections: doc.sections.map((section) => ({ ...section, acceptedBy: '', acceptedAt: 0 })),
    };
    const { sections } = parsePlaybook('draft.md', draftPlaybook(unknown).markdown);
    expect(sections.Hints).toContain('(2 accepted sections, last on 2025-03-14)');
  });

  it('takes its content only from the given sections', () => {
    const { markdown } = draftPlaybook(doc);
    for (const unseen of ['DISCARDED', 'weather', 'OLD_VERSION']) {
      expect(markdown).not.toContain(unseen);
    }
    const firstOnly = draftPlaybook({ ...doc, sections: doc.sections.slice(0, 1) }).markdown;
    for (const later of ['user_payments', 'pay_churn', 'chi2_contingency', 'Churn by contract', 'drivers']) {
      expect(firstOnly).not.toContain(later);
    }
  });

  it('keeps a heading-like comment inside the example code', () => {
    const { sections } = parsePlaybook('draft.md', draftPlaybook(doc).markdown);
    expect(sections['Example code']).toContain('\n ## rates by contract and internet type\n');
  });

  it('accepts a given title with a colon and avoids taken file names', () => {
    const title = 'Fiber churn: contract matters';
    const existingFiles = ['fiber-churn-contract-matters.md', 'prompts/playbooks/fiber-churn-contract-matters-2.md'];
    const draft = draftPlaybook(doc, { title, existingFiles });
    expect(draft.file).toBe('fiber-churn-contract-matters-3.md');
    expect(parsePlaybook(draft.file, draft.markdown).title).toBe(title);
    expect(draftPlaybook(doc, { title: 'Read me' }).file).toBe('read-me.md');
    expect(draftPlaybook(doc, { title: 'README' }).file).toBe('readme-2.md');
  });

  it('ranks first among the shipped playbooks for the request it came from', async () => {
    const draft = draftPlaybook(doc);
    const shipped = await loadPlaybooks();
    const ranked = rankPlaybooks([...shipped, parsePlaybook(draft.file, draft.markdown)], REQUEST, { top: 3 });
    expect(ranked[0]?.playbook.file).toBe(draft.file);
    expect(ranked.map((entry) => entry.playbook.file)).toContain('churn-drivers.md');
  });

  it.each([
    'Do senior citizens paying by electronic check churn more?',
    'Describe the payment tables and their columns',
  ])('ranks first for its own request even next to a close shipped playbook: "%s"', async (request) => {
    const retold = { ...doc, sections: doc.sections.map((section) => ({ ...section, request })) };
    const draft = draftPlaybook(retold);
    const shipped = await loadPlaybooks();
    const [best] = rankPlaybooks([...shipped, parsePlaybook(draft.file, draft.markdown)], request);
    expect(best?.playbook.file).toBe(draft.file);
  });

  it('refuses a report with nothing accepted', () => {
    expect(() => draftPlaybook({ ...doc, sections: [] })).toThrow(ReviewError);
  });
});

/**
 * Number grounding, checked on hand-written analyst prose: every figure that `groundFigures` finds in
 * an answer or report section must be one the case lists, with the listed status (grounded against a
 * tool output, derived from two grounded figures, ungrounded, or ambiguous), and every listed figure
 * must be found. Non-figures (years, list markers, bounds, code, the user's own numbers...) must be
 * absent. The cases were written from the spec alone, without reading the matcher.
 *
 * Over all cases (those marked `limit` included) it also measures the matcher as a flagger, where a
 * positive is a figure the case says is ungrounded or ambiguous: flag precision, flag recall, and
 * grounding recall (good figures recognised as grounded or derived), printed on one line, with a
 * floor on precision and recall.
 *
 * Figure texts are compared after unifying spaces (no-break and thin spaces too), dropping a leading
 * currency sign or `~`/`≈`, and spelling a percent or point unit one way, so that the cases pin which
 * figures are found and how they are judged rather than the exact edge of each span; the span itself
 * is checked against `start`/`end`.
 */
import { describe, expect, it } from 'vitest';
import { formatRows } from '../../src/agent/format-for-model.js';
import { type FigureCheck, groundFigures } from '../../src/agent/grounding/ground-figures.js';
import { numbersIn } from '../../src/agent/grounding/result-numbers.js';
import { givenNumbers } from '../../src/agent/grounding/thread-evidence.js';

type Status = FigureCheck['status'];

interface Case {
  name: string;
  /** The Markdown the agent wrote. */
  text: string;
  /** What the tools returned in the thread so far, one entry per tool result. */
  outputs: string[];
  /** The user's request, whose numbers are not figures to check. */
  given?: string;
  /** Relative tolerance for approximate figures (the matcher's default is 5%). */
  approx?: number;
  expect: Partial<Record<Status, string[]>>;
  /** Why an honest matcher might get this one wrong: left out of the exact check, kept in the metric. */
  limit?: string;
}

/** A `run_sql` preview as the tool returns it: aligned columns, then the row count. */
function sql(columns: string[], rows: unknown[][]): string {
  return `${formatRows(columns, rows)}\n(${rows.length} rows)`;
}

/** What a `run_python` cell printed. */
function py(...lines: string[]): string {
  return `stdout:\n${lines.join('\n')}`;
}

const md = (...lines: string[]) => lines.join('\n');

// Tool outputs shared by several cases (the telco churn data set: 7,043 customers, 1,869 churned).
const TOTALS = sql(['customers', 'churned', 'churn_rate'], [[7043, 1869, '0.2654']]);
const BY_CONTRACT = sql(
  ['contract', 'customers', 'churned', 'churn_rate'],
  [
    ['Month-to-month', 3875, 1655, '0.4271'],
    ['One year', 1473, 166, '0.1127'],
    ['Two year', 1695, 48, '0.0283'],
  ],
);
const CONTRACT_CHURN = py(
  'Contract',
  'Month-to-month    0.427097',
  'One year          0.112695',
  'Two year          0.028319',
  'Name: Churn, dtype: float64',
);
const CONTRACT_SHARE = py(
  'Contract',
  'Month-to-month    0.550192',
  'One year          0.209144',
  'Two year          0.240664',
  'Name: proportion, dtype: float64',
);
const INTERNET_CHURN = py(
  'InternetService',
  'DSL            0.189591',
  'Fiber optic    0.418928',
  'No             0.074050',
  'Name: Churn, dtype: float64',
);
const PAYMENT_CHURN = py(
  'PaymentMethod',
  'Bank transfer (automatic)    0.167098',
  'Credit card (automatic)      0.152431',
  'Electronic check             0.452854',
  'Mailed check                 0.191067',
  'Name: Churn, dtype: float64',
);
const CORRELATIONS = py(
  'tenure            -0.352229',
  'contract_months   -0.396713',
  'MonthlyCharges     0.193356',
  'Name: Churn, dtype: float64',
);
const LOST_REVENUE = py('monthly_lost     139130.85', 'annual_lost     1669570.20', 'dtype: float64');
const REVENUE = sql(
  ['quarter', 'revenue'],
  [
    ['2024Q2', '3912450.00'],
    ['2024Q3', '4187300.00'],
  ],
);
const CHI_SQUARE = py('chi2 = 1184.5966', 'p = 5.863038e-258', 'dof = 2');
const TENURE_P = py('p-value: 1.270000e-105');
const CONVERSION = py('0.449336');
const MTM_CI = py('rate: 0.4271', '95% CI: 0.4116-0.4427');
const FIBER_CI = py('ci_low     0.315200', 'ci_high    0.345900', 'dtype: float64');
const MEAN_TOTAL = py('mean TotalCharges: 2283.300441');

const CASES: Case[] = [
  // --- Plain figures: integers, separators, decimals, percentages ---
  {
    name: 'integers with a thousands comma',
    text: 'Of the 7,043 customers in the base, 1,869 churned in the last quarter.',
    outputs: [TOTALS],
    expect: { grounded: ['7,043', '1,869'] },
  },
  {
    name: 'integer without separator against an extraction summary',
    text: 'The training frame holds 5634 rows.',
    outputs: [
      'train: 5634 rows loaded from telco_db. Columns: customerID: object, tenure: int64, MonthlyCharges: float64, Churn: object',
    ],
    expect: { grounded: ['5634'] },
  },
  {
    name: 'no-break and thin space as thousands separators',
    text: 'The extract covers 7\u00a0043 customers, and 1\u2009869 of them churned.',
    outputs: [TOTALS],
    expect: { grounded: ['7\u00a0043', '1\u2009869'] },
  },
  {
    name: 'bare integer against an output with separators',
    text: '1869 customers churned over the period.',
    outputs: [py('churned customers: 1,869')],
    expect: { grounded: ['1869'] },
  },
  {
    name: 'decimals at the precision of a describe() print',
    text: 'Customers pay 64.76 a month on average and stay 32.37 months.',
    outputs: [
      py(
        '            tenure  MonthlyCharges',
        'count  7043.000000     7043.000000',
        'mean     32.371149       64.761692',
        'std      24.559481       30.090047',
      ),
    ],
    expect: { grounded: ['64.76', '32.37'] },
  },
  {
    name: 'fractions written as percentages',
    text: 'Month-to-month customers churn at 42.7%, one-year customers at 11.3% and two-year customers at 2.8%.',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%', '2.8%'] },
  },
  {
    name: 'percent with a space and the word percent',
    text: 'Overall churn is 26.5 % while senior citizens churn at 41.7 percent.',
    outputs: [py('0.2653698707936959', '0.4168126094570928')],
    expect: { grounded: ['26.5 %', '41.7 percent'] },
  },
  {
    name: 'printed percentage matched at a lower precision',
    text: "The spring campaign's open rate was 44.9% and its click rate 6.1%.",
    outputs: [py('open rate:  44.93%', 'click rate: 6.12%')],
    expect: { grounded: ['44.9%', '6.1%'] },
  },
  {
    name: 'printed percentage written as a fraction',
    text: 'Click-through came in at 0.061 per delivered email.',
    outputs: [py('open rate:  44.93%', 'click rate: 6.12%')],
    expect: { grounded: ['0.061'] },
  },
  {
    name: 'percentages already multiplied by 100 in the output',
    text: 'Churn is 42.7% on month-to-month and 11.3% on one-year contracts.',
    outputs: [
      py(
        'Contract',
        'Month-to-month    42.71',
        'One year          11.27',
        'Two year           2.83',
        'Name: churn_pct, dtype: float64',
      ),
    ],
    expect: { grounded: ['42.7%', '11.3%'] },
  },
  {
    name: 'figures in bold and italics',
    text: '**42.7%** of month-to-month customers churned, versus *11.3%* on one-year terms and _2.8%_ on two-year terms.',
    outputs: [BY_CONTRACT],
    expect: { grounded: ['42.7%', '11.3%', '2.8%'] },
  },
  {
    name: 'counts listed with comma and space are three figures',
    text: 'By contract type, churners number 1,655, 166 and 48.',
    outputs: [BY_CONTRACT],
    expect: { grounded: ['1,655', '166', '48'] },
  },

  // --- Scientific notation and p-values ---
  {
    name: 'chi-square statistic and a tiny p-value',
    text: 'Contract type and churn are far from independent (χ² = 1184.6, dof 2, p = 5.9e-258).',
    outputs: [CHI_SQUARE],
    expect: { grounded: ['1184.6', '5.9e-258'] },
  },
  {
    name: 'times ten to the power with a caret',
    text: 'Tenure differs between churners and stayers (Mann–Whitney U = 2.5 × 10^6, p = 1.3 × 10^-105).',
    outputs: [py('U = 2515538.0, p = 1.270000e-105')],
    expect: { grounded: ['2.5 × 10^6', '1.3 × 10^-105'] },
  },
  {
    name: 'superscript exponent and capital E',
    text: 'The log-rank test rejects equal survival (p = 1.3×10⁻¹⁰⁵) and the Wald test agrees (p = 4.1E-98).',
    outputs: [py('logrank p-value: 1.270000e-105', 'wald p-value:    4.123456e-98')],
    expect: { grounded: ['1.3×10⁻¹⁰⁵', '4.1E-98'] },
  },
  {
    name: 'scientific figure rounded from the output',
    text: 'The tenure effect is significant, p = 1.3e-105, and holds at 1.27e-105 without rounding.',
    outputs: [TENURE_P],
    expect: { grounded: ['1.3e-105', '1.27e-105'] },
  },
  {
    name: 'a p-value bound is not a figure',
    text: 'Electronic-check payers have 2.94 times the odds of churning (p < 0.001).',
    outputs: [py('odds ratio: 2.9412', 'p-value: 3.200000e-45')],
    expect: { grounded: ['2.94'] },
  },

  // --- Ranges and intervals ---
  {
    name: 'confidence interval as a hyphen range',
    text: 'Month-to-month churn is 42.7% (95% CI 41.2-44.3%).',
    outputs: [MTM_CI],
    expect: { grounded: ['42.7%', '41.2', '44.3%'] },
  },
  {
    name: 'en dash range sharing one percent sign',
    text: 'Two-year customers churn at 2.0–3.6% depending on the interval method.',
    outputs: [py('ci_low     0.020356', 'ci_high    0.036208', 'dtype: float64')],
    expect: { grounded: ['2.0', '3.6%'] },
  },
  {
    name: 'the percent sign carries to the left end of a range',
    text: 'Among fiber customers without tech support, churn is 31.5-34.6%.',
    outputs: [FIBER_CI],
    expect: { grounded: ['31.5', '34.6%'] },
  },
  {
    name: 'between one value and another',
    text: 'Across the folds, top-decile lift lies between 10.2 and 11.4.',
    outputs: [
      py('0    10.83', '1    11.42', '2    10.17', '3    10.96', '4    11.05', 'Name: top_decile_lift, dtype: float64'),
    ],
    expect: { grounded: ['10.2', '11.4'] },
  },
  {
    name: 'coefficient with an interval written with "to"',
    text: 'Each extra month of tenure lowers the log-odds of churn by 0.036 (CI −0.041 to −0.032, z = −16.5).',
    outputs: [
      py(
        '                 coef    std err          z      P>|z|      [0.025      0.975]',
        'const         -1.1945      0.087    -13.730      0.000      -1.365      -1.024',
        'tenure        -0.0362      0.002    -16.530      0.000      -0.041      -0.032',
      ),
    ],
    expect: { grounded: ['0.036', '−0.041', '−0.032', '−16.5'] },
  },

  // --- Markdown tables ---
  {
    name: 'table of counts and rates',
    text: md(
      '| Contract | Customers | Churn rate |',
      '|---|---:|---:|',
      '| Month-to-month | 3,875 | 42.7% |',
      '| One year | 1,473 | 11.3% |',
      '| Two year | 1,695 | 2.8% |',
    ),
    outputs: [BY_CONTRACT],
    expect: { grounded: ['3,875', '42.7%', '1,473', '11.3%', '1,695', '2.8%'] },
  },
  {
    name: 'table whose row labels are small numbers',
    text: md(
      '| Decile | Customers | Churn rate |',
      '|---|---|---|',
      '| 1 | 704 | 65.5% |',
      '| 2 | 704 | 50.1% |',
      '| 3 | 705 | 38.0% |',
    ),
    outputs: [
      sql(
        ['decile', 'customers', 'churn_rate'],
        [
          [1, 704, '0.6548'],
          [2, 704, '0.5014'],
          [3, 705, '0.3801'],
        ],
      ),
    ],
    expect: { grounded: ['704', '65.5%', '704', '50.1%', '705', '38.0%'] },
  },
  {
    name: 'table with interval cells',
    text: md(
      '| Internet | Churn | Interval |',
      '|---|---|---|',
      '| DSL | 19.0% | 17.6–20.4% |',
      '| Fiber optic | 41.9% | 40.2–43.6% |',
    ),
    outputs: [
      py(
        '               rate  ci_low  ci_high',
        'DSL          0.1896  0.1758   0.2040',
        'Fiber optic  0.4189  0.4021   0.4359',
      ),
    ],
    expect: { grounded: ['19.0%', '17.6', '20.4%', '41.9%', '40.2', '43.6%'] },
  },

  // --- Suffixes, ratios, points ---
  {
    name: 'k and M suffixes with a currency sign',
    text: 'Churners took $139k of monthly revenue with them, $1.7M a year.',
    outputs: [LOST_REVENUE],
    expect: { grounded: ['$139k', '$1.7M'] },
  },
  {
    name: 'million and bn suffixes',
    text: 'Q3 revenue reached 4.2 million, up from 3.9 million in Q2; the group is valued at 1.1bn.',
    outputs: [REVENUE, py('market cap: 1080000000.0')],
    expect: { grounded: ['4.2 million', '3.9 million', '1.1bn'] },
  },
  {
    name: 'thousand suffix next to a plain count',
    text: 'The newsletter went to 12.4 thousand recipients and was opened 5,577 times.',
    outputs: [py('recipients: 12412', 'opens: 5577')],
    expect: { grounded: ['12.4 thousand', '5,577'] },
  },
  {
    name: 'ratio written with x',
    text: 'Month-to-month customers churn 15.1x as often as two-year customers.',
    outputs: [py('month-to-month vs two-year churn ratio: 15.08')],
    expect: { grounded: ['15.1x'] },
  },
  {
    name: 'ratio written with ×',
    text: 'Fiber customers churn 2.2× as often as DSL customers.',
    outputs: [py('fiber vs dsl churn ratio: 2.21')],
    expect: { grounded: ['2.2×'] },
  },
  {
    name: 'percentage points printed by the cell',
    text: 'After the price change, churn fell by 4.3 percentage points.',
    outputs: [py('churn before: 0.2841', 'churn after:  0.2411', 'delta (pp): -4.3')],
    expect: { grounded: ['4.3 percentage points'] },
  },

  // --- Negatives and signs ---
  {
    name: 'negative correlations with hyphen and minus sign',
    text: 'Tenure correlates negatively with churn (r = -0.35), contract length more so (r = −0.40), while monthly charges correlate positively (r = 0.19).',
    outputs: [CORRELATIONS],
    expect: { grounded: ['-0.35', '−0.40', '0.19'] },
  },
  {
    name: 'sign ignored on a drop',
    text: 'NPS saw a drop of 5.2 points quarter on quarter.',
    outputs: [py('nps_delta: -5.2')],
    expect: { grounded: ['5.2'] },
  },
  {
    name: 'correlation matrix',
    text: 'Tenure and total charges are strongly correlated (r = 0.83); monthly and total charges moderately (r = 0.65); tenure and monthly charges only weakly (r = 0.25).',
    outputs: [
      py(
        '                  tenure  MonthlyCharges  TotalCharges',
        'tenure          1.000000        0.247900      0.825880',
        'MonthlyCharges  0.247900        1.000000      0.651065',
        'TotalCharges    0.825880        0.651065      1.000000',
      ),
    ],
    expect: { grounded: ['0.83', '0.65', '0.25'] },
  },

  // --- Approximate figures ---
  {
    name: 'about: outside the rounding, inside 5%',
    text: 'About 47% of trial users converted.',
    outputs: [CONVERSION],
    expect: { grounded: ['47%'] },
  },
  {
    name: 'tilde',
    text: '~1,950 customers churned.',
    outputs: [TOTALS],
    expect: { grounded: ['1,950'] },
  },
  {
    name: 'approximately with a million suffix',
    text: 'Approximately 1.6 million a year walks out with churners.',
    outputs: [LOST_REVENUE],
    expect: { grounded: ['1.6 million'] },
  },
  {
    name: 'almost equal sign',
    text: 'Lifetime billing averages ≈ 2,350 per customer.',
    outputs: [MEAN_TOTAL],
    expect: { grounded: ['2,350'] },
  },
  {
    name: 'about with whole thousands',
    text: 'The base holds about 7,000 customers.',
    outputs: [TOTALS],
    expect: { grounded: ['7,000'] },
  },
  {
    name: 'roughly within rounding, nearly beyond tolerance',
    text: 'Roughly 45% of trial users converted, and nearly 2,400 of them upgraded within a week.',
    outputs: [py('converted: 0.449336', 'upgraded: 2254')],
    expect: { grounded: ['45%'], ungrounded: ['2,400'] },
  },
  {
    name: 'almost: beyond the default 5%',
    text: 'Almost 2,000 customers churned.',
    outputs: [TOTALS],
    expect: { ungrounded: ['2,000'] },
  },
  {
    name: 'almost: inside a 10% tolerance',
    text: 'Almost 2,000 customers churned.',
    outputs: [TOTALS],
    approx: 0.1,
    expect: { grounded: ['2,000'] },
  },
  {
    name: 'roughly: too far off',
    text: 'Roughly 50% of trial users converted.',
    outputs: [CONVERSION],
    expect: { ungrounded: ['50%'] },
  },
  {
    name: 'whole thousands keep two significant digits',
    text: 'The base holds 7,000 customers.',
    outputs: [TOTALS],
    expect: { grounded: ['7,000'] },
  },

  // --- Derived figures ---
  {
    name: 'derived: a gap in points',
    text: 'Month-to-month churn is 42.7% against 11.3% for one-year contracts, a gap of 31.4 points.',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%'], derived: ['31.4'] },
  },
  {
    name: 'derived: pp above',
    text: 'Fiber optic churn is 41.9%, 22.9 pp above DSL at 19.0%.',
    outputs: [INTERNET_CHURN],
    expect: { grounded: ['41.9%', '19.0%'], derived: ['22.9 pp'] },
  },
  {
    name: 'derived: times as likely',
    text: 'Month-to-month customers are 3.8 times as likely to churn as one-year customers (42.7% vs 11.3%).',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%'], derived: ['3.8'] },
  },
  {
    name: 'derived: a share',
    text: 'Seniors are over-represented among leavers: 476 of the 1,869 churners, a 25.5% share.',
    outputs: [
      sql(
        ['senior', 'churned'],
        [
          [0, 1393],
          [1, 476],
        ],
      ),
      sql(['churned'], [[1869]]),
    ],
    expect: { grounded: ['476', '1,869'], derived: ['25.5%'] },
  },
  {
    name: 'derived: a relative decrease',
    text: 'Monthly churn fell from 3.1% in March to 2.6% in April, a 16.1% decrease.',
    outputs: [
      sql(
        ['month', 'churn_rate'],
        [
          ['2024-03', '0.0310'],
          ['2024-04', '0.0260'],
        ],
      ),
    ],
    expect: { grounded: ['3.1%', '2.6%'], derived: ['16.1%'] },
  },
  {
    name: 'derived: higher, in dollars',
    text: 'Churners pay $74.44 a month against $61.27 for stayers, $13.17 higher.',
    outputs: [py('Churn', 'No     61.27', 'Yes    74.44', 'Name: MonthlyCharges, dtype: float64')],
    expect: { grounded: ['$74.44', '$61.27'], derived: ['$13.17'] },
  },
  {
    name: 'derived: ROC AUC difference',
    text: 'The gradient-boosted model reaches a ROC AUC of 0.846 on the holdout, 0.034 higher than logistic regression at 0.812.',
    outputs: [py('   model     auc', '0    gbm  0.8462', '1  logit  0.8118')],
    expect: { grounded: ['0.846', '0.812'], derived: ['0.034'] },
  },
  {
    name: 'derived: a ratio',
    text: 'Electronic-check payers churn at 45.3% and credit-card payers at 15.2%, a ratio of 3.0.',
    outputs: [PAYMENT_CHURN],
    expect: { grounded: ['45.3%', '15.2%'], derived: ['3.0'] },
  },
  {
    name: 'derived: out of',
    text: '1,655 out of 3,875 month-to-month customers churned (42.7%).',
    outputs: [sql(['contract', 'customers', 'churned'], [['Month-to-month', 3875, 1655]])],
    expect: { grounded: ['1,655', '3,875'], derived: ['42.7%'] },
  },
  {
    name: 'derived: a relative rise',
    text: 'Monthly churn rose from 2.6% in April to 3.1% in May, a 19.2% rise.',
    outputs: [
      sql(
        ['month', 'churn_rate'],
        [
          ['2024-04', '0.0260'],
          ['2024-05', '0.0310'],
        ],
      ),
    ],
    expect: { grounded: ['2.6%', '3.1%'], derived: ['19.2%'] },
  },
  {
    name: 'derived: a fold change',
    text: 'Electronic-check payers (45.3%) versus credit-card payers (15.2%): a fold change of 3.0.',
    outputs: [PAYMENT_CHURN],
    expect: { grounded: ['45.3%', '15.2%'], derived: ['3.0'] },
  },
  {
    name: 'no cue: a difference the sentence does not call one',
    text: 'Month-to-month churn is 42.7% and one-year churn is 11.3%. The retention team set its target at 31.4%.',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%'], ungrounded: ['31.4%'] },
  },
  {
    name: 'no cue: a ratio the sentence does not call one',
    text: 'Fiber optic churn is 41.9% and DSL churn is 19.0%; the risk index puts fiber at 2.2.',
    outputs: [INTERNET_CHURN],
    expect: { grounded: ['41.9%', '19.0%'], ungrounded: ['2.2'] },
  },
  {
    name: 'no derivation across paragraphs',
    text: 'Month-to-month churn is 42.7%.\n\nOne-year churn is 11.3%, a gap of 31.4 points from the worst segment.',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%'], ungrounded: ['31.4'] },
  },
  {
    name: 'wrong derived gap',
    text: 'Month-to-month churn is 42.7% against 11.3% for one-year contracts, a gap of 32.4 points.',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%'], ungrounded: ['32.4'] },
  },
  {
    name: 'wrong derived ratio',
    text: 'Month-to-month customers are 4.8 times as likely to churn as one-year customers (42.7% vs 11.3%).',
    outputs: [CONTRACT_CHURN],
    expect: { grounded: ['42.7%', '11.3%'], ungrounded: ['4.8'] },
  },

  // --- Near misses ---
  {
    name: 'near miss: 44.9% against an output of 49.4%',
    text: "The spring campaign's open rate was 44.9%.",
    outputs: [py('open rate: 49.40%')],
    expect: { ungrounded: ['44.9%'] },
  },
  {
    name: 'near miss: 1,897 against 1,879',
    text: 'The loyalty cohort has 1,897 members.',
    outputs: [sql(['members'], [[1879]])],
    expect: { ungrounded: ['1,897'] },
  },
  {
    name: 'near miss: 0.45 against 0.44',
    text: 'Support tickets and churn have a Spearman correlation of 0.45.',
    outputs: [py('spearman r = 0.44')],
    expect: { ungrounded: ['0.45'] },
  },
  {
    name: 'near miss: 0.4496 is 45.0%, not 44.9%',
    text: 'In the test group, churn is 44.9%.',
    outputs: [py('test group churn: 0.4496')],
    expect: { ungrounded: ['44.9%'] },
  },
  {
    name: '0.4496 rounded correctly to 45.0%',
    text: 'In the test group, churn is 45.0%.',
    outputs: [py('test group churn: 0.4496')],
    expect: { grounded: ['45.0%'] },
  },
  {
    name: 'near miss: 64.7612 is not 64.77',
    text: 'The mean monthly charge is 64.77.',
    outputs: [py('mean monthly charge: 64.7612')],
    expect: { ungrounded: ['64.77'] },
  },
  {
    name: 'near miss: more precise than the output',
    text: 'The open rate was 44.93%.',
    outputs: [py('open rate: 44.9%')],
    expect: { ungrounded: ['44.93%'] },
  },
  {
    name: 'near miss: an invented rate next to a real one',
    text: 'Electronic-check payers churn at 45.3%, mailed-check payers at 21.4%.',
    outputs: [PAYMENT_CHURN],
    expect: { grounded: ['45.3%'], ungrounded: ['21.4%'] },
  },
  {
    name: 'near miss: swapped digit groups',
    text: 'Total billed revenue is 16,168,056.',
    outputs: [py('TotalCharges sum: 16056168.70')],
    expect: { ungrounded: ['16,168,056'] },
  },
  {
    name: 'near miss: wrong exponent',
    text: 'The tenure effect is significant with p = 1.3e-15.',
    outputs: [TENURE_P],
    expect: { ungrounded: ['1.3e-15'] },
  },
  {
    name: 'near miss: wrong mantissa',
    text: 'The tenure effect is significant with p = 1.2e-105.',
    outputs: [TENURE_P],
    expect: { ungrounded: ['1.2e-105'] },
  },
  {
    name: 'near miss: ROC AUC 0.8449 is 0.84, not 0.85',
    text: "The model's ROC AUC is 0.85.",
    outputs: [py('roc_auc: 0.8449')],
    expect: { ungrounded: ['0.85'] },
  },
  {
    name: 'near miss: wrong suffix scale',
    text: 'Churn costs $1.7bn a year.',
    outputs: [LOST_REVENUE],
    expect: { ungrounded: ['$1.7bn'] },
  },
  {
    name: 'near miss: one end of a range',
    text: 'Among fiber customers without tech support, churn is 31.5-36.4%.',
    outputs: [FIBER_CI],
    expect: { grounded: ['31.5'], ungrounded: ['36.4%'] },
  },
  {
    name: 'near miss: wrong ratio with x',
    text: 'Month-to-month customers churn 3.4x as often as one-year customers.',
    outputs: [py('month-to-month vs one-year churn ratio: 3.79')],
    expect: { ungrounded: ['3.4x'] },
  },
  {
    name: 'near miss: negative correlation with swapped digits',
    text: 'Tenure correlates with churn at r = -0.53.',
    outputs: [CORRELATIONS],
    expect: { ungrounded: ['-0.53'] },
  },
  {
    name: 'near miss: table cell with transposed digits',
    text: md(
      '| Contract | Customers | Churn rate |',
      '|---|---:|---:|',
      '| Month-to-month | 3,875 | 42.7% |',
      '| One year | 1,437 | 11.3% |',
      '| Two year | 1,695 | 2.8% |',
    ),
    outputs: [BY_CONTRACT],
    expect: { grounded: ['3,875', '42.7%', '11.3%', '1,695', '2.8%'], ungrounded: ['1,437'] },
  },
  {
    name: 'near miss: whole thousands beyond two significant digits',
    text: 'The base holds 7,100 customers.',
    outputs: [TOTALS],
    expect: { ungrounded: ['7,100'] },
  },
  {
    name: 'a figure before any tool ran',
    text: 'Churn is 26.5%.',
    outputs: [],
    expect: { ungrounded: ['26.5%'] },
  },
  {
    name: 'near miss: the rate of another segment',
    text: 'Two-year contracts churn at 11.7%.',
    outputs: [CONTRACT_CHURN],
    expect: { ungrounded: ['11.7%'] },
  },
  {
    name: 'near miss: a count with its digits shuffled',
    text: 'Of 7,043 customers, 1,689 churned.',
    outputs: [TOTALS],
    expect: { grounded: ['7,043'], ungrounded: ['1,689'] },
  },
  {
    name: 'report section with one wrong figure among many',
    text: md(
      '## Churn by contract',
      '',
      'Of 7,043 customers, 1,869 (26.5%) churned. Month-to-month customers churn at 42.7%, one-year at 11.3% and two-year at 2.8%. Two-year customers make up 24.1% of the base but only 3.6% of churners.',
    ),
    outputs: [TOTALS, CONTRACT_CHURN, CONTRACT_SHARE],
    expect: { grounded: ['7,043', '1,869', '26.5%', '42.7%', '11.3%', '2.8%', '24.1%'], ungrounded: ['3.6%'] },
  },
  {
    name: 'near miss: an invented p-value',
    text: 'The association is significant (χ² = 1184.6, p = 0.003).',
    outputs: [CHI_SQUARE],
    expect: { grounded: ['1184.6'], ungrounded: ['0.003'] },
  },
  {
    name: 'near miss: a made-up interval',
    text: 'Month-to-month churn is 42.7% (CI 40.1–45.3%).',
    outputs: [MTM_CI],
    expect: { grounded: ['42.7%'], ungrounded: ['40.1', '45.3%'] },
  },
  {
    name: 'near miss: a table row no output holds',
    text: md(
      '| Internet service | Churn rate |',
      '|---|---|',
      '| DSL | 19.0% |',
      '| Fiber optic | 41.9% |',
      '| No internet | 7.4% |',
      '| Satellite | 12.8% |',
    ),
    outputs: [INTERNET_CHURN],
    expect: { grounded: ['19.0%', '41.9%', '7.4%'], ungrounded: ['12.8%'] },
  },

  // --- Not figures ---
  {
    name: 'years, dates and times are not figures',
    text: 'Between 2019 and 2023 churn fell; in the snapshot taken on 2024-01-15 at 12:30 it stands at 26.5%.',
    outputs: [TOTALS],
    expect: { grounded: ['26.5%'] },
  },
  {
    name: 'list markers and a numbered heading are not figures',
    text: md(
      '## 2. Drivers of churn',
      '',
      '1. Contract type: month-to-month churn is 42.7%.',
      '2. Tenure: churners stay 18.0 months on average.',
      '3) Payment method: electronic-check churn is 45.3%.',
    ),
    outputs: [CONTRACT_CHURN, py('tenure of churners: mean 17.979133'), PAYMENT_CHURN],
    expect: { grounded: ['42.7%', '18.0', '45.3%'] },
  },
  {
    name: 'figure, table, step, section, cell, chart and version numbers are not figures',
    text: 'As Figure 2 and Table 3 show (step 4 of the notebook, section s1, cell 12, Chart 5, version 2.1), churners leave early: their median tenure is 10 months.',
    outputs: [py('median tenure (churned): 10.0')],
    expect: { grounded: ['10'] },
  },
  {
    name: 'identifiers glued to letters are not figures',
    text: 'In Q1 the EU2 region billed $3.9M; CO2 data sit in col_3 and the x2 feature was dropped.',
    outputs: [REVENUE],
    expect: { grounded: ['$3.9M'] },
  },
  {
    name: 'ordinals and compound adjectives are not figures',
    text: 'Customers in their 1st year on a 12-month plan churn at 47.4%; by the 3rd year and on 24-month plans churn is far lower.',
    outputs: [py('first-year churn: 0.4744')],
    expect: { grounded: ['47.4%'] },
  },
  {
    name: 'small counts without a unit are not figures',
    text: 'We compared 3 contract types and 4 payment methods across 7,043 customers.',
    outputs: [TOTALS],
    expect: { grounded: ['7,043'] },
  },
  {
    name: 'bounds are not figures',
    text: 'Every driver listed is significant at p < 0.001. More than 40% of month-to-month customers leave, at least 12 segments exceed the base rate of 26.5%, two-year churn stays under 5%, discounts go up to 30, and fewer than 100 customers lack tenure.',
    outputs: [TOTALS],
    expect: { grounded: ['26.5%'] },
  },
  {
    name: 'inline code and fenced code are not figures',
    text: md(
      'Running `df.tenure.quantile(0.75)` gives 55.0 months.',
      '',
      '```python',
      'high = df[df.MonthlyCharges > 89.85]',
      'print(len(high))  # 1761',
      '```',
    ),
    outputs: [py('55.0')],
    expect: { grounded: ['55.0'] },
  },
  {
    name: "the user's own numbers are not figures",
    text: 'Splitting at tenure 24 and a monthly charge of 70, the short-tenure high-charge group churns at 53.9% and everyone else at 15.8%.',
    given: 'Split customers at tenure 24 and monthly charge 70 and give me churn for each group.',
    outputs: [py('short_high    0.539100', 'rest          0.158400', 'dtype: float64')],
    expect: { grounded: ['53.9%', '15.8%'] },
  },
  {
    name: "the user's own percentage is not a figure",
    text: 'Yes: fiber churn is 41.9%, well above your 30% threshold.',
    given: 'Is churn above 30% for fiber customers?',
    outputs: [INTERNET_CHURN],
    expect: { grounded: ['41.9%'] },
  },

  {
    name: "the user's claimed figure, affirmed by the answer, is checked like any other",
    text: 'Yes, the overall churn rate is 31.4%.',
    given: 'My manager says the overall churn rate is 31.4%. Is that right?',
    outputs: [py('0.2655')],
    expect: { ungrounded: ['31.4%'] },
  },
  {
    name: "the user's claimed figure is grounded when a result holds it",
    text: 'Yes: the overall churn rate is 26.6%, as your manager said.',
    given: 'My manager says the churn rate was about 26.6%; can you confirm?',
    outputs: [py('0.2655')],
    expect: { grounded: ['26.6%'] },
  },

  // --- Ambiguous decimal commas ---
  {
    name: 'ambiguous: a comma decimal percentage',
    text: 'Churn in the pilot group is 44,9%.',
    outputs: [CONVERSION],
    expect: { ambiguous: ['44,9%'] },
  },
  {
    name: 'ambiguous: 0,449',
    text: 'The churn share in the pilot group is 0,449.',
    outputs: [CONVERSION],
    expect: { ambiguous: ['0,449'] },
  },
  {
    name: 'ambiguous: 12,5 even when 12.5 is in the output',
    text: 'Average tenure gain was 12,5 months.',
    outputs: [py('tenure gain: 12.5')],
    expect: { ambiguous: ['12,5'] },
  },
  {
    name: 'ambiguous: European thousands and decimals',
    text: 'Mean lifetime billing is 2.283,3 EUR.',
    outputs: [MEAN_TOTAL],
    expect: { ambiguous: ['2.283,3'] },
  },
  {
    name: 'ambiguous next to a grounded figure',
    text: 'Overall churn is 26,5%, month-to-month churn 42.7%.',
    outputs: [TOTALS, CONTRACT_CHURN],
    expect: { ambiguous: ['26,5%'], grounded: ['42.7%'] },
  },

  // --- Beyond the first spec: sums, confidence levels, and a change only the unrounded results give ---
  {
    name: 'sum of two grounded shares',
    text: 'Month-to-month (55.0%) and one-year (20.9%) contracts together make up 75.9% of the base.',
    outputs: [CONTRACT_SHARE],
    expect: { grounded: ['55.0%', '20.9%'], derived: ['75.9%'] },
  },
  {
    name: 'the confidence level of an interval',
    text: 'One-year churn is 11.3% (95% CI 9.7–12.9%).',
    outputs: [py('rate 0.112695', 'ci   (0.09653, 0.12886)')],
    expect: { grounded: ['11.3%', '9.7', '12.9%'] },
  },
  {
    name: 'relative change needs the unrounded results',
    text: 'Revenue rose 7.0% from 3.9 million in Q2 to 4.2 million in Q3.',
    outputs: [REVENUE],
    expect: { grounded: ['3.9 million', '4.2 million'], derived: ['7.0%'] },
    limit: 'the written 3.9 and 4.2 give 7.7%; only the unrounded 3,912,450 and 4,187,300 give 7.0%',
  },
];

const STATUSES: Status[] = ['grounded', 'derived', 'ungrounded', 'ambiguous'];
const FLAGGED = new Set<Status>(['ungrounded', 'ambiguous']);

interface Figure {
  text: string;
  status: Status;
}

/** The figure text with spaces, a leading currency or approximation sign and unit spellings unified. */
function key(text: string): string {
  return text
    .replace(/\s+/gu, ' ')
    .replace(/^[~≈$€£]\s?/u, '')
    .replace(/\s?(percentage points|points|pp)$/u, '')
    .replace(/\s?(percent|%)$/u, '%')
    .trim();
}

function toolOf(output: string): string {
  if (output.startsWith('stdout:')) return 'run_python';
  if (/ rows loaded from /.test(output)) return 'load_dataframe';
  return 'run_sql';
}

function run(c: Case): FigureCheck[] {
  const sources = c.outputs.map((output, index) => ({
    id: `call_${index + 1}`,
    tool: toolOf(output),
    numbers: numbersIn(output),
  }));
  return groundFigures(c.text, sources, { given: givenNumbers(c.given ?? ''), approx: c.approx ?? 0.05 });
}

function expected(c: Case): Figure[] {
  return STATUSES.flatMap((status) => (c.expect[status] ?? []).map((text) => ({ text, status })));
}

/** Figure keys per status, sorted, so that a mismatch reads as a diff of four short lists. */
function byStatus(figures: Figure[]): Record<Status, string[]> {
  const lists = { grounded: [], derived: [], ungrounded: [], ambiguous: [] } as Record<Status, string[]>;
  for (const figure of figures) lists[figure.status].push(key(figure.text));
  for (const status of STATUSES) lists[status].sort();
  return lists;
}

interface Metric {
  figures: number;
  cases: number;
  precision: number;
  recall: number;
  groundingRecall: number;
}

/** Pairs each case's true figures with what the matcher found (by text) and counts flags and recognitions. */
function measure(cases: Case[]): Metric {
  let figures = 0;
  let bad = 0;
  let good = 0;
  let flagged = 0;
  let caught = 0;
  let recognised = 0;
  for (const c of cases) {
    let found: Figure[];
    try {
      found = run(c);
    } catch {
      found = [];
    }
    flagged += found.filter((figure) => FLAGGED.has(figure.status)).length;
    for (const truth of expected(c)) {
      figures += 1;
      let index = found.findIndex((figure) => key(figure.text) === key(truth.text) && figure.status === truth.status);
      if (index < 0) index = found.findIndex((figure) => key(figure.text) === key(truth.text));
      const match = index < 0 ? undefined : found.splice(index, 1)[0];
      if (FLAGGED.has(truth.status)) {
        bad += 1;
        if (match && FLAGGED.has(match.status)) caught += 1;
      } else {
        good += 1;
        if (match && !FLAGGED.has(match.status)) recognised += 1;
      }
    }
  }
  return {
    figures,
    cases: cases.length,
    precision: flagged === 0 ? 0 : caught / flagged,
    recall: bad === 0 ? 0 : caught / bad,
    groundingRecall: good === 0 ? 0 : recognised / good,
  };
}

describe('groundFigures on analyst prose', () => {
  it('has the cases the brief asks for', () => {
    const count = (test: (c: Case) => boolean) => CASES.filter(test).length;
    expect(CASES.length).toBeGreaterThanOrEqual(70);
    expect(new Set(CASES.map((c) => c.name)).size).toBe(CASES.length);
    expect(count((c) => (c.expect.ungrounded ?? []).length > 0)).toBeGreaterThanOrEqual(15);
    expect(count((c) => (c.expect.ambiguous ?? []).length > 0)).toBeGreaterThanOrEqual(4);
    expect(count((c) => (c.expect.derived ?? []).length > 0)).toBeGreaterThanOrEqual(5);
    expect(count((c) => c.name.includes('not figures') || c.name.includes('not a figure'))).toBeGreaterThanOrEqual(8);
  });

  it.each(CASES.filter((c) => c.limit === undefined))('$name', (c) => {
    const checks = run(c);
    expect(byStatus(checks)).toEqual(byStatus(expected(c)));
    const ids = c.outputs.map((_, index) => `call_${index + 1}`);
    for (const check of checks) {
      expect(c.text.slice(check.start, check.end), 'start/end span the figure text').toBe(check.text);
      if (check.status === 'grounded') expect(ids, `source of ${check.text}`).toContain(check.source);
    }
  });

  it('flags bad figures with precision and recall of at least 0.95', () => {
    const metric = measure(CASES);
    console.log(
      `grounding matcher: ${metric.figures} figures in ${metric.cases} cases, ` +
        `flag precision ${metric.precision.toFixed(3)}, flag recall ${metric.recall.toFixed(3)}, ` +
        `grounding recall ${metric.groundingRecall.toFixed(3)}`,
    );
    expect(metric.precision).toBeGreaterThanOrEqual(0.95);
    expect(metric.recall).toBeGreaterThanOrEqual(0.95);
  });
});

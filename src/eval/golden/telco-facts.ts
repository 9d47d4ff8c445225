/**
 * The answers to the golden questions, computed from the telco generator's own rows: the same
 * seeded customers, split and damage that `loadTelco` writes to telco_db with its defaults, so the
 * expected values match the database exactly and nobody types a number in by hand. Regenerating
 * the data (another seed, other damage) moves the expectations with it.
 */
import {
  buildTelcoTables,
  DEFAULT_ROWS,
  DEFAULT_SEED,
  generateCustomers,
  type TelcoTableName,
} from '../../../telco_data/index.js';

type Row = Record<string, string | number | null>;

/** The train tables, in the order the golden questions name them. */
export const TRAIN_TABLES = ['user_demographics', 'user_services', 'user_payments', 'user_churn'] as const;
export type TrainTable = (typeof TRAIN_TABLES)[number];

/** The user_payments columns that can hold `''`. */
export const BLANKABLE_COLUMNS = ['Contract', 'PaperlessBilling', 'PaymentMethod', 'TotalCharges'] as const;

/** Features of the one-feature baselines that bound the churn model's ROC AUC from below. */
const BASELINE_FEATURES = ['Contract', 'InternetService', 'PaymentMethod', 'tenure'] as const;

export interface TelcoFacts {
  rows: Record<TrainTable, number>;
  /** Train tables whose set of customerIDs differs from user_payments' (the reference). */
  disagreeing: TrainTable[];
  /** user_payments customers without a user_demographics row, and the first of them by id. */
  missingDemographics: { count: number; firstId: string };
  /** Rows whose customerID is not in user_payments. */
  orphans: { services: number; churn: number };
  /** user_payments.TotalCharges: `''` cells, NULL cells, and `''` cells of customers with tenure above 0. */
  totalCharges: { blank: number; null: number; blankWithTenure: number };
  /** `''` cells per blankable column of user_payments. */
  blankCells: Record<(typeof BLANKABLE_COLUMNS)[number], number>;
  /** Churn rate per value; rows with a blank value or without a user_churn row are left out. */
  churnByContract: Map<string, number>;
  churnByInternet: Map<string, number>;
  churnByPaymentMethod: Map<string, number>;
  /** Share churned of the user_churn rows whose customer is in user_payments. */
  trainChurnRate: number;
  /** Share churned in user_churn_new. */
  testChurnRate: number;
  /**
   * Active customers as the telco knowledge set defines them: user_payments customers whose
   * user_churn row says 'No' and whose user_services tenure is at least 1 month.
   */
  activeCustomers: number;
  /**
   * ROC AUC on the `_new` tables of the best one-feature ranking (each value scored by its churn
   * rate in the train tables; tenure by shorter = riskier), with the test part's class sizes.
   */
  bestOneFeatureAuc: { feature: string; auc: number; positives: number; negatives: number };
}

const idsOf = (rows: Row[]): Set<string> => new Set(rows.map((row) => String(row.customerID)));

/** Churn rate per value of `column` of `rows`, joined to `churn` by customerID. */
function churnBy(rows: Row[], column: string, churn: Map<string, string>): Map<string, number> {
  const counts = new Map<string, { churned: number; all: number }>();
  for (const row of rows) {
    const outcome = churn.get(String(row.customerID));
    const value = row[column];
    if (outcome === undefined || value === '' || value === null || value === undefined) continue;
    const entry = counts.get(String(value)) ?? { churned: 0, all: 0 };
    entry.churned += outcome === 'Yes' ? 1 : 0;
    entry.all += 1;
    counts.set(String(value), entry);
  }
  return new Map([...counts].map(([value, { churned, all }]) => [value, churned / all]));
}

/** ROC AUC of `scores` for `positives` (Mann-Whitney: ties count half). */
export function rocAuc(scores: number[], positives: boolean[]): number {
  const ranked = scores.map((score, index) => ({ score, positive: positives[index] === true }));
  ranked.sort((left, right) => left.score - right.score);
  let rankSum = 0;
  let positiveCount = 0;
  for (let start = 0; start < ranked.length; ) {
    let end = start;
    while (end < ranked.length && ranked[end]?.score === ranked[start]?.score) end += 1;
    const meanRank = (start + 1 + end) / 2;
    for (let index = start; index < end; index += 1) {
      if (ranked[index]?.positive) {
        rankSum += meanRank;
        positiveCount += 1;
      }
    }
    start = end;
  }
  const negativeCount = ranked.length - positiveCount;
  if (positiveCount === 0 || negativeCount === 0) return Number.NaN;
  return (rankSum - (positiveCount * (positiveCount + 1)) / 2) / (positiveCount * negativeCount);
}

/** Everything the golden cases expect, from the generator with loadTelco's defaults. */
export function computeTelcoFacts(): TelcoFacts {
  // Exactly what loadTelco does for `{ target }` with no other options.
  const built = buildTelcoTables(generateCustomers({ rows: DEFAULT_ROWS, seed: DEFAULT_SEED }), {
    seed: DEFAULT_SEED,
  });
  const table = (name: TelcoTableName): Row[] => built.tables.find((entry) => entry.spec.name === name)?.rows ?? [];
  const payments = table('user_payments');
  const services = table('user_services');
  const paymentIds = idsOf(payments);
  const churn = new Map(table('user_churn').map((row) => [String(row.customerID), String(row.Churn)]));
  const tenure = new Map(services.map((row) => [String(row.customerID), row.tenure]));

  const rows = Object.fromEntries(TRAIN_TABLES.map((name) => [name, table(name).length])) as TelcoFacts['rows'];
  const disagreeing = TRAIN_TABLES.filter((name) => {
    const ids = idsOf(table(name));
    return ids.size !== paymentIds.size || [...ids].some((id) => !paymentIds.has(id));
  });
  const demographicIds = idsOf(table('user_demographics'));
  const missing = [...paymentIds].filter((id) => !demographicIds.has(id)).sort();
  const blankTotals = payments.filter((row) => row.TotalCharges === '');
  const trainChurn = [...churn].filter(([id]) => paymentIds.has(id));
  const testChurn = table('user_churn_new');

  return {
    rows,
    disagreeing,
    missingDemographics: { count: missing.length, firstId: missing[0] ?? '' },
    orphans: {
      services: services.filter((row) => !paymentIds.has(String(row.customerID))).length,
      churn: [...churn.keys()].filter((id) => !paymentIds.has(id)).length,
    },
    totalCharges: {
      blank: blankTotals.length,
      null: payments.filter((row) => row.TotalCharges === null).length,
      blankWithTenure: blankTotals.filter((row) => Number(tenure.get(String(row.customerID)) ?? 0) > 0).length,
    },
    blankCells: Object.fromEntries(
      BLANKABLE_COLUMNS.map((column) => [column, payments.filter((row) => row[column] === '').length]),
    ) as TelcoFacts['blankCells'],
    churnByContract: churnBy(payments, 'Contract', churn),
    churnByInternet: churnBy(services, 'InternetService', churn),
    churnByPaymentMethod: churnBy(payments, 'PaymentMethod', churn),
    trainChurnRate: trainChurn.filter(([, value]) => value === 'Yes').length / trainChurn.length,
    testChurnRate: testChurn.filter((row) => row.Churn === 'Yes').length / testChurn.length,
    // A missing or NULL tenure (no services row, a damaged one) is not a month of tenure.
    activeCustomers: [...paymentIds].filter((id) => churn.get(id) === 'No' && Number(tenure.get(id) ?? 0) >= 1).length,
    bestOneFeatureAuc: bestOneFeatureAuc(built.tables, churn),
  };
}

/** The best ROC AUC on the test tables of a ranking by one feature (see {@link TelcoFacts}). */
function bestOneFeatureAuc(
  tables: ReturnType<typeof buildTelcoTables>['tables'],
  trainChurn: Map<string, string>,
): TelcoFacts['bestOneFeatureAuc'] {
  const merged = (part: '' | '_new'): Map<string, Row> => {
    const customers = new Map<string, Row>();
    for (const group of ['user_services', 'user_payments', 'user_churn'] as const) {
      const rows = tables.find((entry) => entry.spec.name === `${group}${part}`)?.rows ?? [];
      for (const row of rows)
        customers.set(String(row.customerID), { ...customers.get(String(row.customerID)), ...row });
    }
    return customers;
  };
  const train = [...merged('').values()].filter(
    (row) => row.Contract !== undefined && trainChurn.has(String(row.customerID)),
  );
  const test = [...merged('_new').values()];
  const positives = test.map((row) => row.Churn === 'Yes');
  const churned = positives.filter(Boolean).length;
  let best = { feature: '', auc: 0, positives: churned, negatives: test.length - churned };
  for (const feature of BASELINE_FEATURES) {
    const rates = churnBy(train, feature, trainChurn);
    const scores = test.map((row) =>
      feature === 'tenure' ? -Number(row.tenure) : (rates.get(String(row[feature])) ?? 0),
    );
    const auc = rocAuc(scores, positives);
    if (auc > best.auc) best = { ...best, feature, auc };
  }
  return best;
}

/**
 * Damages the train tables on purpose, the way course databases do, so an analyst (or tally) asked
 * "are these tables consistent?" finds real problems: missing demographics, fake service rows,
 * blank payment cells, churn rows for customers who do not exist. Everything injected is returned,
 * so tests and the loader's report can say exactly what is wrong.
 */
import { createCustomerIdSource } from './customer-id.js';
import type { Random } from './random.js';
import { SERVICE_COLUMNS } from './telco-customer.js';
import type { TelcoRow, TelcoTableName } from './telco-tables.js';

/**
 * How much damage to inject. The default counts are those of the full dataset (5,634 train
 * customers) and scale with the size of the train part, at least one of each kind.
 */
export interface TelcoDamageOptions {
  /** Share of train customers whose user_demographics row is deleted. Default 0.05. */
  droppedDemographicsShare?: number;
  /** Fake customers (new ids, empty services, NULL tenure) added to user_services. Default 100. */
  fakeServiceRows?: number;
  /** Payment cells set to ''. Default 100. */
  blankPaymentCells?: number;
  /** Churn rows for customers found in no other table. Default 50. */
  fakeChurnRows?: number;
}

/** The payment columns that can be blanked: the text ones (MonthlyCharges is DECIMAL and cannot hold ''). */
export const BLANKABLE_PAYMENT_COLUMNS = ['Contract', 'PaperlessBilling', 'PaymentMethod', 'TotalCharges'] as const;

export interface BlankedCell {
  customerID: string;
  column: (typeof BLANKABLE_PAYMENT_COLUMNS)[number];
}

/** Every problem injected into the train tables; id lists are sorted. */
export interface InjectedProblems {
  /** Real train customers whose user_demographics row was deleted. */
  droppedDemographics: string[];
  /** Ids of the fake rows added to user_services (services '', tenure NULL); in no other table. */
  fakeServiceCustomers: string[];
  /** Payment cells of real customers set to '' (were non-blank before). */
  blankedPaymentCells: BlankedCell[];
  /** Ids of the fake rows added to user_churn; in no other table. */
  fakeChurnCustomers: string[];
}

/** The size the counts refer to: 80% of the 7,043 IBM customers. */
const REFERENCE_TRAIN_ROWS = 5634;

export interface InjectDamageOptions {
  random: Random;
  /** Ids of all real customers (train and test): fake ids must differ from them. */
  takenIds: Iterable<string>;
  damage: TelcoDamageOptions | false;
}

function table(rows: Map<TelcoTableName, TelcoRow[]>, name: TelcoTableName): TelcoRow[] {
  const found = rows.get(name);
  if (!found) throw new Error(`table ${name} is missing`);
  return found;
}

const sortIds = (ids: string[]): string[] => ids.sort();

/** Injects the damage into the train tables of `rows` (mutated in place) and reports it. */
export function injectDamage(rows: Map<TelcoTableName, TelcoRow[]>, options: InjectDamageOptions): InjectedProblems {
  const none: InjectedProblems = {
    droppedDemographics: [],
    fakeServiceCustomers: [],
    blankedPaymentCells: [],
    fakeChurnCustomers: [],
  };
  const demographics = table(rows, 'user_demographics');
  if (options.damage === false || demographics.length === 0) return none;
  const damage = options.damage;
  const { random } = options;
  // Small datasets still get at least one problem of each kind, so the check is never vacuous.
  const scaled = (count: number) => Math.max(1, Math.round((count * demographics.length) / REFERENCE_TRAIN_ROWS));
  const nextFakeId = createCustomerIdSource(random, options.takenIds);

  const dropCount =
    damage.droppedDemographicsShare === undefined
      ? Math.max(1, Math.round(demographics.length * 0.05))
      : Math.round(demographics.length * damage.droppedDemographicsShare);
  const dropped = new Set(random.shuffle(demographics.map((row) => String(row.customerID))).slice(0, dropCount));
  rows.set(
    'user_demographics',
    demographics.filter((row) => !dropped.has(String(row.customerID))),
  );

  const services = table(rows, 'user_services');
  const fakeServiceCustomers = Array.from({ length: damage.fakeServiceRows ?? scaled(100) }, () => nextFakeId());
  for (const customerID of fakeServiceCustomers) {
    const row: TelcoRow = { customerID, tenure: null };
    for (const column of SERVICE_COLUMNS) row[column] = '';
    services.push(row);
  }

  const payments = table(rows, 'user_payments');
  const candidates = payments.flatMap((row) =>
    BLANKABLE_PAYMENT_COLUMNS.filter((column) => row[column] !== '').map((column) => ({ row, column })),
  );
  const blanked = random.shuffle(candidates).slice(0, damage.blankPaymentCells ?? scaled(100));
  for (const { row, column } of blanked) row[column] = '';

  const churn = table(rows, 'user_churn');
  const fakeChurnCustomers = Array.from({ length: damage.fakeChurnRows ?? scaled(50) }, () => nextFakeId());
  for (const customerID of fakeChurnCustomers) churn.push({ customerID, Churn: random.chance(0.265) ? 'Yes' : 'No' });

  return {
    droppedDemographics: sortIds([...dropped]),
    fakeServiceCustomers: sortIds(fakeServiceCustomers),
    blankedPaymentCells: blanked
      .map(({ row, column }) => ({ customerID: String(row.customerID), column }))
      .sort((left, right) =>
        left.customerID === right.customerID
          ? left.column.localeCompare(right.column)
          : left.customerID < right.customerID
            ? -1
            : 1,
      ),
    fakeChurnCustomers: sortIds(fakeChurnCustomers),
  };
}

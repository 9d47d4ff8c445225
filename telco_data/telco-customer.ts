/**
 * One customer in the public IBM "Telco Customer Churn" schema: the 21 columns, their allowed values
 * and meaning. The generator, the CSV parser, the table layout and the data dictionary all read this.
 */

export type YesNo = 'Yes' | 'No';
export type AddOn = 'Yes' | 'No' | 'No internet service';
export type MultipleLinesValue = 'Yes' | 'No' | 'No phone service';
export type InternetServiceValue = 'DSL' | 'Fiber optic' | 'No';
export type ContractValue = 'Month-to-month' | 'One year' | 'Two year';
export type PaymentMethodValue =
  | 'Electronic check'
  | 'Mailed check'
  | 'Bank transfer (automatic)'
  | 'Credit card (automatic)';

/** A row of the IBM CSV, with the CSV's own value types. */
export interface TelcoCustomer {
  customerID: string;
  gender: 'Female' | 'Male';
  SeniorCitizen: 0 | 1;
  Partner: YesNo;
  Dependents: YesNo;
  /** Whole months as a customer; 0 for customers who joined this month. */
  tenure: number;
  PhoneService: YesNo;
  MultipleLines: MultipleLinesValue;
  InternetService: InternetServiceValue;
  OnlineSecurity: AddOn;
  OnlineBackup: AddOn;
  DeviceProtection: AddOn;
  TechSupport: AddOn;
  StreamingTV: AddOn;
  StreamingMovies: AddOn;
  Contract: ContractValue;
  PaperlessBilling: YesNo;
  PaymentMethod: PaymentMethodValue;
  /** Dollars, two decimals. */
  MonthlyCharges: number;
  /** Dollars as text, as in the IBM CSV: '' when tenure is 0. */
  TotalCharges: string;
  Churn: YesNo;
}

export type TelcoColumnName = keyof TelcoCustomer;

/** How a column's values look: decides parsing, SQL type and the dictionary's type column. */
export type TelcoColumnKind = 'id' | 'flag' | 'integer' | 'money' | 'money-text' | 'category';

export interface TelcoColumn {
  name: TelcoColumnName;
  kind: TelcoColumnKind;
  /** The allowed values of a category column, in the IBM spelling. */
  values?: readonly string[];
  /** One line for analysts and models; also the MySQL column comment. */
  meaning: string;
}

const YES_NO = ['Yes', 'No'] as const;
const ADD_ON = ['Yes', 'No', 'No internet service'] as const;

/** The 21 columns in the order of the IBM CSV. */
export const TELCO_COLUMNS: readonly TelcoColumn[] = [
  { name: 'customerID', kind: 'id', meaning: 'Customer id, four digits, a dash, five capital letters (7590-VHVEG)' },
  { name: 'gender', kind: 'category', values: ['Female', 'Male'], meaning: 'Gender of the account holder' },
  { name: 'SeniorCitizen', kind: 'flag', meaning: '1 if the customer is 65 or older, else 0' },
  { name: 'Partner', kind: 'category', values: YES_NO, meaning: 'Whether the customer has a partner' },
  { name: 'Dependents', kind: 'category', values: YES_NO, meaning: 'Whether the customer has dependents' },
  { name: 'tenure', kind: 'integer', meaning: 'Months as a customer, 0..72; 0 = joined this month' },
  { name: 'PhoneService', kind: 'category', values: YES_NO, meaning: 'Whether the customer has phone service' },
  {
    name: 'MultipleLines',
    kind: 'category',
    values: ['Yes', 'No', 'No phone service'],
    meaning: "More than one phone line; 'No phone service' when PhoneService is No",
  },
  {
    name: 'InternetService',
    kind: 'category',
    values: ['DSL', 'Fiber optic', 'No'],
    meaning: 'Internet access type, or No',
  },
  { name: 'OnlineSecurity', kind: 'category', values: ADD_ON, meaning: 'Online security add-on' },
  { name: 'OnlineBackup', kind: 'category', values: ADD_ON, meaning: 'Online backup add-on' },
  { name: 'DeviceProtection', kind: 'category', values: ADD_ON, meaning: 'Device protection plan add-on' },
  { name: 'TechSupport', kind: 'category', values: ADD_ON, meaning: 'Premium tech support add-on' },
  { name: 'StreamingTV', kind: 'category', values: ADD_ON, meaning: 'TV streaming add-on' },
  { name: 'StreamingMovies', kind: 'category', values: ADD_ON, meaning: 'Movie streaming add-on' },
  {
    name: 'Contract',
    kind: 'category',
    values: ['Month-to-month', 'One year', 'Two year'],
    meaning: 'Contract term',
  },
  { name: 'PaperlessBilling', kind: 'category', values: YES_NO, meaning: 'Whether bills are paperless' },
  {
    name: 'PaymentMethod',
    kind: 'category',
    values: ['Electronic check', 'Mailed check', 'Bank transfer (automatic)', 'Credit card (automatic)'],
    meaning: 'How the customer pays',
  },
  { name: 'MonthlyCharges', kind: 'money', meaning: 'Current monthly bill in dollars, 18.25..118.75' },
  {
    name: 'TotalCharges',
    kind: 'money-text',
    meaning: "Dollars billed over the whole tenure, as text; '' when tenure is 0",
  },
  { name: 'Churn', kind: 'category', values: YES_NO, meaning: 'Whether the customer left within the last month' },
];

/** The column named `name`; throws for a name outside the schema (a programming error). */
export function telcoColumn(name: TelcoColumnName): TelcoColumn {
  const column = TELCO_COLUMNS.find((candidate) => candidate.name === name);
  if (!column) throw new Error(`unknown telco column ${name}`);
  return column;
}

/** The nine service columns that the IBM layout derives from PhoneService and InternetService. */
export const SERVICE_COLUMNS = [
  'PhoneService',
  'MultipleLines',
  'InternetService',
  'OnlineSecurity',
  'OnlineBackup',
  'DeviceProtection',
  'TechSupport',
  'StreamingTV',
  'StreamingMovies',
] as const satisfies readonly TelcoColumnName[];

/** The six internet add-ons, 'No internet service' when InternetService is No. */
// The six after PhoneService, MultipleLines and InternetService.
export const ADD_ON_COLUMNS = SERVICE_COLUMNS.slice(3) as readonly (typeof SERVICE_COLUMNS)[number][];

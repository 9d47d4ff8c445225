/**
 * A seeded stand-in for the IBM "Telco Customer Churn" data: same schema, marginals close to the
 * public file, and churn driven by the same things (contract, fiber, electronic check, short tenure,
 * age), so an analysis of it finds real drivers. Each attribute is drawn given the ones it depends on
 * in the real data; the weights below were tuned against the IBM marginals quoted beside them.
 */
import { createCustomerIdSource } from './customer-id.js';
import { createRandom, type Random } from './random.js';
import type {
  AddOn,
  ContractValue,
  InternetServiceValue,
  PaymentMethodValue,
  TelcoCustomer,
  YesNo,
} from './telco-customer.js';

/** Options of {@link generateCustomers}. */
export interface GenerateCustomersOptions {
  /** Customers to generate. Default 7043, the size of the IBM file. */
  rows?: number;
  /** PRNG seed; the same seed gives the same rows. Default 42. */
  seed?: number;
  /** Share of customers who churned, as in the IBM file. Default 0.2654. */
  churnRate?: number;
}

export const DEFAULT_ROWS = 7043;
export const DEFAULT_SEED = 42;
const DEFAULT_CHURN_RATE = 0.2654;
const NEWCOMERS_PER_DEFAULT_ROWS = 11;
const MIN_MONTHLY = 18.25;
const MAX_MONTHLY = 118.75;

type Draft = Omit<TelcoCustomer, 'Churn'>;

const yesNo = (value: boolean): YesNo => (value ? 'Yes' : 'No');
const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value));

function drawContract(random: Random, partner: boolean, senior: boolean): ContractValue {
  // IBM: 55% month-to-month, 21% one year, 24% two year; partners commit longer, seniors shorter.
  const weights = partner
    ? { 'Month-to-month': 0.44, 'One year': 0.24, 'Two year': 0.32 }
    : { 'Month-to-month': 0.62, 'One year': 0.18, 'Two year': 0.2 };
  if (senior) weights['Month-to-month'] *= 1.7;
  return random.weighted(weights);
}

function drawNewcomerContract(random: Random): ContractValue {
  return random.chance(0.8) ? 'Two year' : 'One year';
}

function drawTenure(random: Random, contract: ContractValue): number {
  // The U-shape of the IBM file: month-to-month piles up at 1 month, two-year contracts at 72
  // (customers since the start of the records form a spike of their own).
  if (contract === 'Month-to-month') return 1 + Math.floor(72 * random.next() ** 2.3);
  if (random.chance(contract === 'One year' ? 0.03 : 0.12)) return 72;
  return 1 + Math.floor(72 * random.next() ** (contract === 'One year' ? 0.9 : 0.35));
}

function drawInternet(random: Random, phone: boolean, senior: boolean): InternetServiceValue {
  // IBM: customers without phone service all have DSL; overall DSL 34%, fiber 44%, none 22%;
  // three seniors in four are on fiber.
  if (!phone) return 'DSL';
  return random.weighted(
    senior ? { DSL: 0.18, 'Fiber optic': 0.75, No: 0.07 } : { DSL: 0.291, 'Fiber optic': 0.436, No: 0.273 },
  );
}

function drawAddOns(random: Random, internet: InternetServiceValue, contract: ContractValue) {
  const addOn = (probability: number): AddOn =>
    internet === 'No' ? 'No internet service' : yesNo(random.chance(clamp(probability, 0.02, 0.98)));
  // Committed customers buy protection and support; fiber customers stream more.
  const commitment = { 'Month-to-month': -0.11, 'One year': 0.1, 'Two year': 0.17 }[contract];
  const fiber = internet === 'Fiber optic';
  const streamingTV = addOn(fiber ? 0.56 : 0.38);
  return {
    OnlineSecurity: addOn(0.4 + commitment + (fiber ? -0.08 : 0.06)),
    OnlineBackup: addOn(0.45 + commitment * 0.7),
    DeviceProtection: addOn(0.45 + commitment * 0.7),
    TechSupport: addOn(0.4 + commitment + (fiber ? -0.08 : 0.06)),
    StreamingTV: streamingTV,
    StreamingMovies: addOn(streamingTV === 'Yes' ? 0.72 : fiber ? 0.32 : 0.22),
  };
}

function drawPaymentMethod(random: Random, contract: ContractValue, senior: boolean): PaymentMethodValue {
  // IBM: electronic check 34%, mailed 23%, bank 22%, card 22%; electronic check is a month-to-month habit.
  const weights = {
    'Month-to-month': { ec: 0.48, mailed: 0.23, bank: 0.145, card: 0.145 },
    'One year': { ec: 0.2, mailed: 0.23, bank: 0.28, card: 0.29 },
    'Two year': { ec: 0.08, mailed: 0.22, bank: 0.35, card: 0.35 },
  }[contract];
  return random.weighted({
    'Electronic check': weights.ec * (senior ? 1.4 : 1),
    'Mailed check': weights.mailed,
    'Bank transfer (automatic)': weights.bank,
    'Credit card (automatic)': weights.card,
  });
}

function monthlyCharges(random: Random, draft: Omit<Draft, 'MonthlyCharges' | 'TotalCharges'>): number {
  // The IBM price list is roughly additive: phone 20, extra lines 5, DSL 25, fiber 50, each
  // protection add-on 5, each streaming add-on 10, plus small per-customer deals.
  let charge = draft.PhoneService === 'Yes' ? 20 : 0;
  if (draft.MultipleLines === 'Yes') charge += 5;
  if (draft.InternetService === 'DSL') charge += 25;
  if (draft.InternetService === 'Fiber optic') charge += 50;
  for (const column of ['OnlineSecurity', 'OnlineBackup', 'DeviceProtection', 'TechSupport'] as const) {
    if (draft[column] === 'Yes') charge += 5;
  }
  if (draft.StreamingTV === 'Yes') charge += 10;
  if (draft.StreamingMovies === 'Yes') charge += 10;
  charge += random.normal() * 1.3;
  // IBM prices are multiples of 5 cents.
  return Math.round(clamp(charge, MIN_MONTHLY, MAX_MONTHLY) * 20) / 20;
}

function totalCharges(random: Random, tenure: number, monthly: number): string {
  if (tenure === 0) return '';
  if (tenure === 1) return String(monthly);
  // Prices moved over the years, so the total drifts a few percent from tenure x today's bill.
  const drift = clamp(random.normal() * 0.04, -0.12, 0.12);
  return String(Math.round(tenure * monthly * (1 + drift) * 100) / 100);
}

/**
 * `newcomer`: joined this month (tenure 0, no bill yet). The IBM file has 11 in 7,043, nearly all
 * on one- or two-year terms.
 */
function draftCustomer(random: Random, customerID: string, newcomer: boolean): Draft {
  const gender = random.chance(0.505) ? 'Male' : 'Female';
  const senior = random.chance(0.162);
  const partner = random.chance(senior ? 0.45 : 0.49);
  const dependents = random.chance(senior ? (partner ? 0.15 : 0.02) : partner ? 0.57 : 0.12);
  const contract = newcomer ? drawNewcomerContract(random) : drawContract(random, partner, senior);
  const tenure = newcomer ? 0 : drawTenure(random, contract);
  const phone = random.chance(0.903);
  const multipleLines = phone ? yesNo(random.chance(0.24 + (0.5 * tenure) / 72)) : 'No phone service';
  const internet = drawInternet(random, phone, senior);
  const addOns = drawAddOns(random, internet, contract);
  const paperless = random.chance({ 'Fiber optic': 0.74, DSL: 0.59, No: 0.3 }[internet]);
  const paymentMethod = drawPaymentMethod(random, contract, senior);
  const services = {
    customerID,
    gender,
    SeniorCitizen: senior ? 1 : 0,
    Partner: yesNo(partner),
    Dependents: yesNo(dependents),
    tenure,
    PhoneService: yesNo(phone),
    MultipleLines: multipleLines,
    InternetService: internet,
    ...addOns,
    Contract: contract,
    PaperlessBilling: yesNo(paperless),
    PaymentMethod: paymentMethod,
  } as const;
  const monthly = monthlyCharges(random, services);
  return { ...services, MonthlyCharges: monthly, TotalCharges: totalCharges(random, tenure, monthly) };
}

/** Log-odds of churn before the intercept: the drivers an analysis should find. */
function churnScore(customer: Draft): number {
  let score = { 'Month-to-month': 0, 'One year': -1.3, 'Two year': -2.4 }[customer.Contract];
  score += { 'Fiber optic': 1, DSL: 0, No: -1.3 }[customer.InternetService];
  score += {
    'Electronic check': 0.55,
    'Mailed check': 0,
    'Bank transfer (automatic)': -0.12,
    'Credit card (automatic)': -0.18,
  }[customer.PaymentMethod];
  score -= 0.5 * Math.log(1 + customer.tenure);
  if (customer.SeniorCitizen === 1) score += 0.35;
  if (customer.PaperlessBilling === 'Yes') score += 0.3;
  if (customer.OnlineSecurity === 'Yes') score -= 0.35;
  if (customer.TechSupport === 'Yes') score -= 0.35;
  if (customer.Dependents === 'Yes') score -= 0.2;
  return score;
}

const sigmoid = (value: number): number => 1 / (1 + Math.exp(-value));

/** The intercept that makes the expected churn share equal `rate` (bisection; the mean is monotone). */
function calibrateIntercept(scores: readonly number[], rate: number): number {
  let low = -20;
  let high = 20;
  for (let step = 0; step < 60; step++) {
    const middle = (low + high) / 2;
    const mean = scores.reduce((sum, score) => sum + sigmoid(score + middle), 0) / scores.length;
    if (mean < rate) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/** Generates `rows` customers in the IBM schema; deterministic for a given seed. */
export function generateCustomers(options: GenerateCustomersOptions = {}): TelcoCustomer[] {
  const rows = options.rows ?? DEFAULT_ROWS;
  const seed = options.seed ?? DEFAULT_SEED;
  if (!Number.isSafeInteger(rows) || rows < 0) throw new RangeError(`rows must be a whole number >= 0, got ${rows}`);
  const random = createRandom(seed, 'customers');
  const nextId = createCustomerIdSource(createRandom(seed, 'customer-ids'));
  const newcomers = new Set(
    createRandom(seed, 'newcomers')
      .shuffle(Array.from({ length: rows }, (_, index) => index))
      .slice(0, Math.round((rows * NEWCOMERS_PER_DEFAULT_ROWS) / DEFAULT_ROWS)),
  );
  const drafts = Array.from({ length: rows }, (_, index) => draftCustomer(random, nextId(), newcomers.has(index)));
  const scores = drafts.map(churnScore);
  const intercept = calibrateIntercept(scores, options.churnRate ?? DEFAULT_CHURN_RATE);
  // Churn draws come from their own stream, after calibration has seen every customer.
  const churnRandom = createRandom(seed, 'churn');
  return drafts.map((draft, index) => ({
    ...draft,
    Churn: yesNo(churnRandom.chance(sigmoid((scores[index] ?? 0) + intercept))),
  }));
}

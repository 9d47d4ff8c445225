import { describe, expect, it } from 'vitest';
import { CUSTOMER_ID_PATTERN } from '../../telco_data/customer-id.js';
import { generateCustomers } from '../../telco_data/generate-customers.js';
import { parseCsv, parseTelcoCsv } from '../../telco_data/parse-telco-csv.js';
import { ADD_ON_COLUMNS, TELCO_COLUMNS, type TelcoCustomer } from '../../telco_data/telco-customer.js';
import { TelcoError } from '../../telco_data/telco-error.js';

const customers = generateCustomers({ seed: 42 });

const share = (rows: readonly TelcoCustomer[], predicate: (customer: TelcoCustomer) => boolean): number =>
  rows.filter(predicate).length / rows.length;

function churnRate(predicate: (customer: TelcoCustomer) => boolean): number {
  const group = customers.filter(predicate);
  expect(group.length).toBeGreaterThan(100);
  return share(group, (customer) => customer.Churn === 'Yes');
}

describe('generateCustomers', () => {
  it('is deterministic per seed and differs between seeds', () => {
    expect(generateCustomers({ seed: 42 })).toEqual(customers);
    const other = generateCustomers({ seed: 43 });
    expect(other).toHaveLength(customers.length);
    expect(other.map((customer) => customer.customerID)).not.toEqual(customers.map((customer) => customer.customerID));
    expect(other.map((customer) => customer.Churn)).not.toEqual(customers.map((customer) => customer.Churn));
    expect(generateCustomers({ seed: 7, rows: 25 })).toEqual(generateCustomers({ seed: 7, rows: 25 }));
    expect(generateCustomers({ rows: 25 })).toHaveLength(25);
  });

  it('makes 7043 rows of the 21 IBM columns, in order, with unique ids of the IBM shape', () => {
    expect(customers).toHaveLength(7043);
    const names = TELCO_COLUMNS.map((column) => column.name);
    expect(names).toHaveLength(21);
    for (const customer of customers) expect(Object.keys(customer)).toEqual(names);
    expect(new Set(customers.map((customer) => customer.customerID)).size).toBe(7043);
    expect(customers.every((customer) => CUSTOMER_ID_PATTERN.test(customer.customerID))).toBe(true);
  });

  it('uses the value types and the allowed values of the IBM file', () => {
    // Offenders are collected, not asserted one by one: 7043 x 21 expect() calls take seconds.
    const valid: Partial<Record<keyof TelcoCustomer, (value: unknown) => boolean>> = {
      SeniorCitizen: (value) => value === 0 || value === 1,
      tenure: (value) => Number.isInteger(value) && Number(value) >= 0 && Number(value) <= 72,
      MonthlyCharges: (value) =>
        typeof value === 'number' && value >= 18.25 && value <= 118.75 && Math.round(value * 100) / 100 === value,
      TotalCharges: (value) => typeof value === 'string',
    };
    for (const column of TELCO_COLUMNS) {
      const { values } = column;
      if (values) valid[column.name] = (value) => typeof value === 'string' && values.includes(value);
    }
    const offenders = customers.flatMap((customer) =>
      Object.entries(valid)
        .filter(([name, check]) => !check(customer[name as keyof TelcoCustomer]))
        .map(([name]) => `${customer.customerID}.${name}`),
    );
    expect(Object.keys(valid)).toHaveLength(20);
    expect(offenders).toEqual([]);
  });

  it('keeps the service columns consistent with each other', () => {
    const offenders = customers.filter(
      (customer) =>
        ADD_ON_COLUMNS.some(
          (column) => (customer[column] === 'No internet service') !== (customer.InternetService === 'No'),
        ) || (customer.MultipleLines === 'No phone service') !== (customer.PhoneService === 'No'),
    );
    expect(offenders).toEqual([]);
    // Both rules are exercised, not vacuous.
    expect(customers.some((customer) => customer.InternetService === 'No')).toBe(true);
    expect(customers.some((customer) => customer.PhoneService === 'No')).toBe(true);
  });

  it('blanks TotalCharges exactly for tenure 0 and keeps it near tenure x MonthlyCharges otherwise', () => {
    const newcomers = customers.filter((customer) => customer.tenure === 0);
    expect(newcomers.length).toBeGreaterThanOrEqual(5);
    expect(newcomers.length).toBeLessThanOrEqual(20);
    const offenders = customers.filter((customer) => {
      if ((customer.TotalCharges === '') !== (customer.tenure === 0)) return true;
      if (customer.tenure === 0) return false;
      const ratio = Number(customer.TotalCharges) / (customer.tenure * customer.MonthlyCharges);
      return !/^\d+(\.\d{1,2})?$/.test(customer.TotalCharges) || ratio < 0.85 || ratio > 1.15;
    });
    expect(offenders).toEqual([]);
  });

  it('matches the IBM marginals roughly', () => {
    const expected: Array<[string, (customer: TelcoCustomer) => boolean, number]> = [
      ['male', (customer) => customer.gender === 'Male', 0.5],
      ['senior', (customer) => customer.SeniorCitizen === 1, 0.16],
      ['partner', (customer) => customer.Partner === 'Yes', 0.48],
      ['dependents', (customer) => customer.Dependents === 'Yes', 0.3],
      ['phone', (customer) => customer.PhoneService === 'Yes', 0.9],
      ['dsl', (customer) => customer.InternetService === 'DSL', 0.34],
      ['fiber', (customer) => customer.InternetService === 'Fiber optic', 0.44],
      ['no internet', (customer) => customer.InternetService === 'No', 0.22],
      ['month-to-month', (customer) => customer.Contract === 'Month-to-month', 0.55],
      ['one year', (customer) => customer.Contract === 'One year', 0.21],
      ['two year', (customer) => customer.Contract === 'Two year', 0.24],
      ['paperless', (customer) => customer.PaperlessBilling === 'Yes', 0.59],
      ['electronic check', (customer) => customer.PaymentMethod === 'Electronic check', 0.34],
      ['mailed check', (customer) => customer.PaymentMethod === 'Mailed check', 0.23],
      ['bank transfer', (customer) => customer.PaymentMethod === 'Bank transfer (automatic)', 0.22],
      ['credit card', (customer) => customer.PaymentMethod === 'Credit card (automatic)', 0.22],
    ];
    const observed = Object.fromEntries(expected.map(([name, predicate]) => [name, share(customers, predicate)]));
    for (const [name, , target] of expected) {
      expect(Math.abs((observed[name] ?? 0) - target), name).toBeLessThan(0.04);
    }
  });

  it('has the U-shaped tenure of the IBM file and charges driven by services', () => {
    const counts = Array.from({ length: 73 }, (_, tenure) => customers.filter((c) => c.tenure === tenure).length);
    const sorted = [...counts].sort((left, right) => left - right);
    const median = sorted[36] ?? 0;
    expect(counts[1]).toBeGreaterThan(median * 4);
    expect(counts[72]).toBeGreaterThan(median * 2);
    const meanCharge = (internet: TelcoCustomer['InternetService']) => {
      const group = customers.filter((customer) => customer.InternetService === internet);
      return group.reduce((sum, customer) => sum + customer.MonthlyCharges, 0) / group.length;
    };
    expect(meanCharge('Fiber optic')).toBeGreaterThan(meanCharge('DSL'));
    expect(meanCharge('DSL')).toBeGreaterThan(meanCharge('No'));
    expect(Math.min(...customers.map((customer) => customer.MonthlyCharges))).toBeLessThan(20);
    expect(Math.max(...customers.map((customer) => customer.MonthlyCharges))).toBeGreaterThan(110);
  });

  it('has churn driven by contract, internet, payment method, tenure and age', () => {
    const overall = share(customers, (customer) => customer.Churn === 'Yes');
    expect(overall).toBeGreaterThan(0.22);
    expect(overall).toBeLessThan(0.31);
    const contract = (value: TelcoCustomer['Contract']) => churnRate((customer) => customer.Contract === value);
    expect(contract('Month-to-month')).toBeGreaterThan(contract('One year'));
    expect(contract('One year')).toBeGreaterThan(contract('Two year'));
    const internet = (value: TelcoCustomer['InternetService']) =>
      churnRate((customer) => customer.InternetService === value);
    expect(internet('Fiber optic')).toBeGreaterThan(internet('DSL'));
    expect(internet('DSL')).toBeGreaterThan(internet('No'));
    const payment = (value: TelcoCustomer['PaymentMethod']) =>
      churnRate((customer) => customer.PaymentMethod === value);
    for (const other of ['Mailed check', 'Bank transfer (automatic)', 'Credit card (automatic)'] as const) {
      expect(payment('Electronic check')).toBeGreaterThan(payment(other));
    }
    expect(churnRate((customer) => customer.tenure < 12)).toBeGreaterThan(
      churnRate((customer) => customer.tenure > 48),
    );
    expect(churnRate((customer) => customer.SeniorCitizen === 1)).toBeGreaterThan(
      churnRate((customer) => customer.SeniorCitizen === 0),
    );
  });

  it('keeps the churn orderings for other seeds too', () => {
    for (const seed of [1, 2, 3]) {
      const rows = generateCustomers({ seed });
      const rate = (predicate: (customer: TelcoCustomer) => boolean) =>
        share(rows.filter(predicate), (customer) => customer.Churn === 'Yes');
      expect(rate((c) => c.Contract === 'Month-to-month')).toBeGreaterThan(rate((c) => c.Contract === 'One year'));
      expect(rate((c) => c.Contract === 'One year')).toBeGreaterThan(rate((c) => c.Contract === 'Two year'));
      expect(rate((c) => c.InternetService === 'Fiber optic')).toBeGreaterThan(
        rate((c) => c.InternetService === 'DSL'),
      );
      expect(rate((c) => c.InternetService === 'DSL')).toBeGreaterThan(rate((c) => c.InternetService === 'No'));
      expect(share(rows, (c) => c.Churn === 'Yes')).toBeGreaterThan(0.22);
      expect(share(rows, (c) => c.Churn === 'Yes')).toBeLessThan(0.31);
    }
  });
});

const HEADER =
  'customerID,gender,SeniorCitizen,Partner,Dependents,tenure,PhoneService,MultipleLines,InternetService,' +
  'OnlineSecurity,OnlineBackup,DeviceProtection,TechSupport,StreamingTV,StreamingMovies,Contract,' +
  'PaperlessBilling,PaymentMethod,MonthlyCharges,TotalCharges,Churn';

/** The first rows of the IBM file plus one of its tenure-0 customers, with CRLF and some quoting. */
const IBM_SAMPLE = [
  HEADER,
  '7590-VHVEG,Female,0,Yes,No,1,No,No phone service,DSL,No,Yes,No,No,No,No,Month-to-month,Yes,Electronic check,29.85,29.85,No',
  '5575-GNVDE,Male,0,No,No,34,Yes,No,DSL,Yes,No,Yes,No,No,No,One year,No,Mailed check,56.95,1889.5,No',
  '"3668-QPYBK","Male",0,"No","No",2,"Yes","No","DSL","Yes","Yes","No","No","No","No","Month-to-month","Yes","Mailed check",53.85,"108.15","Yes"',
  '4472-LVYGI,Female,0,Yes,Yes,0,No,No phone service,DSL,Yes,No,Yes,Yes,Yes,No,Two year,Yes,Bank transfer (automatic),52.55, ,No',
  '',
].join('\r\n');

describe('parseCsv', () => {
  it('handles quotes, escaped quotes, separators and line breaks inside quotes, CRLF and a BOM', () => {
    const text = '\uFEFFa,b,c\r\n"x, y","say ""hi""","two\nlines"\r\n\r\n1,,3';
    expect(parseCsv(text)).toEqual([
      { line: 1, fields: ['a', 'b', 'c'] },
      { line: 2, fields: ['x, y', 'say "hi"', 'two\nlines'] },
      { line: 5, fields: ['1', '', '3'] },
    ]);
    expect(() => parseCsv('a,"b\n')).toThrow(/unterminated/);
  });
});

describe('parseTelcoCsv', () => {
  it('reads the IBM format into the generator value types, with blank TotalCharges for tenure 0', () => {
    const rows = parseTelcoCsv(IBM_SAMPLE);
    expect(rows.map((row) => row.customerID)).toEqual(['7590-VHVEG', '5575-GNVDE', '3668-QPYBK', '4472-LVYGI']);
    expect(rows[0]).toEqual({
      customerID: '7590-VHVEG',
      gender: 'Female',
      SeniorCitizen: 0,
      Partner: 'Yes',
      Dependents: 'No',
      tenure: 1,
      PhoneService: 'No',
      MultipleLines: 'No phone service',
      InternetService: 'DSL',
      OnlineSecurity: 'No',
      OnlineBackup: 'Yes',
      DeviceProtection: 'No',
      TechSupport: 'No',
      StreamingTV: 'No',
      StreamingMovies: 'No',
      Contract: 'Month-to-month',
      PaperlessBilling: 'Yes',
      PaymentMethod: 'Electronic check',
      MonthlyCharges: 29.85,
      TotalCharges: '29.85',
      Churn: 'No',
    });
    expect(rows[2]).toMatchObject({ gender: 'Male', tenure: 2, TotalCharges: '108.15', Churn: 'Yes' });
    expect(rows[3]).toMatchObject({ tenure: 0, TotalCharges: '', MonthlyCharges: 52.55 });
    expect(Object.keys(rows[1] ?? {})).toEqual(TELCO_COLUMNS.map((column) => column.name));
  });

  it('accepts the columns in any order', () => {
    const lines = IBM_SAMPLE.split('\r\n').map((line) => line.split(','));
    const reordered = lines.map((fields) => [...fields.slice(1, 2), ...fields.slice(0, 1), ...fields.slice(2)]);
    const plain = parseTelcoCsv(IBM_SAMPLE.replace(/"/g, ''));
    expect(parseTelcoCsv(reordered.map((fields) => fields.join(',')).join('\n'))).toEqual(plain);
  });

  it('names the line and column of a bad value, and the flag to fix', () => {
    const expectCsvError = (text: string, pattern: RegExp) => {
      let error: unknown;
      try {
        parseTelcoCsv(text);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(TelcoError);
      expect((error as TelcoError).code).toBe('TELCO_CSV_INVALID');
      expect((error as TelcoError).message).toMatch(/^--csv: /);
      expect((error as TelcoError).message).toMatch(pattern);
    };
    expectCsvError(IBM_SAMPLE.replace('56.95', 'cheap'), /line 3, column MonthlyCharges/);
    expectCsvError(
      IBM_SAMPLE.replace('Mailed check,56.95', 'Cash,56.95'),
      /line 3, column PaymentMethod.*Electronic check/,
    );
    expectCsvError(IBM_SAMPLE.replace(',34,', ',34.5,'), /line 3, column tenure/);
    expectCsvError(IBM_SAMPLE.replace('Female,0,Yes,No,1', 'Female,2,Yes,No,1'), /line 2, column SeniorCitizen/);
    expectCsvError(IBM_SAMPLE.replace(',Churn', ''), /lacks the IBM columns Churn/);
    expectCsvError(IBM_SAMPLE.replace('5575-GNVDE', '7590-VHVEG'), /line 3: customerID 7590-VHVEG appears twice/);
    expectCsvError(IBM_SAMPLE.replace(',1889.5,No', ',1889.5'), /line 3 has 20 fields/);
    expectCsvError('', /empty/);
  });
});

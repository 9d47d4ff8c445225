/**
 * A held-out measure of figure grounding: 45 cases outside telco churn (e-commerce, HR, hospital
 * readmissions, A/B tests, finance, sensors, surveys), written against the spec alone. It prints
 * flag precision, flag recall and grounding recall over all figures and lists each figure where the
 * checker disagrees with the expectation; it asserts only floors, never a per-case result.
 */
import { describe, expect, it } from 'vitest';
import { type FigureCheck, groundFigures } from '../../src/agent/grounding/ground-figures.js';
import { numbersIn } from '../../src/agent/grounding/result-numbers.js';
import { givenNumbers } from '../../src/agent/grounding/thread-evidence.js';

type Status = 'grounded' | 'derived' | 'ungrounded' | 'ambiguous';

interface Case {
  name: string;
  text: string;
  outputs: string[];
  given?: string;
  expect: Partial<Record<Status, string[]>>;
}

const CASES: Case[] = [
  {
    name: 'e-commerce revenue by region',
    outputs: [
      ` region  | orders | revenue    | avg_order_value
---------+--------+------------+----------------
 North   |  12408 | 1534211.40 |          123.65
 South   |   9877 | 1102876.95 |          111.66
 West    |  15230 | 2011450.10 |          132.07
(3 rows)`,
    ],
    text: `West leads with 15,230 orders and $2.01M in revenue, at an average order value of $132.07. North follows with 12,408 orders ($1.53M), and South trails at 9,877 orders with the lowest AOV, $111.66.`,
    expect: { grounded: ['15,230', '$2.01M', '$132.07', '12,408', '$1.53M', '9,877', '$111.66'] },
  },
  {
    name: 'payment mix with a wrongly rounded share',
    outputs: [
      `payment_method
card      0.6184
paypal    0.2417
wallet    0.1399
Name: proportion, dtype: float64`,
    ],
    text: 'Card payments account for 61.8% of orders, PayPal for 24.1% and wallets for 14.0%.',
    expect: { grounded: ['61.8%', '14.0%'], ungrounded: ['24.1%'] },
  },
  {
    name: 'HR attrition report table',
    outputs: [
      ` department  | headcount | leavers | attrition_rate
-------------+-----------+---------+---------------
 Engineering |       412 |      37 |         0.0898
 Sales       |       268 |      51 |         0.1903
 Support     |       190 |      29 |         0.1526
(3 rows)`,
    ],
    text: `## Attrition by department

| Department | Headcount | Leavers | Attrition |
|---|---|---|---|
| Sales | 268 | 51 | 19.0% |
| Support | 190 | 29 | 15.3% |
| Engineering | 412 | 37 | 9.0% |

Sales has the highest attrition, roughly double Engineering's rate.`,
    expect: { grounded: ['268', '51', '19.0%', '190', '29', '15.3%', '412', '37', '9.0%'] },
  },
  {
    name: 'salary by tenure with transposed digits',
    outputs: [
      `tenure_band  mean_salary    n
0-2y           58214.3    342
2-5y           67420.9    518
5y+            81377.2    211`,
    ],
    text: 'Mean salary rises with tenure: $58,214 for staff under two years (342 people), $67,240 between two and five years (518), and $81,377 beyond five years (211).',
    expect: { grounded: ['$58,214', '342', '518', '$81,377', '211'], ungrounded: ['$67,240'] },
  },
  {
    name: 'readmission trend with year and ordinal traps',
    outputs: [
      ` year | discharges | readmit_30d | rate
------+------------+-------------+-------
 2022 |      14210 |        1961 | 0.1380
 2023 |      14876 |        1874 | 0.1260
(2 rows)`,
    ],
    text: 'The 30-day readmission rate fell from 13.8% in 2022 to 12.6% in 2023, across 14,876 discharges in the most recent year. This is the 2nd consecutive annual decline.',
    expect: { grounded: ['13.8%', '12.6%', '14,876'] },
  },
  {
    name: 'A/B conversion gap in percentage points',
    outputs: [
      `          visitors  conversions  conv_rate
control      24817         1142   0.046017
variant      24903         1387   0.055696`,
    ],
    text: 'The variant converted at 5.57% versus 4.60% for control (1,387 of 24,903 visitors against 1,142 of 24,817), a gap of 0.97 percentage points.',
    expect: { grounded: ['5.57%', '4.60%', '1,387', '24,903', '1,142', '24,817'], derived: ['0.97'] },
  },
  {
    name: 'A/B relative lift stated as an increase',
    outputs: [
      `  arm  users  purchases      rate
0   A  18230        912  0.050027
1   B  18114       1087  0.060009`,
    ],
    text: 'Checkout B moved the purchase rate from 5.0% to 6.0%, a relative increase of 20%.',
    expect: { grounded: ['5.0%', '6.0%'], derived: ['20%'] },
  },
  {
    name: 'P&L report section with an invented total',
    outputs: [
      ` line_item         | fy2023     | fy2024
-------------------+------------+-----------
 revenue           | 48210000   | 53975000
 cogs              | 29105000   | 31844000
 gross_profit      | 19105000   | 22131000
 opex              | 14320000   | 15012000
 operating_income  |  4785000   |  7119000
(5 rows)`,
    ],
    text: `### 2. Profit and loss

| Line item | FY2023 | FY2024 |
|---|---|---|
| Revenue | $48.2M | $54.0M |
| Gross profit | $19.1M | $22.1M |
| Operating income | $4.8M | $7.1M |

Total operating expenses across both years were $30.1M.`,
    expect: { grounded: ['$48.2M', '$54.0M', '$19.1M', '$22.1M', '$4.8M', '$7.1M'], ungrounded: ['$30.1M'] },
  },
  {
    name: 'sensor temperatures with negatives',
    outputs: [
      `sensor   mean_temp   min_temp   max_temp   drift_per_day
s1         21.437     -3.812     38.904        -0.00421
s2         19.882     -5.066     36.217         0.00187`,
    ],
    text: 'Sensor s1 averaged 21.4 °C, ranging from -3.8 °C to 38.9 °C, and drifts by -0.0042 °C per day; sensor s2 is cooler at 19.9 °C with a low of -5.07 °C.',
    expect: { grounded: ['21.4', '-3.8', '38.9', '-0.0042', '19.9', '-5.07'] },
  },
  {
    name: 'engagement association with scientific notation and CI',
    outputs: [
      `Chi-square: 478.213, dof=2, p=1.270000e-105
Odds ratio (high vs low engagement): 3.412
95% CI: [2.981, 3.907]`,
    ],
    text: 'Repeat purchase is strongly associated with engagement level (chi-square = 478.2, p = 1.3 × 10^-105). Highly engaged customers have 3.4x the odds of a repeat purchase (95% CI 2.98–3.91).',
    expect: { grounded: ['478.2', '1.3 × 10^-105', '3.4x', '2.98', '3.91'] },
  },
  {
    name: 'survey CSAT with a segment not in the output',
    outputs: [
      ` segment     | respondents | satisfied | csat
-------------+-------------+-----------+------
 Enterprise  |         214 |       183 | 0.855
 Mid-market  |         377 |       298 | 0.790
 SMB         |         602 |       431 | 0.716
(3 rows)`,
    ],
    text: 'Satisfaction is highest among Enterprise respondents (85.5%) and lowest in SMB (71.6%). Mid-market sits at 79.0%, and public-sector accounts score 68.4%.',
    expect: { grounded: ['85.5%', '71.6%', '79.0%'], ungrounded: ['68.4%'] },
  },
  {
    name: 'return rates with a comma decimal percentage',
    outputs: [
      `category
apparel        0.1247
electronics    0.0612
home           0.0438
Name: return_rate, dtype: float64`,
    ],
    text: 'Apparel has the highest return rate at 12,5%, roughly double electronics (6.1%); home goods are lowest at 4.4%.',
    expect: { grounded: ['6.1%', '4.4%'], ambiguous: ['12,5%'] },
  },
  {
    name: 'basket value in European number format',
    outputs: [
      ` month   | orders | avg_basket_eur
---------+--------+---------------
 2024-01 |   1204 |        3412.70
(1 row)`,
    ],
    text: 'In January 2024 the shop processed 1,204 orders with an average basket of €3.412,7.',
    expect: { grounded: ['1,204'], ambiguous: ['€3.412,7'] },
  },
  {
    name: 'overtime correlation with a comma decimal coefficient',
    outputs: ['pearson r = 0.318, p = 2.4e-09\nn = 1470'],
    text: 'Across 1,470 employees, the correlation between monthly overtime and attrition is weak but significant (r = 0,318, p = 2.4e-09).',
    expect: { grounded: ['1,470', '2.4e-09'], ambiguous: ['0,318'] },
  },
  {
    name: 'discharge destination share',
    outputs: [
      ` discharge_to    | patients
-----------------+---------
 home            |     3120
 skilled_nursing |      842
 rehab           |      311
(3 rows)`,
      ` total
-------
  4273
(1 row)`,
    ],
    text: 'Of the 4,273 patients discharged this quarter, 842 went to skilled nursing — a share of 19.7% — while 3,120 went home.',
    expect: { grounded: ['4,273', '842', '3,120'], derived: ['19.7%'] },
  },
  {
    name: 'loyalty LTV ratio in times',
    outputs: [
      `                avg_ltv
segment                
loyalty_member   412.83
non_member       127.40`,
    ],
    text: 'Loyalty members have an average lifetime value of $412.83 against $127.40 for non-members — 3.2 times as much.',
    expect: { grounded: ['$412.83', '$127.40'], derived: ['3.2'] },
  },
  {
    name: 'combined defects across two lines',
    outputs: [
      ` line | defects
------+--------
 A    |     318
 B    |     274
(2 rows)`,
    ],
    text: 'Line A produced 318 defective units and line B 274, for a combined 592 defects this week.',
    expect: { grounded: ['318', '274'], derived: ['592'] },
  },
  {
    name: 'half-year revenue summed without saying so',
    outputs: [
      ` quarter | revenue
---------+---------
 Q1      | 1243500
 Q2      | 1309800
(2 rows)`,
    ],
    text: 'Q1 revenue was $1.24M and Q2 revenue $1.31M. H1 revenue came to $2.55M.',
    expect: { grounded: ['$1.24M', '$1.31M'], ungrounded: ['$2.55M'] },
  },
  {
    name: 'pay difference computed without saying so',
    outputs: [
      `gender
F    71250.0
M    76900.0
Name: median_salary, dtype: float64`,
    ],
    text: "Women's median salary is $71,250 and men's is $76,900, which leaves $5,650 per head to close.",
    expect: { grounded: ['$71,250', '$76,900'], ungrounded: ['$5,650'] },
  },
  {
    name: 'readmission by insurer with a points difference',
    outputs: [
      `           readmit_rate
insurance              
medicare         0.1712
private          0.0954
medicaid         0.1488`,
    ],
    text: 'Medicare patients are readmitted at 17.1%, 7.6 points higher than privately insured patients (9.5%). Medicaid sits in between at 14.9%.',
    expect: { grounded: ['17.1%', '9.5%', '14.9%'], derived: ['7.6'] },
  },
  {
    name: 'extraction summary and repeat rate',
    outputs: ['orders: 46212 rows loaded from shop_db\ncustomers: 18904 rows loaded from shop_db', '0.317214'],
    text: `I loaded 46,212 orders from 18,904 customers. About 32% of customers ordered more than once:

\`\`\`python
df.groupby('customer_id').size().gt(1).mean()
\`\`\``,
    expect: { grounded: ['46,212', '18,904', '32%'] },
  },
  {
    name: 'gateway uptime with an approximate figure too far off',
    outputs: [
      `device_id  uptime_pct
gw_01        99.412
gw_02        97.031
gw_03        91.774
mean         96.072`,
    ],
    text: 'Average gateway uptime is about 96%, with gw_01 the most reliable at 99.4%, but gw_03 lags at approximately 86%.',
    expect: { grounded: ['96%', '99.4%'], ungrounded: ['86%'] },
  },
  {
    name: 'signup findings with list, heading, step and version traps',
    outputs: [
      ` channel   | sessions | signups | signup_rate
-----------+----------+---------+------------
 organic   |    81244 |    2107 |      0.0259
 paid      |    40512 |    1650 |      0.0407
 referral  |    12087 |     731 |      0.0605
(3 rows)`,
    ],
    text: `## 1. Findings

1. Referral traffic converts best at 6.05%, from 12,087 sessions.
2. Paid search converts at 4.07% (1,650 signups).
3. Organic brings the most sessions (81,244) but converts at only 2.59%.

See step 3 of the pipeline (tracking script version 2.1) for how sessions are counted.`,
    expect: { grounded: ['6.05%', '12,087', '4.07%', '1,650', '81,244', '2.59%'] },
  },
  {
    name: 'onboarding lift with bound, confidence level and code traps',
    outputs: [
      `lift: 0.1184
95% CI: (0.0412, 0.1956)
p-value: 0.00031
n_control=15220, n_treatment=15198`,
    ],
    text: 'The new onboarding flow lifts activation by 11.8% (95% CI 4.1% to 19.6%, p < 0.001). Both arms had more than 15,000 users; the test used `alpha = 0.05`.',
    expect: { grounded: ['11.8%', '4.1%', '19.6%'] },
  },
  {
    name: 'attrition for an age band the user named',
    given: 'What is the attrition rate for employees aged 25 to 34?',
    outputs: [
      ` employees | leavers | attrition
-----------+---------+----------
       831 |     118 |    0.1420
(1 row)`,
    ],
    text: 'Employees aged 25 to 34 have an attrition rate of 14.2% (118 of 831 employees left in the past year).',
    expect: { grounded: ['14.2%', '118', '831'] },
  },
  {
    name: 'pressure event with date, time and ordinal traps',
    outputs: [
      ` ts                  | sensor | pressure_kpa
---------------------+--------+-------------
 2024-06-14 03:15:00 | p2     |        412.8
 2024-06-14 03:20:00 | p2     |        188.3
(2 rows)`,
    ],
    text: 'Pressure on sensor p2 dropped from 412.8 kPa to 188.3 kPa between 03:15 and 03:20 on 2024-06-14, the 3rd such event since 2024-06-01.',
    expect: { grounded: ['412.8', '188.3'] },
  },
  {
    name: 'length of stay with table, figure, cell and compound adjective traps',
    outputs: [
      ` los_band | patients | readmitted | rate
----------+----------+------------+-------
 short    |     2210 |        187 | 0.0846
 long     |      954 |        163 | 0.1709
(2 rows)`,
    ],
    text: `### Length of stay

As Table 2 and Figure 4 show, patients with a long stay (beyond a 7-day threshold) are readmitted at 17.1% (163 of 954 patients), against 8.5% for short stays. The 90-day follow-up cohort is analysed in cell 14.`,
    expect: { grounded: ['17.1%', '163', '954', '8.5%'] },
  },
  {
    name: 'net income table with year traps',
    outputs: [
      ` year | net_income
------+-----------
 2021 |    3214000
 2022 |    2871500
 2023 |    4102300
(3 rows)`,
    ],
    text: `| Year | Net income |
|---|---|
| 2021 | $3.21M |
| 2022 | $2.87M |
| 2023 | $4.10M |

Net income recovered in 2023 after a dip in 2022, the best result since the 2019 restructuring.`,
    expect: { grounded: ['$3.21M', '$2.87M', '$4.10M'] },
  },
  {
    name: 'cart abandonment rounded the wrong way',
    outputs: ['carts: 31877 rows loaded from shop_db', 'abandonment_rate    0.694960\ndtype: float64'],
    text: 'Cart abandonment stands at 69.4% this quarter, based on 31,877 carts.',
    expect: { grounded: ['31,877'], ungrounded: ['69.4%'] },
  },
  {
    name: 'energy report table with transposed digits',
    outputs: [
      ` site     | kwh_total | peak_kw
----------+-----------+--------
 plant_a  |    184520 |    92.4
 plant_b  |    157310 |    78.1
 plant_c  |    201745 |   103.6
(3 rows)`,
    ],
    text: `#### Energy use by site

| Site | Energy (kWh) | Peak (kW) |
|---|---|---|
| Plant C | 201,745 | 103.6 |
| Plant A | 184,520 | 92.4 |
| Plant B | 175,310 | 78.1 |`,
    expect: { grounded: ['201,745', '103.6', '184,520', '92.4', '78.1'], ungrounded: ['175,310'] },
  },
  {
    name: 'multi-variant test with a variant not in the output',
    outputs: [
      `variant   sessions   orders      cr
A             9812      402  0.0410
B             9790      455  0.0465
C             9841      431  0.0438`,
    ],
    text: 'Variant B has the best conversion rate (4.65%), followed by C (4.38%) and A (4.10%). Variant D, which was paused early, converted at 3.92%.',
    expect: { grounded: ['4.65%', '4.38%', '4.10%'], ungrounded: ['3.92%'] },
  },
  {
    name: 'leaver reasons with a wrong "together" sum',
    outputs: [
      ` reason        | leavers
---------------+--------
 compensation  |      64
 career        |      52
 relocation    |      19
(3 rows)`,
    ],
    text: 'Compensation (64 leavers) and career growth (52) together account for 126 departures.',
    expect: { grounded: ['64', '52'], ungrounded: ['126'] },
  },
  {
    name: 'product margins with one wrong digit',
    outputs: [
      `              revenue       cost    margin
product                                   
Basic       1204300.0   842010.0  0.300830
Pro         2871900.0  1623150.0  0.434817
Enterprise  4410200.0  2198500.0  0.501497`,
    ],
    text: 'Enterprise has the highest margin at 50.1%, Pro sits at 43.5%, and Basic trails at 30.8%.',
    expect: { grounded: ['50.1%', '43.5%'], ungrounded: ['30.8%'] },
  },
  {
    name: 'readmission regression with a wrong exponent',
    outputs: [
      `                 coef   std err       z      P>|z|
age            0.0214    0.0031   6.903   5.09e-12
prior_admits   0.4127    0.0389  10.609   2.71e-26`,
    ],
    text: 'Each prior admission raises the log-odds of readmission by 0.413 (p = 2.7e-26), and each additional year of age by 0.0214 (p = 5.1e-21).',
    expect: { grounded: ['0.413', '2.7e-26', '0.0214'], ungrounded: ['5.1e-21'] },
  },
  {
    name: 'monthly GMV with a mis-scaled suffix',
    outputs: [
      `month
2024-04    842315.20
2024-05    911040.75
2024-06    978402.10
Name: gmv, dtype: float64`,
    ],
    text: 'GMV climbed every month this quarter: $842k in April, $911k in May and $9.78M in June.',
    expect: { grounded: ['$842k', '$911k'], ungrounded: ['$9.78M'] },
  },
  {
    name: 'survey scores with a wrong interval bound',
    outputs: [
      `question                      mean  ci_low  ci_high
Q1 ease of use                4.21    4.13     4.29
Q2 value for money            3.47    3.36     3.58
Q3 likelihood to recommend    3.98    3.88     4.08`,
    ],
    text: 'Ease of use (Q1) scores highest at 4.21 out of 5 (CI 4.13-4.29); value for money (Q2) is lowest at 3.47 (CI 3.36-3.68).',
    expect: { grounded: ['4.21', '4.13', '4.29', '3.47', '3.36'], ungrounded: ['3.68'] },
  },
  {
    name: 'engagement drop with a wrong points difference',
    outputs: [
      ` year | engaged_share
------+--------------
 2023 |         0.612
 2024 |         0.587
(2 rows)`,
    ],
    text: 'Engagement fell from 61.2% in 2023 to 58.7% in 2024, a drop of 3.5 points.',
    expect: { grounded: ['61.2%', '58.7%'], ungrounded: ['3.5'] },
  },
  {
    name: 'humidity summary with an invented percentile',
    outputs: [
      `count    8640.000000
mean       47.312500
std         6.118204
min        22.900000
25%        43.100000
50%        47.400000
75%        51.700000
max        71.300000
Name: humidity, dtype: float64`,
    ],
    text: 'Across 8,640 readings, humidity averaged 47.3% (median 47.4%, standard deviation 6.1). The maximum was 71.3% and the minimum 22.9%; the 90th percentile was 58.2%.',
    expect: { grounded: ['8,640', '47.3%', '47.4%', '6.1', '71.3%', '22.9%'], ungrounded: ['58.2%'] },
  },
  {
    name: 'order status counts with transposed digits and a code block',
    outputs: [
      ` status     | orders
------------+-------
 delivered  |  41877
 returned   |   3102
 cancelled  |   1233
(3 rows)`,
    ],
    text: `41,877 orders were delivered, 3,102 returned and 1,323 cancelled.

\`\`\`sql
SELECT status, COUNT(*) FROM orders WHERE order_date >= '2024-01-01' GROUP BY 1 LIMIT 500
\`\`\``,
    expect: { grounded: ['41,877', '3,102'], ungrounded: ['1,323'] },
  },
  {
    name: 'revenue per user with a wrong ratio',
    outputs: [
      `metric              control   treatment
revenue_per_user      2.184       2.417
refund_rate          0.0212      0.0197`,
    ],
    text: 'Treatment raised revenue per user to $2.42 from $2.18, while the refund rate dipped to 1.97% from 2.12%. Revenue per user is 1.3x higher in treatment.',
    expect: { grounded: ['$2.42', '$2.18', '1.97%', '2.12%'], ungrounded: ['1.3x'] },
  },
  {
    name: 'NPS breakdown with a wrong passive share',
    outputs: [
      `promoters     0.4120
passives      0.3350
detractors    0.2530
nps          15.9000`,
    ],
    text: 'Promoters make up 41.2% of respondents and detractors 25.3%, giving an NPS of 15.9. Passives are 35.5%.',
    expect: { grounded: ['41.2%', '25.3%', '15.9'], ungrounded: ['35.5%'] },
  },
  {
    name: 'budget variance with k suffix and a negative',
    outputs: [
      ` cost_center | budget  | actual  | variance_pct
-------------+---------+---------+-------------
 marketing   |  450000 |  512300 |        13.84
 it          |  820000 |  782600 |        -4.56
(2 rows)`,
    ],
    text: "Marketing overspent its $450k budget by 13.8%, landing at $512.3k; IT's variance was -4.6% at $782.6k against an $820k budget.",
    expect: { grounded: ['$450k', '13.8%', '$512.3k', '-4.6%', '$782.6k', '$820k'] },
  },
  {
    name: 'hospital readmission section with ranges and a hospital not in the output',
    outputs: [
      ` hospital  | admissions | readmit_rate | ci_low | ci_high
-----------+------------+--------------+--------+--------
 St Mary   |       5120 |       0.1127 | 0.1039 | 0.1211
 Riverside |       3874 |       0.1341 | 0.1234 | 0.1448
(2 rows)`,
    ],
    text: `## Readmissions by hospital

Riverside's readmission rate is 13.4% (12.3-14.5%) on 3,874 admissions; St Mary's is 11.3% (10.4-12.1%) on 5,120. Lakeside, at 16.8%, remains the outlier.`,
    expect: {
      grounded: ['13.4%', '12.3', '14.5%', '3,874', '11.3%', '10.4', '12.1%', '5,120'],
      ungrounded: ['16.8%'],
    },
  },
  {
    name: 'segment revenue in bn and million',
    outputs: [
      ` segment   | revenue
-----------+------------
 retail    | 1843200000
 wholesale |  612740000
(2 rows)`,
    ],
    text: 'Retail generated $1.84bn and wholesale $612.7 million this year.',
    expect: { grounded: ['$1.84bn', '$612.7 million'] },
  },
  {
    name: 'two-proportion test in percent words with a ratio',
    outputs: [
      `Test: two-proportion z-test
control: 1,204 / 30,118 = 3.998%
treatment: 1,590 / 30,072 = 5.287%
z = 8.03, p = 9.8e-16`,
    ],
    text: 'Treatment converted at 5.29 percent against 4.00 percent in control (z = 8.03, p = 9.8e-16), a ratio of 1.32.',
    expect: { grounded: ['5.29 percent', '4.00 percent', '8.03', '9.8e-16'], derived: ['1.32'] },
  },
];

const STATUSES: Status[] = ['grounded', 'derived', 'ungrounded', 'ambiguous'];
const isBad = (s: string): boolean => s === 'ungrounded' || s === 'ambiguous';
const isGood = (s: string): boolean => s === 'grounded' || s === 'derived';
const norm = (s: string): string =>
  s
    .trim()
    .replace(/^[$€£¥]/, '')
    .trim()
    .toLowerCase();

interface Outcome {
  figure: string;
  expected: Status | 'not a figure';
  got: FigureCheck['status'] | 'not found';
}

/** Pairs each expected figure with a check: same text first, else a check overlapping where it is written. */
function judge(c: Case, checks: FigureCheck[]): Outcome[] {
  const used = new Set<FigureCheck>();
  const outcomes: Outcome[] = [];
  for (const status of STATUSES) {
    for (const figure of c.expect[status] ?? []) {
      let check = checks.find((k) => !used.has(k) && norm(k.text) === norm(figure));
      if (!check) {
        for (let at = c.text.indexOf(figure); at >= 0 && !check; at = c.text.indexOf(figure, at + 1)) {
          const end = at + figure.length;
          const overlapping = checks.filter((k) => k.start < end && k.end > at);
          check = overlapping.find((k) => !used.has(k)) ?? overlapping[0];
        }
      }
      if (check) used.add(check);
      outcomes.push({ figure, expected: status, got: check ? check.status : 'not found' });
    }
  }
  for (const k of checks) {
    if (!used.has(k)) outcomes.push({ figure: k.text, expected: 'not a figure', got: k.status });
  }
  return outcomes;
}

describe('held-out figure grounding', () => {
  it('flags wrong figures and grounds right ones outside the tuned set', () => {
    expect(CASES).toHaveLength(45);
    let figures = 0;
    let flagged = 0;
    let truePositives = 0;
    let bad = 0;
    let good = 0;
    let recognised = 0;
    const disagreements: string[] = [];
    for (const c of CASES) {
      const sources = c.outputs.map((text, i) => ({ id: `call_${i + 1}`, tool: 'run_sql', numbers: numbersIn(text) }));
      const checks = groundFigures(c.text, sources, { given: givenNumbers(c.given ?? '') });
      for (const o of judge(c, checks)) {
        if (o.expected !== 'not a figure') figures += 1;
        if (isBad(o.got)) flagged += 1;
        if (isBad(o.expected)) {
          bad += 1;
          if (isBad(o.got)) truePositives += 1;
        }
        if (isGood(o.expected)) {
          good += 1;
          if (isGood(o.got)) recognised += 1;
        }
        if (o.expected !== o.got) {
          disagreements.push(`  [${c.name}] ${o.figure}: expected ${o.expected}, got ${o.got}`);
        }
      }
    }
    const precision = flagged === 0 ? 1 : truePositives / flagged;
    const recall = bad === 0 ? 1 : truePositives / bad;
    const groundingRecall = good === 0 ? 1 : recognised / good;
    const fmt = (x: number): string => x.toFixed(3);
    console.log(
      `held-out grounding: ${figures} figures in ${CASES.length} cases, flag precision ${fmt(precision)}, flag recall ${fmt(recall)}, grounding recall ${fmt(groundingRecall)}`,
    );
    for (const line of disagreements) console.log(line);
    expect(precision).toBeGreaterThanOrEqual(0.85);
    expect(recall).toBeGreaterThanOrEqual(0.85);
    expect(groundingRecall).toBeGreaterThanOrEqual(0.85);
  });
});

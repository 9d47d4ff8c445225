/**
 * The questions of the schema benchmark and the tables each needs: the telco golden cases (tables read off each
 * case's message and the knowledge it relies on; the out-of-scope case needs none and is left out), and 132 analyst
 * questions over the synthetic warehouse (`schema-warehouse.ts`) and the telco tables, written for this bench.
 */

export interface SchemaQuestion {
  question: string;
  tables: string[];
}

/** Golden case id -> the tables its answer reads (from its message, and for the knowledge cases the pieces named). */
export const GOLDEN_TABLES: Readonly<Record<string, string[]>> = {
  'golden-row-counts': ['user_demographics', 'user_services', 'user_payments', 'user_churn'],
  'golden-missing-demographics': ['user_payments', 'user_demographics'],
  'golden-orphan-keys': ['user_services', 'user_churn', 'user_payments'],
  'golden-blank-total-charges': ['user_payments', 'user_services'],
  'golden-blank-cells': ['user_payments'],
  'golden-churn-by-contract': ['user_payments', 'user_churn'],
  'golden-churn-by-internet': ['user_services', 'user_churn'],
  'golden-churn-by-payment-method': ['user_payments', 'user_churn'],
  'golden-churn-overall': ['user_churn', 'user_payments', 'user_churn_new'],
  'golden-churn-model': [
    'user_demographics',
    'user_services',
    'user_payments',
    'user_churn',
    'user_demographics_new',
    'user_services_new',
    'user_payments_new',
    'user_churn_new',
  ],
  'golden-clarify-top-churners': ['user_churn'],
  'golden-audit-revision': ['user_payments', 'user_demographics'],
  'golden-active-customers': ['user_payments', 'user_churn', 'user_services'],
  'golden-verified-payment-method': ['user_payments', 'user_churn'],
  'golden-attrition-by-contract': ['user_payments', 'user_churn'],
};

/** `question | table, table`: one per line. */
const LINES = `
What is the average order value per customer segment? | sales_orders, sales_customers
How many order items did each product SKU sell last quarter? | sales_order_items
Which sales reps closed the largest total order amount this year? | sales_orders
What is the pipeline value of open opportunities by stage? | sales_opportunities
Which sales territories are furthest below their quota? | sales_territories
Show daily sales orders for the last 30 days. | sales_orders_daily
What was the monthly total order amount in 2024? | sales_orders_monthly
How many new customers signed up each week? | sales_customers_weekly
What is the expected close date distribution of opportunities per customer segment? | sales_opportunities, sales_customers
Which customers have more than ten orders? | sales_customers, sales_orders
What is the balance of debits and credits per ledger account? | finance_ledger_entries, finance_accounts
How does the budget compare with the forecast per account for fiscal year 2025? | finance_budgets, finance_forecasts, finance_accounts
What was the EUR/USD exchange rate trend this year? | finance_exchange_rates
Which account types carry the most ledger entries? | finance_accounts, finance_ledger_entries
Show the monthly forecast amount per account. | finance_forecasts_monthly
How many employees were hired per department last year? | hr_employees
What is the average absence days per absence type? | hr_absences
Which reviewers gave the lowest performance review scores? | hr_performance_reviews
What is the average time to hire per position title? | hr_recruitment
What is the head count per cost center? | hr_departments
Which employees have the most absence days? | hr_absences, hr_employees
Show the archived employee records older than two years. | hr_employees_archive
Which marketing campaigns had the highest spend per channel? | marketing_campaigns
What is the average lead score per lead source? | marketing_leads
Which campaigns have the best email open rate and click rate? | marketing_email_sends, marketing_campaigns
What is the cost per click of ad impressions by campaign? | marketing_ad_impressions, marketing_campaigns
Which web forms convert best? | marketing_web_forms
How many leads did each campaign generate? | marketing_leads, marketing_campaigns
Show daily ad impressions and clicks. | marketing_ad_impressions_daily
Which products are below their reorder point in each warehouse? | inventory_stock_levels, inventory_products, inventory_warehouses
What is the list price per product category? | inventory_products
Which suppliers have the longest lead time and lowest rating? | inventory_suppliers
How many stock movements of each movement type per product? | inventory_stock_movements, inventory_products
What is the capacity of warehouses per city? | inventory_warehouses
Show the nightly snapshot of stock levels. | inventory_stock_levels_snapshot
Which carriers ship the heaviest shipments by weight? | logistics_shipments
What share of deliveries had a late delivery status? | logistics_deliveries
What are the most common return reasons and refund amounts? | logistics_returns
What is the on-time rate per carrier service level? | logistics_carriers
Which routes have the longest distance in km? | logistics_routes
How many shipments went to each destination city per week? | logistics_shipments_weekly
Which shipments were returned after delivery? | logistics_returns, logistics_shipments
How many support tickets were opened per priority? | support_tickets
What is the average time to resolve tickets per ticket category? | support_tickets
Which support agents wrote the most ticket comments? | support_ticket_comments, support_agents
What is the average CSAT score and NPS of satisfaction surveys? | support_satisfaction_surveys
How many SLA breaches per SLA tier, and how many breach minutes? | support_sla_breaches
Which ticket categories get the worst satisfaction survey scores? | support_satisfaction_surveys, support_tickets
Show the monthly number of support tickets. | support_tickets_monthly
How many web sessions per device type and browser? | web_sessions
Which landing pages lead to the most conversions? | web_conversions, web_sessions
What is the average dwell time on each page URL? | web_page_views
Which countries do returning visitors come from? | web_visitors
What are the top search terms with no clicks? | web_search_queries
What is the total conversion value per goal name? | web_conversions
Show daily page views. | web_page_views_daily
What is the total invoiced amount per customer ref this year? | billing_invoices
Which invoices are past their due date and unpaid? | billing_invoices, billing_payments_received
What is the total payment amount received per payment channel? | billing_payments_received
What are the main credit note reasons and credit amounts? | billing_credit_notes
How many dunning notices were sent per dunning level? | billing_dunning_notices
Which invoice lines have the highest line amount? | billing_invoice_lines
Show the staging copy of invoices loaded by ETL. | billing_invoices_staging
How many outage minutes per cell site and root cause? | network_outages, network_cell_sites
Which cell sites dropped the most calls per call attempt? | network_dropped_calls, network_cell_sites
What is the peak hour traffic in GB per cell site technology? | network_traffic_volumes, network_cell_sites
Which engineers handled the most maintenance windows? | network_maintenance_windows
Show the weekly traffic volumes. | network_traffic_volumes_weekly
What is the purchase order total per vendor? | procurement_purchase_orders, procurement_vendors
How many purchase orders are waiting for approval status? | procurement_purchase_orders
What is the total requisition amount per cost center? | procurement_requisitions
Which vendor contracts come up for renewal this quarter? | procurement_contracts, procurement_vendors
How many received quantities per purchase order receipt? | procurement_receipts
Which industries have the most CRM accounts and employees? | crm_accounts
Which contacts have the most activities per activity type? | crm_activities, crm_contacts
How many open cases per case origin? | crm_cases
What is the total renewal value per account? | crm_renewals, crm_accounts
Which features have the most severe bug reports? | product_bug_reports, product_features
How many active users does each feature have? | product_feature_usage, product_features
What shipped in each release version and when? | product_releases
What is the effort in points per roadmap target quarter? | product_roadmap_items
How much did litigation cost per law firm? | legal_litigation_costs
How many compliance checks passed or failed? | legal_compliance_checks
Which legal matters took the most contract review hours? | legal_contracts_reviewed, legal_matters
Which policies took effect this year? | legal_policies
How many room bookings per building and room? | facilities_room_bookings, facilities_rooms, facilities_buildings
What is the kWh energy use per building from energy meters? | facilities_energy_meters, facilities_buildings
How many work orders per work type were completed? | facilities_work_orders
How many security incidents per severity? | security_incidents
Which vulnerabilities have a CVSS score above 9? | security_vulnerabilities
What share of employees clicked the link in phishing tests? | security_phishing_tests
Which resources were accessed without being granted in the access logs? | security_access_logs
Which firewall events hit destination port 22? | security_firewall_events
What is the gross total per pay run? | payroll_pay_runs
What is the average net pay versus gross pay on payslips? | payroll_payslips
Which deduction types take the largest deduction amount? | payroll_deductions
What were the bonus amounts per bonus reason? | payroll_bonuses
How many overtime hours at what overtime rate? | payroll_overtime
Which dashboards have the most views? | analytics_dashboards
Which experiments had a significant uplift by p value? | analytics_experiment_results, analytics_experiments
Which tables failed data quality checks the most? | analytics_data_quality_checks
What commission amount did each partner earn? | partner_commissions, partner_partners
Which partner tiers bring the most referral value? | partner_referrals, partner_partners
Which partner certifications expire soon? | partner_certifications
What is the average basket value of POS transactions per store? | retail_pos_transactions, retail_stores
How many visitors came into each store according to footfall counts? | retail_footfall, retail_stores
What is the points balance per loyalty member tier? | retail_loyalty_members
Which promotions had the biggest discount percentage? | retail_promotions
What is the order value of bulk orders per distributor? | wholesale_bulk_orders, wholesale_distributors
What are freight costs per freight mode? | wholesale_freight_charges
How many rebates did each distributor get? | wholesale_rebates, wholesale_distributors
How many downtime minutes per production line and downtime reason? | manufacturing_machine_downtime, manufacturing_production_lines
What is the scrap quantity per scrap reason? | manufacturing_scrap
What is the average batch size per production line? | manufacturing_batches, manufacturing_production_lines
How many defects per defect type were found in inspections? | quality_defects, quality_inspections
Which corrective actions are overdue? | quality_corrective_actions
What is the average audit score per audit area? | quality_audits
How many trip kilometres did each driver drive? | fleet_trips, fleet_drivers
What is the fuel cost per vehicle? | fleet_fuel_purchases, fleet_vehicles
What is the total service cost of vehicle maintenance? | fleet_vehicle_maintenance
What is the consumption in kWh per meter type? | energy_consumption_readings, energy_meters
How much solar generation per site? | energy_solar_generation
Show the weekly solar generation in kWh. | energy_solar_generation_weekly
What is the price per kWh of each tariff? | energy_tariffs
What is the churn rate by contract type? | user_payments, user_churn
How many senior citizens have churned? | user_demographics, user_churn
What is the average monthly charge by internet service? | user_payments, user_services
How does tenure differ between churned and retained customers? | user_services, user_churn
Which payment methods have the highest monthly charges? | user_payments
How many customers have partners and dependents? | user_demographics
Do customers with tech support churn less? | user_services, user_churn
Compare streaming TV subscribers in the train and test customers. | user_services, user_services_new
`;

export const BENCH_QUESTIONS: SchemaQuestion[] = LINES.trim()
  .split('\n')
  .map((line) => {
    const [question = '', tables = ''] = line.split(' | ');
    return { question, tables: tables.split(', ') };
  });

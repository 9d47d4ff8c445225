/**
 * The synthetic warehouse of the schema benchmark: 25 business domains of 5 entities each, every entity as a base
 * table (with foreign keys to its domain's other entities) and 7 derived ones (daily, weekly, monthly, snapshot,
 * staging, archive, audit), 10 to 40 columns each, less the last entity's eight (energy_carbon_emissions): 992
 * tables, which with telco's 8 make 1,000. Deterministic, so
 * the questions in `schema-questions.ts` can name the tables they need. Also the CREATE TABLE per dialect.
 */
import type { ColumnKind, TableDescription } from '../src/ports/database.js';

export type WarehouseType = 'id' | 'int' | 'decimal' | 'text' | 'date' | 'datetime' | 'bool';

export interface WarehouseColumn {
  name: string;
  type: WarehouseType;
  references?: { table: string; column: string };
}

export interface WarehouseTable {
  name: string;
  comment: string;
  columns: WarehouseColumn[];
}

/** domain -> entity -> its own columns (`x_id>y` is a foreign key to the domain's entity y). */
const DOMAINS: Record<string, Record<string, string>> = {
  sales: {
    customers: 'customer_name segment signup_date:date',
    orders: 'order_date:date customer_id>customers total_amount:decimal sales_rep',
    order_items: 'order_id>orders product_sku quantity:int unit_price:decimal',
    opportunities: 'customer_id>customers stage expected_close_date:date pipeline_value:decimal',
    territories: 'territory_name region_manager quota:decimal',
  },
  finance: {
    accounts: 'account_code account_name account_type',
    ledger_entries: 'account_id>accounts debit:decimal credit:decimal posting_date:date',
    budgets: 'account_id>accounts fiscal_year:int budget_amount:decimal',
    forecasts: 'account_id>accounts forecast_month:date forecast_amount:decimal',
    exchange_rates: 'currency_pair rate:decimal rate_date:date',
  },
  hr: {
    employees: 'employee_name hire_date:date department job_title',
    departments: 'department_name cost_center head_count:int',
    absences: 'employee_id>employees absence_type days:int',
    performance_reviews: 'employee_id>employees review_score:decimal reviewer',
    recruitment: 'position_title candidate_count:int time_to_hire_days:int',
  },
  marketing: {
    campaigns: 'campaign_name channel launch_date:date spend:decimal',
    leads: 'campaign_id>campaigns lead_source lead_score:int',
    email_sends: 'campaign_id>campaigns sent_count:int open_rate:decimal click_rate:decimal',
    ad_impressions: 'campaign_id>campaigns impressions:int clicks:int cost_per_click:decimal',
    web_forms: 'form_name submissions:int conversion_rate:decimal',
  },
  inventory: {
    products: 'product_sku product_name category list_price:decimal',
    warehouses: 'warehouse_name city capacity:int',
    stock_levels: 'product_id>products warehouse_id>warehouses on_hand:int reorder_point:int',
    stock_movements: 'product_id>products movement_type quantity:int',
    suppliers: 'supplier_name lead_time_days:int rating:decimal',
  },
  logistics: {
    shipments: 'ship_date:date carrier destination_city weight_kg:decimal',
    carriers: 'carrier_name service_level on_time_rate:decimal',
    routes: 'origin destination distance_km:decimal',
    deliveries: 'shipment_id>shipments delivered_at:datetime delivery_status',
    returns: 'shipment_id>shipments return_reason refund_amount:decimal',
  },
  support: {
    tickets: 'opened_at:datetime priority ticket_category resolved_at:datetime',
    agents: 'agent_name team shift',
    ticket_comments: 'ticket_id>tickets agent_id>agents comment_length:int',
    satisfaction_surveys: 'ticket_id>tickets csat_score:int nps:int',
    sla_breaches: 'ticket_id>tickets breach_minutes:int sla_tier',
  },
  web: {
    sessions: 'session_start:datetime device_type browser landing_page',
    page_views: 'session_id>sessions page_url dwell_seconds:int',
    visitors: 'visitor_country first_seen:date returning:bool',
    conversions: 'session_id>sessions goal_name conversion_value:decimal',
    search_queries: 'search_term results_count:int clicked:bool',
  },
  billing: {
    invoices: 'invoice_date:date due_date:date invoice_total:decimal customer_ref',
    invoice_lines: 'invoice_id>invoices line_description line_amount:decimal',
    payments_received: 'invoice_id>invoices paid_at:datetime payment_amount:decimal payment_channel',
    credit_notes: 'invoice_id>invoices credit_amount:decimal credit_reason',
    dunning_notices: 'invoice_id>invoices dunning_level:int sent_at:datetime',
  },
  network: {
    cell_sites: 'site_code latitude:decimal longitude:decimal technology',
    outages: 'cell_site_id>cell_sites outage_start:datetime outage_minutes:int root_cause',
    traffic_volumes: 'cell_site_id>cell_sites traffic_gb:decimal peak_hour:int',
    dropped_calls: 'cell_site_id>cell_sites drop_count:int call_attempts:int',
    maintenance_windows: 'cell_site_id>cell_sites window_start:datetime engineer',
  },
  procurement: {
    vendors: 'vendor_name vendor_country payment_terms',
    purchase_orders: 'po_date:date vendor_id>vendors po_total:decimal approval_status',
    requisitions: 'requested_by requisition_amount:decimal cost_center',
    contracts: 'vendor_id>vendors contract_value:decimal renewal_date:date',
    receipts: 'purchase_order_id>purchase_orders received_quantity:int received_at:datetime',
  },
  crm: {
    accounts: 'account_name industry employee_count:int',
    contacts: 'account_id>accounts contact_name job_role',
    activities: 'contact_id>contacts activity_type activity_date:date',
    cases: 'account_id>accounts case_status case_origin',
    renewals: 'account_id>accounts renewal_date:date renewal_value:decimal',
  },
  product: {
    features: 'feature_name release_version owner_team',
    releases: 'release_version release_date:date release_notes',
    bug_reports: 'feature_id>features severity reported_at:datetime',
    feature_usage: 'feature_id>features active_users:int usage_events:int',
    roadmap_items: 'item_title target_quarter effort_points:int',
  },
  legal: {
    matters: 'matter_name matter_type opened_on:date',
    contracts_reviewed: 'matter_id>matters counterparty review_hours:decimal',
    litigation_costs: 'matter_id>matters cost_amount:decimal law_firm',
    compliance_checks: 'check_name passed:bool checked_on:date',
    policies: 'policy_name policy_version effective_date:date',
  },
  facilities: {
    buildings: 'building_name city floor_area_sqm:decimal',
    rooms: 'building_id>buildings room_name seats:int',
    room_bookings: 'room_id>rooms booked_by booking_start:datetime booking_hours:decimal',
    energy_meters: 'building_id>buildings kwh:decimal reading_date:date',
    work_orders: 'building_id>buildings work_type completed_on:date',
  },
  security: {
    incidents: 'incident_type severity detected_at:datetime',
    access_logs: 'user_name resource access_time:datetime granted:bool',
    vulnerabilities: 'cve_id cvss_score:decimal asset_name',
    phishing_tests: 'employee_ref clicked_link:bool test_date:date',
    firewall_events: 'source_ip destination_port:int firewall_action',
  },
  payroll: {
    pay_runs: 'pay_period run_date:date gross_total:decimal',
    payslips: 'pay_run_id>pay_runs employee_ref gross_pay:decimal net_pay:decimal',
    deductions: 'payslip_id>payslips deduction_type deduction_amount:decimal',
    bonuses: 'employee_ref bonus_amount:decimal bonus_reason',
    overtime: 'employee_ref overtime_hours:decimal overtime_rate:decimal',
  },
  analytics: {
    dashboards: 'dashboard_name dashboard_owner view_count:int',
    metrics_catalog: 'metric_name metric_definition unit',
    experiments: 'experiment_name variant_count:int start_date:date',
    experiment_results: 'experiment_id>experiments variant uplift_pct:decimal p_value:decimal',
    data_quality_checks: 'check_table failed_rows:int checked_at:datetime',
  },
  partner: {
    partners: 'partner_name partner_tier country',
    referrals: 'partner_id>partners referral_date:date referral_value:decimal',
    commissions: 'partner_id>partners commission_amount:decimal paid_on:date',
    certifications: 'partner_id>partners certification_name expires_on:date',
    joint_deals: 'partner_id>partners deal_value:decimal deal_stage',
  },
  retail: {
    stores: 'store_name city opened_on:date store_format',
    pos_transactions: 'store_id>stores transaction_time:datetime basket_value:decimal items_count:int',
    loyalty_members: 'member_tier joined_on:date points_balance:int',
    promotions: 'promotion_name discount_pct:decimal promo_start:date',
    footfall: 'store_id>stores visitors_count:int count_date:date',
  },
  wholesale: {
    distributors: 'distributor_name region_code credit_limit:decimal',
    bulk_orders: 'distributor_id>distributors order_volume:int order_value:decimal',
    price_lists: 'price_list_name valid_from:date currency',
    rebates: 'distributor_id>distributors rebate_amount:decimal rebate_period',
    freight_charges: 'bulk_order_id>bulk_orders freight_cost:decimal freight_mode',
  },
  manufacturing: {
    production_lines: 'line_name plant capacity_per_hour:int',
    batches: 'production_line_id>production_lines batch_size:int started_at:datetime',
    machine_downtime: 'production_line_id>production_lines downtime_minutes:int downtime_reason',
    bill_of_materials: 'component_sku parent_sku quantity_per:decimal',
    scrap: 'batch_id>batches scrap_quantity:int scrap_reason',
  },
  quality: {
    inspections: 'inspection_date:date inspector lot_number',
    defects: 'inspection_id>inspections defect_type defect_count:int',
    audits: 'audit_area audit_score:decimal audited_on:date',
    corrective_actions: 'defect_id>defects action_owner due_on:date',
    calibrations: 'instrument_code calibrated_on:date deviation:decimal',
  },
  fleet: {
    vehicles: 'plate_number vehicle_model purchase_date:date',
    drivers: 'driver_name license_class hired_on:date',
    trips: 'vehicle_id>vehicles driver_id>drivers trip_km:decimal trip_date:date',
    fuel_purchases: 'vehicle_id>vehicles litres:decimal fuel_cost:decimal',
    vehicle_maintenance: 'vehicle_id>vehicles service_type service_cost:decimal',
  },
  energy: {
    meters: 'meter_code meter_type installed_on:date',
    consumption_readings: 'meter_id>meters reading_kwh:decimal read_at:datetime',
    tariffs: 'tariff_name price_per_kwh:decimal valid_from:date',
    solar_generation: 'site_name generated_kwh:decimal generation_date:date',
    carbon_emissions: 'emission_scope tonnes_co2:decimal reporting_month:date',
  },
};

const VARIANTS = ['', '_daily', '_weekly', '_monthly', '_snapshot', '_staging', '_archive', '_audit'] as const;
const VARIANT_NOTES: Record<(typeof VARIANTS)[number], string> = {
  '': '',
  _daily: 'Daily aggregate of',
  _weekly: 'Weekly aggregate of',
  _monthly: 'Monthly aggregate of',
  _snapshot: 'Nightly snapshot of',
  _staging: 'ETL staging copy of',
  _archive: 'Archived rows (older than two years) of',
  _audit: 'Change log of',
};

/** Columns that warehouses carry everywhere: they fill each table up to its size and say nothing of its subject. */
const FILLERS: Array<[string, WarehouseType]> = [
  ['created_at', 'datetime'],
  ['updated_at', 'datetime'],
  ['status', 'text'],
  ['region', 'text'],
  ['country_code', 'text'],
  ['currency', 'text'],
  ['source_system', 'text'],
  ['etl_batch_id', 'int'],
  ['load_ts', 'datetime'],
  ['is_deleted', 'bool'],
  ['notes', 'text'],
  ['external_ref', 'text'],
  ['owner_id', 'int'],
  ['channel_code', 'text'],
  ['category_code', 'text'],
  ['amount', 'decimal'],
  ['quantity_total', 'int'],
  ['tax_amount', 'decimal'],
  ['start_date', 'date'],
  ['end_date', 'date'],
  ['score', 'decimal'],
  ['version', 'int'],
  ['checksum', 'text'],
  ['batch_date', 'date'],
  ['record_hash', 'text'],
  ['valid_from', 'date'],
  ['valid_to', 'date'],
  ['row_number', 'int'],
  ['partition_key', 'text'],
  ['ingested_by', 'text'],
  ['flag_a', 'bool'],
  ['flag_b', 'bool'],
  ['metric_1', 'decimal'],
  ['metric_2', 'decimal'],
  ['metric_3', 'decimal'],
  ['label', 'text'],
  ['comment_text', 'text'],
];

/** How many of the 1,000 tables are telco's. */
export const TELCO_TABLES = 8;

/** The 992 synthetic tables, in a stable order. */
export function warehouseTables(): WarehouseTable[] {
  const tables: WarehouseTable[] = [];
  let index = 0;
  for (const [domain, entities] of Object.entries(DOMAINS)) {
    for (const [entity, spec] of Object.entries(entities)) {
      for (const variant of VARIANTS) {
        const name = `${domain}_${entity}${variant}`;
        const own = spec.split(' ').map((word) => ownColumn(domain, word, variant === ''));
        const size = 10 + ((index * 7919) % 31);
        const fillers = FILLERS.filter((filler) => !own.some((column) => column.name === filler[0]))
          .slice(0, Math.max(0, size - own.length - 1))
          .map(([column, type]) => ({ name: column, type }));
        const base = `${domain} ${entity.replaceAll('_', ' ')}`;
        tables.push({
          name,
          comment: variant === '' ? `The ${base}, one row each` : `${VARIANT_NOTES[variant]} ${domain}_${entity}`,
          columns: [{ name: 'id', type: 'id' }, ...own, ...fillers],
        });
        index += 1;
      }
    }
  }
  return tables.slice(0, tables.length - TELCO_TABLES);
}

function ownColumn(domain: string, word: string, withKeys: boolean): WarehouseColumn {
  const [name = '', target] = word.split('>');
  if (target) {
    return { name, type: 'int', ...(withKeys ? { references: { table: `${domain}_${target}`, column: 'id' } } : {}) };
  }
  const [column = '', type = 'text'] = name.split(':');
  return { name: column, type: type as WarehouseType };
}

const KINDS: Record<WarehouseType, ColumnKind> = {
  id: 'integer',
  int: 'integer',
  decimal: 'decimal',
  text: 'text',
  date: 'date',
  datetime: 'datetime',
  bool: 'boolean',
};

/** The table as a catalogue would describe it (for the unit tests, which need no server). */
export function describedWarehouseTable(table: WarehouseTable): TableDescription {
  return {
    name: table.name,
    rows: 0,
    rowsExact: false,
    comment: table.comment,
    columns: table.columns.map((column) => ({
      name: column.name,
      type: column.type,
      kind: KINDS[column.type],
      nullable: column.type !== 'id',
      ...(column.type === 'id' ? { key: 'primary' as const } : {}),
      ...(column.references ? { references: column.references } : {}),
    })),
  };
}

const SQL_TYPES: Record<'mysql' | 'postgres' | 'sqlite', Record<WarehouseType, string>> = {
  mysql: {
    id: 'INT PRIMARY KEY',
    int: 'INT',
    decimal: 'DECIMAL(12,2)',
    text: 'VARCHAR(80)',
    date: 'DATE',
    datetime: 'DATETIME',
    bool: 'TINYINT(1)',
  },
  postgres: {
    id: 'integer PRIMARY KEY',
    int: 'integer',
    decimal: 'numeric(12,2)',
    text: 'varchar(80)',
    date: 'date',
    datetime: 'timestamp',
    bool: 'boolean',
  },
  sqlite: {
    id: 'INTEGER PRIMARY KEY',
    int: 'INTEGER',
    decimal: 'NUMERIC',
    text: 'TEXT',
    date: 'DATE',
    datetime: 'DATETIME',
    bool: 'BOOLEAN',
  },
};

/** CREATE TABLE with the table's comment (MySQL inline, PostgreSQL as COMMENT ON, SQLite as `--`). */
export function createWarehouseTable(table: WarehouseTable, dialect: 'mysql' | 'postgres' | 'sqlite'): string[] {
  const types = SQL_TYPES[dialect];
  const quote = (name: string) => (dialect === 'mysql' ? `\`${name}\`` : `"${name}"`);
  const columns = table.columns.map((column) => {
    const reference = column.references
      ? ` REFERENCES ${quote(column.references.table)}(${column.references.column})`
      : '';
    return `${quote(column.name)} ${types[column.type]}${reference}`;
  });
  const literal = `'${table.comment.replaceAll("'", "''")}'`;
  if (dialect === 'mysql') return [`CREATE TABLE ${quote(table.name)} (${columns.join(', ')}) COMMENT ${literal}`];
  if (dialect === 'postgres') {
    return [
      `CREATE TABLE ${quote(table.name)} (${columns.join(', ')})`,
      `COMMENT ON TABLE ${quote(table.name)} IS ${literal}`,
    ];
  }
  return [`CREATE TABLE ${quote(table.name)} ( -- ${table.comment}\n  ${columns.join(',\n  ')}\n)`];
}

/**
 * The alerting in deploy/prometheus/, checked by promtool, Prometheus's own checker: the scrape config
 * and the rules are valid, and the rules' unit tests pass. Beside that, what promtool cannot know:
 * every alert has a unit test where it fires and one where it stays quiet, and every metric (and
 * label value) a rule reads is one tally serves at /metrics, read from the exposition as Prometheus
 * reads it.
 */
import { execFile } from 'node:child_process';
import { access, constants, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PrometheusMetrics } from '../../src/ops/prometheus-metrics.js';
import { checkReadiness, engineCheck } from '../../src/ops/readiness.js';
import { type ParsedFamily, parseExposition, samples } from '../support/prometheus-text.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = 'deploy/prometheus/prometheus.yml';
const RULES = 'deploy/prometheus/alerts.yml';
const RULE_TESTS = 'deploy/prometheus/alerts.test.yml';

interface RuleFile {
  groups: Array<{ name: string; rules: Array<{ alert?: string; record?: string; expr: string }> }>;
}

interface RuleTestFile {
  tests: Array<{ name?: string; alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] | null }> }>;
}

/** promtool from TALLY_TEST_PROMTOOL or PATH; a missing one fails the test with what to do. */
async function promtoolPath(): Promise<string> {
  const configured = process.env.TALLY_TEST_PROMTOOL;
  if (configured) {
    await access(configured, constants.X_OK).catch(() => {
      throw new Error(`TALLY_TEST_PROMTOOL=${configured} is not an executable; fix the path or unset the variable.`);
    });
    return configured;
  }
  try {
    return (await run('which', ['promtool'])).stdout.trim();
  } catch {
    throw new Error(
      "promtool is not installed, and this test checks deploy/prometheus/ with it. Run 'bash scripts/ensure-promtool.sh' " +
        "(it installs Debian's prometheus package as root), or put promtool on PATH, or set TALLY_TEST_PROMTOOL to one.",
    );
  }
}

/** Runs promtool from the repository's root; its exit code and everything it printed. */
async function promtool(...args: string[]): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run(await promtoolPath(), args, { cwd: root });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    if (typeof failed.code !== 'number') throw error; // could not run at all (e.g. not executable)
    return { code: failed.code, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` };
  }
}

async function readYaml<T>(path: string): Promise<T> {
  return parse(await readFile(`${root}/${path}`, 'utf8')) as T;
}

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names a PromQL expression selects: identifiers that are neither functions, aggregations
 * (followed by a parenthesis) nor keywords, once strings, label matchers, ranges, grouping clauses
 * and numbers (with their duration units) are out of the way.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/gi, '')
    .replace(/(?<![\w:])\d+(?:\.\d+)?(?:e[+-]?\d+)?(?:ms|s|m|h|d|w|y)?(?![\w:])/gi, '');
  const names = [...bare.matchAll(/([A-Za-z_:][\w:]*)(\s*\()?/g)]
    .filter((match) => match[2] === undefined && !PROMQL_KEYWORDS.has((match[1] ?? '').toLowerCase()))
    .map((match) => match[1] ?? '');
  return [...new Set(names)];
}

/**
 * The label matchers of each selector in an expression that name one or more exact values
 * (`end="failed"`, `end=~"done|failed"`), as the metric, the label and the values.
 */
function exactMatchers(expr: string): Array<{ name: string; label: string; values: string[] }> {
  return [...expr.matchAll(/([A-Za-z_:][\w:]*)\s*\{([^}]*)\}/g)].flatMap(([, name = '', matchers = '']) =>
    [...matchers.matchAll(/(\w+)\s*(=~|=)\s*"([^"]*)"/g)].flatMap(([, label = '', operator, value = '']) => {
      if (operator === '=') return [{ name, label, values: [value] }];
      return /^[\w ]+(\|[\w ]+)*$/.test(value) ? [{ name, label, values: value.split('|') }] : [];
    }),
  );
}

/**
 * What tally's /metrics serves with every source of figures connected, read as Prometheus reads it:
 * a histogram `x` as samples of `x_bucket`, `x_count` and `x_sum`.
 */
async function exposition(): Promise<ParsedFamily[]> {
  // Everything the composition root connects (create-tally.ts), each with a figure to show.
  const sources = {
    sandboxStats: () => ({ live: 1, pooled: 1, starting: 0, waiting: 0, parked: 0 }),
    readiness: () => checkReadiness([engineCheck(async () => {})]),
    sandboxDiskQuotaMb: () => 2048,
  };
  return parseExposition((await new PrometheusMetrics(sources).render()).body);
}

/** Labels Prometheus adds to every series it scrapes, and `up`, which it records for every target. */
const TARGET_LABELS = new Set(['job', 'instance']);
const TARGET_METRICS = new Set(['up']);

describe('alerting (deploy/prometheus/)', () => {
  it('has a scrape config promtool accepts, with the rules it names', async () => {
    const result = await promtool('check', 'config', CONFIG);
    expect(result.output).toContain('SUCCESS: 1 rule files found');
    expect(result.code, result.output).toBe(0);
  });

  it('has alert rules promtool accepts', async () => {
    const result = await promtool('check', 'rules', RULES);
    expect(result.code, result.output).toBe(0);
  });

  it("passes the rules' unit tests", async () => {
    const result = await promtool('test', 'rules', RULE_TESTS);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain('SUCCESS');
  });

  it('has a unit test where each alert fires, and one where it stays quiet', async () => {
    const rules = await readYaml<RuleFile>(RULES);
    const { tests } = await readYaml<RuleTestFile>(RULE_TESTS);
    const alerts = rules.groups.flatMap((group) => group.rules.flatMap((rule) => (rule.alert ? [rule.alert] : [])));
    expect(alerts.length).toBeGreaterThan(0);

    const cases = tests.flatMap((test) =>
      (test.alert_rule_test ?? []).map((check) => ({ test: test.name ?? '', ...check })),
    );
    // A test of an alert that does not exist expects nothing and passes, whatever the rules say.
    expect(cases.map((check) => check.alertname).filter((name) => !alerts.includes(name))).toEqual([]);

    const fires = (check: (typeof cases)[number]) => (check.exp_alerts?.length ?? 0) > 0;
    const untested = alerts.filter((alert) => !cases.some((check) => check.alertname === alert && fires(check)));
    expect(untested, 'alerts without a unit test where they fire').toEqual([]);
    // Quiet: a whole test in which the alert is checked and never expected.
    const quietTests = (alert: string) =>
      tests.filter((test) => {
        const checks = (test.alert_rule_test ?? []).filter((check) => check.alertname === alert);
        return checks.length > 0 && checks.every((check) => (check.exp_alerts?.length ?? 0) === 0);
      });
    const neverQuiet = alerts.filter((alert) => quietTests(alert).length === 0);
    expect(neverQuiet, 'alerts without a unit test where they stay quiet').toEqual([]);
  });

  it('reads only metrics, labels and label values tally exports', async () => {
    const rules = (await readYaml<RuleFile>(RULES)).groups.flatMap((group) => group.rules);
    const families = await exposition();
    const exported = new Set([...TARGET_METRICS, ...families.map((family) => family.name)]);

    const read = rules.map((rule) => ({ rule: rule.alert ?? rule.record ?? '', names: metricNames(rule.expr) }));
    // Guards the reading of the expressions as much as the rules: every rule reads something.
    expect(read.filter((rule) => rule.names.length === 0).map((rule) => rule.rule)).toEqual([]);
    const unknown = read.flatMap((rule) =>
      rule.names.filter((name) => !exported.has(name)).map((name) => `${rule.rule}: ${name}`),
    );
    const own = [...exported].filter((name) => name.startsWith('tally_')).sort();
    expect(unknown, `metrics tally does not export (its own are ${own.join(', ')})`).toEqual([]);

    const missingValues = rules.flatMap((rule) =>
      exactMatchers(rule.expr)
        .filter(({ name, label }) => exported.has(name) && !TARGET_METRICS.has(name) && !TARGET_LABELS.has(label))
        .flatMap(({ name, label, values }) => {
          const served = new Set(samples(families, name).map((sample) => sample.labels?.[label]));
          return values
            .filter((value) => !served.has(value))
            .map((value) => `${rule.alert}: ${name}{${label}="${value}"}`);
        }),
    );
    expect(missingValues, 'label values tally does not serve').toEqual([]);
  });
});

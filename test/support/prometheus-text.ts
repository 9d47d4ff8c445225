/**
 * Reading /metrics the way Prometheus does, with an independent parser of the text format
 * (parse-prometheus-text-format), never by matching our own strings.
 */
import { createRequire } from 'node:module';

export interface ParsedSample {
  value?: string;
  labels?: Record<string, string>;
}

export interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  metrics: ParsedSample[];
}

// The parser ships no types; createRequire keeps the one untyped import in one typed place.
const parsePrometheusText = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => ParsedFamily[];

/** The families as the parser reads them, types kept; throws on any line that is not valid text format. */
export function parseStrict(body: string): ParsedFamily[] {
  return parsePrometheusText(body);
}

/**
 * Every sample with its labels, histograms included; throws on any line that is not valid text
 * format. The parser folds a labelled histogram into a single unlabelled entry (losing `_sum`,
 * `_count` and the labels), so after the strict parse the histograms are read again declared
 * untyped: each `_bucket`, `_sum` and `_count` line then stays a sample of its own.
 */
export function parseExposition(body: string): ParsedFamily[] {
  parsePrometheusText(body);
  return parsePrometheusText(body.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
}

/** The samples named `name`; untyped, a histogram's lines come back as several families of that name. */
export function samples(families: ParsedFamily[], name: string): ParsedSample[] {
  const found = families.filter((candidate) => candidate.name === name);
  if (found.length === 0) throw new Error(`no metric ${name} in ${families.map((f) => f.name).join(', ')}`);
  return found.flatMap((candidate) => candidate.metrics);
}

/** The value of the one sample `name` whose labels include `labels`. */
export function sampleValue(families: ParsedFamily[], name: string, labels: Record<string, string> = {}): number {
  const matches = samples(families, name).filter((candidate) =>
    Object.entries(labels).every(([key, value]) => candidate.labels?.[key] === value),
  );
  if (matches.length !== 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return Number(matches[0]?.value);
}

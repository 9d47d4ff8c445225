/**
 * `tally audit`: what the audit trail holds, filtered as an auditor asks (`--since`, `--user`, `--db`,
 * `--thread`), as lines to read or JSON Lines to export (`--json`); `tally audit verify` checks the
 * hash chain and names the first record that does not link. Reads the store only.
 */

import { loadConfig } from '../base/config.js';
import { createLogger } from '../base/logger.js';
import type { AuditRecord } from '../ports/audit.js';
import type { AuditLog } from '../store/audit-log.js';
import { storeOf } from '../store/create-store.js';
import { commandUsage } from './cli-usage.js';

export interface AuditFilter {
  sinceMs?: number;
  user?: string;
  database?: string;
  thread?: string;
}

type AuditFlags = { verify: true } | { verify: false; filter: AuditFilter; json: boolean };

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** The flags of `tally audit`, or what is wrong with them. */
export function parseAuditFlags(words: readonly string[], now = Date.now()): AuditFlags | { problem: string } {
  if (words[0] === 'verify') {
    return words.length === 1 ? { verify: true } : { problem: `audit verify takes no flags (got ${words[1]})` };
  }
  const filter: AuditFilter = {};
  let json = false;
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    const [flag, inline] = word.includes('=') ? word.split(/=(.*)/s, 2) : [word, undefined];
    if (flag === '--json') {
      json = true;
      continue;
    }
    const value = inline ?? words[++index];
    if (value === undefined || value === '') return { problem: `${flag} needs a value` };
    if (flag === '--since') {
      const since = parseSince(value, now);
      if (since === undefined)
        return { problem: `--since takes a date (2026-11-01, ISO 8601) or an age (30m, 12h, 7d), not '${value}'` };
      filter.sinceMs = since;
    } else if (flag === '--user') filter.user = value;
    else if (flag === '--db') filter.database = value;
    else if (flag === '--thread') filter.thread = value;
    else return { problem: `unknown flag ${flag}` };
  }
  return { verify: false, filter, json };
}

function parseSince(value: string, now: number): number | undefined {
  const age = /^(\d+(?:\.\d+)?)([mhd])$/.exec(value);
  if (age) return now - Number(age[1]) * (UNITS[age[2] ?? 'd'] ?? 0);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : date;
}

/** Every record that passes `filter`, in order, read in batches. */
export async function* auditRecords(log: AuditLog, filter: AuditFilter): AsyncGenerator<AuditRecord> {
  let afterId: string | undefined;
  for (;;) {
    const batch = await log.read({ ...(afterId ? { afterId } : {}), limit: 1000 });
    for (const stored of batch) {
      if (filter.sinceMs !== undefined && stored.atMs < filter.sinceMs) continue;
      const record = { id: stored.id, ...(JSON.parse(stored.text) as Omit<AuditRecord, 'id'>) };
      if (filter.user !== undefined && record.actor?.user !== filter.user && record.deletion?.target !== filter.user)
        continue;
      if (filter.database !== undefined && record.database !== filter.database) continue;
      if (
        filter.thread !== undefined &&
        record.actor?.thread !== filter.thread &&
        record.deletion?.target !== filter.thread
      )
        continue;
      yield record;
    }
    const last = batch.at(-1);
    if (!last || batch.length < 1000) return;
    afterId = last.id;
  }
}

/** One record as a line: time, who, what, decision, and the detail that matters for its kind. */
export function describeRecord(record: AuditRecord): string {
  const who = record.actor ? `${record.actor.platform}:${record.actor.user}` : '-';
  const decision = record.decision === 'refused' ? `REFUSED (${record.reason ?? 'unspecified'})` : 'allowed';
  const detail = (() => {
    switch (record.kind) {
      case 'query':
      case 'extract':
        return `${record.replay ? '(replayed to rebuild a kernel) ' : ''}${record.database ?? '?'} ${record.rows ?? 0} rows ${record.bytes ?? 0} B tables=${(record.tables ?? []).join(',')}${record.masked?.length ? ` masked=${record.masked.join(',')}` : ''}: ${oneLine(record.sql ?? '')}`;
      case 'list':
      case 'describe':
        return `${record.database ?? '?'} tables=${(record.tables ?? []).join(',')}${record.columns ? ` columns=${record.columns.join(',')}` : ''}${record.rule ? `: ${oneLine(record.rule)}` : ''}`;
      case 'model': {
        const model = record.model;
        if (!model) return '';
        const tools = model.toolResults.map((result) => `${result.tool}:${result.bytes}B`).join(',');
        return `${model.model} at ${model.endpoint} ${model.promptTokens}+${model.completionTokens} tokens, ${model.messages} messages${tools ? `, tool results ${tools}` : ''}${model.failed ? ' (failed)' : ''}`;
      }
      case 'deletion': {
        const deletion = record.deletion;
        if (!deletion) return '';
        const counts = Object.entries(deletion.counts)
          .map(([name, count]) => `${name}=${count}`)
          .join(' ');
        return `${deletion.scope} ${deletion.target} asked by ${deletion.requestedBy}: ${counts}`;
      }
      case 'publish':
      case 'offer': {
        const derived = record.derived;
        if (!derived) return record.file ?? '';
        const tables = record.tables ?? [];
        const origin = !derived.thread
          ? 'not derived from a thread'
          : !derived.grantsKnown
            ? `from ${derived.thread}, grants not known`
            : `from ${derived.thread}, grants ${tables.join(',') || 'none'}`;
        return `${derived.kind} '${oneLine(derived.name)}' (${record.file ?? '?'}) ${origin}`;
      }
      default:
        return [
          record.file,
          record.bytes === undefined ? '' : `${record.bytes} B`,
          record.rule ? oneLine(record.rule) : '',
        ]
          .filter(Boolean)
          .join(' ');
    }
  })();
  return `${record.at}  #${record.id}  ${who}  ${record.kind}  ${decision}  ${detail}`;
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 200);

export async function auditCommand(words: string[], print: (line: string) => void): Promise<number> {
  const flags = parseAuditFlags(words);
  if ('problem' in flags) {
    process.stderr.write(`tally audit: ${flags.problem}\n${commandUsage('audit')}\n`);
    return 2;
  }
  const config = loadConfig(process.env);
  const logger = createLogger({ level: config.logLevel });
  const store = await storeOf(config, logger);
  try {
    const log = store.auditLog();
    if (flags.verify) {
      const check = await log.verify();
      if (check.ok) {
        print(`audit trail intact: ${check.records} records, every one linked to the one before`);
        return 0;
      }
      print(
        `audit trail BROKEN at record ${check.brokenAt}: ${check.problem} (${check.records} records checked before it)`,
      );
      return 1;
    }
    let count = 0;
    for await (const record of auditRecords(log, flags.filter)) {
      print(flags.json ? JSON.stringify(record) : describeRecord(record));
      count += 1;
    }
    if (!flags.json) process.stderr.write(`${count} records\n`);
    return 0;
  } finally {
    await store.close();
  }
}

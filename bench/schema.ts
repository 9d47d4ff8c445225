/**
 * `npm run bench:schema`: the schema a turn's prompts carry (`schemaContext`), on telco_db alone (8 tables, the
 * anchor) and on telco_db among 992 warehouse tables (1,000), in MariaDB, PostgreSQL and SQLite, in one run:
 * the time to build it warm (a fingerprint check due on every call, which runs beside the turn, and within the check
 * interval) and cold (a new connector's first turn, waiting for the catalogue read that tally starts when it opens
 * the database), the fingerprint check itself, the prompt size, and the recall of the tables the golden questions
 * and the bench's own questions need. Ratios are 1,000 tables over 8. Writes bench/results/schema.json.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { relevantKnowledge } from '../src/agent/knowledge-prompt.js';
import { OVERVIEW_CHARS, RELEVANT_CHARS, schemaContext } from '../src/agent/schema/schema-context.js';
import { loadGoldenCases } from '../src/eval/golden/golden-suite.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR } from '../src/knowledge/file-knowledge.js';
import type { KnowledgePiece } from '../src/ports/knowledge.js';
import { type BenchSchema, buildSchema, type SchemaEngine } from './schema-build.js';
import { BENCH_QUESTIONS, GOLDEN_TABLES, type SchemaQuestion } from './schema-questions.js';
import { measureRecall, type RecallResult } from './schema-recall.js';
import { type Summary, summarize, timed } from './stats.js';

const ENGINES: SchemaEngine[] = ['mysql', 'postgres', 'sqlite'];
/** What a turn's schema text may reach: the overview's and the descriptions' budgets, and their headings. */
const PROMPT_BOUND = OVERVIEW_CHARS + RELEVANT_CHARS + 500;
const COLD_RUNS = 3;
/** Fingerprint checks timed. */
const CHECK_RUNS = 40;
/** Times the golden questions are asked for the warm timings. */
const GOLDEN_ROUNDS = 40;

interface SizeResult {
  tables: number;
  buildMs: number;
  coldMs: Summary;
  /**
   * The golden questions (asked of the telco tables, which both schemas hold: the same turns on both), a fingerprint
   * check due on every call: started by the call, run beside it.
   */
  warmCheckedMs: Summary;
  /** The fingerprint check itself, waited for (what a tool's catalogue call waits when one is due). */
  checkMs: Summary;
  /** The golden questions within the check interval (2 s by default): no query at all. */
  warmKeptMs: Summary;
  /** Every question, golden and bench, kept: on 8 tables the bench's find nothing to describe. */
  warmAllKeptMs: Summary;
  /** Overview plus relevant, for the golden questions (asked of telco tables, which both schemas hold). */
  promptChars: { overviewChars: number; p50: number; max: number };
}

interface Target {
  name: string;
  value: number;
  comparison: '<' | '<=' | '>=';
  limit: number;
  pass: boolean;
}

const knowledge = await FileKnowledge.load([TELCO_KNOWLEDGE_DIR], { telco_db: ['bench'] });
const golden: SchemaQuestion[] = loadGoldenCases().flatMap((testCase) => {
  const tables = GOLDEN_TABLES[testCase.id];
  const message = (testCase as unknown as { message?: string }).message;
  return tables && message ? [{ question: message, tables }] : [];
});
const questions = [...golden, ...BENCH_QUESTIONS];

interface Turn {
  question: string;
  known: KnowledgePiece[];
}

async function measure(schema: BenchSchema): Promise<{ size: SizeResult; recall: Record<string, RecallResult> }> {
  const turns: Turn[] = [];
  const probe = await schema.open();
  try {
    for (const { question } of questions)
      turns.push({ question, known: await relevantKnowledge(knowledge, question, [probe]) });
  } finally {
    await probe.close();
  }
  const turn = (index: number) => turns[index % turns.length] as Turn;
  const cold: number[] = [];
  for (let run = 0; run < COLD_RUNS; run += 1) {
    const database = await schema.open(0);
    cold.push(await timed(() => schemaContext([database], turn(run).question, turn(run).known)));
    await database.close();
  }
  const warm = async (checkEveryMs: number | undefined, asked: readonly Turn[], rounds: number) => {
    const database = await schema.open(checkEveryMs);
    try {
      for (const { question, known } of asked) await schemaContext([database], question, known);
      const samples: number[] = [];
      for (let round = 0; round < rounds; round += 1) {
        for (const { question, known } of asked) {
          // The check the last call started is over, as it would be by the next message: this call starts one.
          if (checkEveryMs === 0) await database.catalogue();
          samples.push(await timed(() => schemaContext([database], question, known)));
        }
      }
      return summarize(samples);
    } finally {
      await database.close();
    }
  };
  const goldenTurns = turns.slice(0, golden.length);
  const warmCheckedMs = await warm(0, goldenTurns, GOLDEN_ROUNDS);
  const warmKeptMs = await warm(undefined, goldenTurns, GOLDEN_ROUNDS);
  const warmAllKeptMs = await warm(undefined, turns, 2);
  const checked = await schema.open(0);
  const checks: number[] = [];
  try {
    await checked.catalogue();
    for (let run = 0; run < CHECK_RUNS; run += 1) checks.push(await timed(() => checked.catalogue()));
  } finally {
    await checked.close();
  }
  const database = await schema.open();
  try {
    const { overview } = await schemaContext([database], '', []);
    const recall = {
      golden: await measureRecall(database, knowledge, golden),
      bench: await measureRecall(database, knowledge, BENCH_QUESTIONS),
    };
    const promptChars = { overviewChars: overview.length, ...recall.golden.promptChars };
    return {
      size: {
        tables: schema.tables,
        buildMs: Math.round(schema.buildMs),
        coldMs: summarize(cold),
        warmCheckedMs,
        warmKeptMs,
        warmAllKeptMs,
        checkMs: summarize(checks),
        promptChars,
      },
      recall,
    };
  } finally {
    await database.close();
  }
}

function target(name: string, value: number, comparison: Target['comparison'], limit: number): Target {
  const pass = comparison === '<' ? value < limit : comparison === '<=' ? value <= limit : value >= limit;
  return { name, value: Math.round(value * 1000) / 1000, comparison, limit, pass };
}

const results: Record<string, unknown> = {};
const targets: Target[] = [];
for (const engine of ENGINES) {
  const measured: Record<'small' | 'large', Awaited<ReturnType<typeof measure>>> = {} as never;
  for (const [label, withWarehouse] of [
    ['small', false],
    ['large', true],
  ] as const) {
    process.stdout.write(`${engine}: building ${withWarehouse ? '1,000' : '8'} tables… `);
    const schema = await buildSchema(engine, withWarehouse);
    process.stdout.write(`${Math.round(schema.buildMs)} ms; measuring\n`);
    try {
      measured[label] = await measure(schema);
    } finally {
      await schema.drop();
    }
  }
  const { small, large } = measured;
  const ratios = {
    coldLargeOverSmall: large.size.coldMs.p50Ms / small.size.coldMs.p50Ms,
    warmCheckedLargeOverSmall: large.size.warmCheckedMs.p50Ms / small.size.warmCheckedMs.p50Ms,
    warmKeptLargeOverSmall: large.size.warmKeptMs.p50Ms / small.size.warmKeptMs.p50Ms,
    warmAllKeptLargeOverSmall: large.size.warmAllKeptMs.p50Ms / small.size.warmAllKeptMs.p50Ms,
    promptLargeOverSmall: large.size.promptChars.p50 / small.size.promptChars.p50,
  };
  results[engine] = { small: small.size, large: large.size, ratios, recall: large.recall };
  // The cold turn is reported, not held to a target: tally starts the catalogue read when it opens a database, so
  // only a turn that comes before that read is done waits for it.
  targets.push(
    target(
      `${engine}: warm golden turn (a check due), 1,000 / 8 tables (x)`,
      ratios.warmCheckedLargeOverSmall,
      '<=',
      2,
    ),
    target(`${engine}: warm golden turn (kept), 1,000 / 8 tables (x)`, ratios.warmKeptLargeOverSmall, '<=', 2),
    target(
      `${engine}: warm golden turn (a check due), 1,000 tables, p50 (ms)`,
      large.size.warmCheckedMs.p50Ms,
      '<',
      50,
    ),
    // The words: bounded, and the same order as the 8-table prompt.
    target(`${engine}: golden prompt size p50, 1,000 / 8 tables (x)`, ratios.promptLargeOverSmall, '<', 10),
    target(
      `${engine}: bench questions' prompt max, 1,000 tables (chars)`,
      large.recall.bench?.promptChars.max ?? Number.POSITIVE_INFINITY,
      '<=',
      PROMPT_BOUND,
    ),
    target(`${engine}: golden recall, 1,000 tables`, large.recall.golden?.recall ?? 0, '>=', 1),
    target(`${engine}: bench questions recall, 1,000 tables`, large.recall.bench?.recall ?? 0, '>=', 0.95),
  );
  const line = (label: string, size: SizeResult) =>
    `  ${label}: warm p50 ${size.warmCheckedMs.p50Ms.toFixed(2)} ms (a check due) / ${size.warmKeptMs.p50Ms.toFixed(2)} ms ` +
    `(kept), every question ${size.warmAllKeptMs.p50Ms.toFixed(2)} ms (kept), cold p50 ${size.coldMs.p50Ms.toFixed(1)} ms, check p50 ${size.checkMs.p50Ms.toFixed(1)} ms, ` +
    `golden prompt p50 ${size.promptChars.p50} chars, max ${size.promptChars.max}`;
  console.log(line('8 tables    ', small.size));
  console.log(line('1,000 tables', large.size));
  console.log(
    `  ratios 1,000 / 8: warm ${ratios.warmCheckedLargeOverSmall.toFixed(2)}x (a check due) / ` +
      `${ratios.warmKeptLargeOverSmall.toFixed(2)}x (kept), every question ${ratios.warmAllKeptLargeOverSmall.toFixed(2)}x ` +
      `(kept), golden prompt ${ratios.promptLargeOverSmall.toFixed(2)}x, ` +
      `cold ${ratios.coldLargeOverSmall.toFixed(2)}x`,
  );
  for (const [set, recall] of Object.entries(large.recall)) {
    console.log(
      `  recall (${set}): ${recall.tablesFound}/${recall.tablesNeeded} tables (${(recall.recall * 100).toFixed(1)}%), ` +
        `${recall.questionsCovered}/${recall.questions} questions complete`,
    );
    for (const miss of recall.misses)
      console.log(`    missed ${miss.missing.join(', ')}: ${miss.question.slice(0, 90)}`);
  }
}

console.log('\ntargets:');
for (const entry of targets) {
  console.log(
    `  ${entry.pass ? 'PASS' : 'MISS'}  ${entry.name}: ${entry.value} (target ${entry.comparison} ${entry.limit})`,
  );
}
const output = {
  timestamp: new Date().toISOString(),
  machine: {
    node: process.version,
    platform: `${process.platform} ${release()} ${process.arch}`,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    totalMemoryMib: Math.round(totalmem() / 1024 / 1024),
  },
  questions: { golden: golden.length, bench: BENCH_QUESTIONS.length },
  results,
  targets,
  loadAverage: loadavg(),
};
writeFileSync(join(import.meta.dirname, 'results', 'schema.json'), `${JSON.stringify(output, null, 2)}\n`);
console.log('\nwritten to bench/results/schema.json');

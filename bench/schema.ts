/**
 * `npm run bench:schema`: the schema a turn's prompts carry (`schemaContext`), on telco_db alone (8 tables, the
 * anchor) and on telco_db among 992 warehouse tables (1,000), in MariaDB, PostgreSQL and SQLite, in one run:
 * the time to build it cold (a new connector's first turn: the catalogue read) and warm (the fingerprint checked on
 * every call, and within the check interval), the prompt size, and the recall of the tables the golden questions
 * and the bench's own questions need. Ratios are 1,000 tables over 8. Writes bench/results/schema.json.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { relevantKnowledge } from '../src/agent/knowledge-prompt.js';
import { schemaContext } from '../src/agent/schema/schema-context.js';
import { loadGoldenCases } from '../src/eval/golden/golden-suite.js';
import { FileKnowledge, TELCO_KNOWLEDGE_DIR } from '../src/knowledge/file-knowledge.js';
import type { KnowledgePiece } from '../src/ports/knowledge.js';
import { type BenchSchema, buildSchema, type SchemaEngine } from './schema-build.js';
import { BENCH_QUESTIONS, GOLDEN_TABLES, type SchemaQuestion } from './schema-questions.js';
import { measureRecall, type RecallResult } from './schema-recall.js';
import { type Summary, summarize, timed } from './stats.js';

const ENGINES: SchemaEngine[] = ['mysql', 'postgres', 'sqlite'];
const COLD_RUNS = 3;
const WARM_RUNS = 40;

interface SizeResult {
  tables: number;
  buildMs: number;
  coldMs: Summary;
  /** The fingerprint query on every call. */
  warmCheckedMs: Summary;
  /** Within the check interval (2 s by default): no query at all. */
  warmKeptMs: Summary;
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

async function measure(schema: BenchSchema): Promise<{ size: SizeResult; recall: Record<string, RecallResult> }> {
  const turns: Array<{ question: string; known: KnowledgePiece[] }> = [];
  const probe = await schema.open();
  try {
    for (const { question } of questions)
      turns.push({ question, known: await relevantKnowledge(knowledge, question, [probe]) });
  } finally {
    await probe.close();
  }
  const turn = (index: number) => turns[index % turns.length] as { question: string; known: KnowledgePiece[] };
  const cold: number[] = [];
  for (let run = 0; run < COLD_RUNS; run += 1) {
    const database = await schema.open(0);
    cold.push(await timed(() => schemaContext([database], turn(run).question, turn(run).known)));
    await database.close();
  }
  const warm = async (checkEveryMs: number | undefined) => {
    const database = await schema.open(checkEveryMs);
    try {
      for (let run = 0; run < 5; run += 1) await schemaContext([database], turn(run).question, turn(run).known);
      const samples: number[] = [];
      for (let run = 0; run < WARM_RUNS; run += 1) {
        samples.push(await timed(() => schemaContext([database], turn(run).question, turn(run).known)));
      }
      return summarize(samples);
    } finally {
      await database.close();
    }
  };
  const warmCheckedMs = await warm(0);
  const warmKeptMs = await warm(undefined);
  const database = await schema.open();
  try {
    const sizes: number[] = [];
    let overviewChars = 0;
    for (const { question, known } of turns) {
      const { overview, relevant } = await schemaContext([database], question, known);
      overviewChars = overview.length;
      sizes.push(overview.length + relevant.length);
    }
    sizes.sort((a, b) => a - b);
    const recall = {
      golden: await measureRecall(database, knowledge, golden),
      bench: await measureRecall(database, knowledge, BENCH_QUESTIONS),
    };
    const promptChars = { overviewChars, p50: sizes[Math.floor(sizes.length / 2)] ?? 0, max: sizes.at(-1) ?? 0 };
    return {
      size: {
        tables: schema.tables,
        buildMs: Math.round(schema.buildMs),
        coldMs: summarize(cold),
        warmCheckedMs,
        warmKeptMs,
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
    promptLargeOverSmall: large.size.promptChars.p50 / small.size.promptChars.p50,
  };
  results[engine] = { small: small.size, large: large.size, ratios, recall: large.recall };
  targets.push(
    target(`${engine}: cold, 1,000 / 8 tables (x)`, ratios.coldLargeOverSmall, '<=', 2),
    target(`${engine}: warm (fingerprint checked), 1,000 / 8 tables (x)`, ratios.warmCheckedLargeOverSmall, '<=', 2),
    target(`${engine}: warm (fingerprint checked), 1,000 tables, p50 (ms)`, large.size.warmCheckedMs.p50Ms, '<', 50),
    target(`${engine}: prompt size p50, 1,000 / 8 tables (x)`, ratios.promptLargeOverSmall, '<=', 2),
    target(`${engine}: golden recall, 1,000 tables`, large.recall.golden?.recall ?? 0, '>=', 1),
    target(`${engine}: bench questions recall, 1,000 tables`, large.recall.bench?.recall ?? 0, '>=', 0.95),
  );
  const line = (label: string, size: SizeResult) =>
    `  ${label}: cold p50 ${size.coldMs.p50Ms.toFixed(1)} ms, warm p50 ${size.warmCheckedMs.p50Ms.toFixed(1)} ms ` +
    `(checked) / ${size.warmKeptMs.p50Ms.toFixed(2)} ms (kept), prompt p50 ${size.promptChars.p50} chars, max ${size.promptChars.max}`;
  console.log(line('8 tables    ', small.size));
  console.log(line('1,000 tables', large.size));
  console.log(
    `  ratios 1,000 / 8: cold ${ratios.coldLargeOverSmall.toFixed(2)}x, warm ${ratios.warmCheckedLargeOverSmall.toFixed(2)}x ` +
      `(checked) / ${ratios.warmKeptLargeOverSmall.toFixed(2)}x (kept), prompt ${ratios.promptLargeOverSmall.toFixed(2)}x`,
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

/**
 * Extraction of MariaDB's 1M x 10 table into a kernel under one runtime: our whole path (the query, the columnar
 * parts, the kernel's decoding into a DataFrame), so runtimes compare on what an analyst waits for.
 */
import { MysqlDatabase } from '../src/db/mysql/mysql-database.js';
import type { BenchSettings } from './bench-settings.js';
import { EXTRACT_LIMITS, kernelChores, startExtractSandbox } from './extract-sandbox.js';
import { TABLES } from './extract-tables.js';

const RUNS = 3;

/** Milliseconds per extraction, after one warm-up; `url` is `tally_bench` on MariaDB (ensureTables). */
export async function measureKernelExtraction(settings: BenchSettings, url: string): Promise<number[]> {
  const database = await MysqlDatabase.connect({
    name: 'tally_bench',
    url,
    limits: EXTRACT_LIMITS,
    logger: settings.logger,
  });
  const sandbox = await startExtractSandbox(settings);
  try {
    const kernel = await sandbox.acquire('bench');
    const { settle, forget } = kernelChores(kernel);
    const sql = `SELECT * FROM ${TABLES.rows.name}`;
    await database.extract(sql, kernel, 'frame');
    await settle();
    const samples: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      await database.extract(sql, kernel, 'frame');
      samples.push(performance.now() - started);
      await settle();
    }
    const check = await kernel.run('len(frame)');
    if (check.result?.text !== String(TABLES.rows.rows)) throw new Error(`extracted ${check.result?.text} rows`);
    await forget('frame');
    return samples;
  } finally {
    await sandbox.close();
    await database.close();
  }
}

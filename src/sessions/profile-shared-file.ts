/**
 * Profiles a shared file in the session's kernel, as pandas reads it: rows, columns (dtype, NULLs,
 * samples), the sheets of a workbook. A large file is profiled from its first rows and its rows
 * counted from its lines; a file that is not UTF-8 is read with the bad bytes replaced, and says so;
 * a file pandas cannot read gets a note rather than failing the turn. Nothing is left in the
 * kernel's namespace and nothing is journaled.
 */
import type { SharedFileProfile } from '../agent/shared-file-profile.js';
import type { Kernel } from '../ports/sandbox.js';

/** Files above this size are profiled from their first SAMPLE_ROWS rows. */
export const SAMPLE_ABOVE_BYTES = 50 * 1024 * 1024;
const SAMPLE_ROWS = 100_000;
const MAX_COLUMNS = 60;
const PROFILE_TIMEOUT_MS = 120_000;

const PROFILE_CODE = `
def _tally_profile(path, kind, sample_above, sample_rows, max_columns):
    import json, os
    import pandas as pd
    notes = []
    size = os.path.getsize(path)
    sampled = size > sample_above

    def table(frame, sheet=None, rows=None, exact=True):
        columns = []
        for name in list(frame.columns)[:max_columns]:
            series = frame[name]
            if isinstance(series, pd.DataFrame):
                series = series.iloc[:, 0]
            values = series.dropna()
            samples = [str(value)[:30] for value in values.unique()[:3]] if len(values) else []
            columns.append({"name": str(name), "dtype": str(series.dtype), "nulls": int(series.isna().sum()), "samples": samples})
        entry = {"rows": len(frame) if rows is None else rows, "rowsExact": exact, "columns": columns,
                 "moreColumns": max(0, len(frame.columns) - max_columns)}
        if sheet is not None:
            entry["sheet"] = str(sheet)
        return entry

    def text(reader, **options):
        try:
            return reader(path, encoding="utf-8", **options)
        except UnicodeDecodeError:
            notes.append("not valid UTF-8: profiled with the undecodable bytes replaced; read it with the right encoding, e.g. encoding='latin-1'")
            return reader(path, encoding="utf-8", encoding_errors="replace", **options)

    def line_count():
        with open(path, "rb") as handle:
            return sum(chunk.count(b"\\n") for chunk in iter(lambda: handle.read(1 << 24), b""))

    tables = []
    try:
        if kind in ("CSV", "TSV"):
            frame = text(pd.read_csv, sep="\\t" if kind == "TSV" else ",", nrows=sample_rows if sampled else None, low_memory=False)
            if sampled:
                notes.append(f"profiled from the first {len(frame):,} rows of {size / 2**20:,.0f} MB; the row count is counted from its lines")
                tables.append(table(frame, rows=max(line_count() - 1, len(frame)), exact=False))
            else:
                tables.append(table(frame))
        elif kind == "JSON lines":
            frame = text(pd.read_json, lines=True, nrows=sample_rows if sampled else None)
            if sampled:
                notes.append(f"profiled from the first {len(frame):,} lines of {size / 2**20:,.0f} MB")
                tables.append(table(frame, rows=max(line_count(), len(frame)), exact=False))
            else:
                tables.append(table(frame))
        elif kind == "JSON":
            tables.append(table(text(pd.read_json)))
        elif kind == "Excel":
            book = pd.ExcelFile(path)
            for sheet in book.sheet_names[:10]:
                tables.append(table(book.parse(sheet), sheet=sheet))
            if len(book.sheet_names) > 10:
                notes.append(f"{len(book.sheet_names) - 10} more sheets not profiled")
    except Exception as error:
        notes.append(f"pandas could not read it as {kind}: {type(error).__name__}: {str(error)[:200]}")
    print(json.dumps({"path": path, "kind": kind, "tables": tables, "notes": notes}))
`;

export async function profileSharedFile(
  kernel: Kernel,
  file: { path: string; kind: string },
): Promise<SharedFileProfile> {
  const call = `${PROFILE_CODE}
try:
    _tally_profile(${JSON.stringify(file.path)}, ${JSON.stringify(file.kind)}, ${SAMPLE_ABOVE_BYTES}, ${SAMPLE_ROWS}, ${MAX_COLUMNS})
finally:
    del _tally_profile
`;
  const execution = await kernel.run(call, { timeoutMs: PROFILE_TIMEOUT_MS });
  const line = execution.stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as SharedFileProfile;
  } catch {
    const why = execution.error ? `${execution.error.name}: ${execution.error.value}` : 'no profile came back';
    return { ...file, tables: [], notes: [`could not be profiled (${why}); look at it with pandas`] };
  }
}

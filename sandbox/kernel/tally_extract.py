"""Loads an extract written by the host (src/db/extract/) into a pandas DataFrame.

An extract is a folder under /inputs: columns.json first, then part files (part-NNNNN.bin, each
followed by its index part-NNNNN.json), then manifest.json; see encode-chunk.ts for the encodings.
Numbers are read with numpy.frombuffer, text through per-chunk dictionaries, straight into the
frame's own arrays (extract_column.py), and follow_extract decodes each part while the host is
still streaming the next ones, so no network or driver is needed in here and little is left to do
once the last row has arrived."""

import json
import os
import time

import pandas as pd
from extract_column import Column


class _Part(bytearray):
    """A part file's bytes, seen from one chunk inside it; one buffer is reused for every part."""

    base_offset = 0


def _finish(series, column):
    # TINYINT(1) / BOOLEAN columns become pandas booleans when they hold nothing but 0 and 1.
    if column.get("booleanLike") and (series.dtype.kind in "iu" or str(series.dtype) == "Int64"):
        if set(series.dropna().unique().tolist()) <= {0, 1}:
            return series.astype("boolean")
    return series


class _Frame:
    """The columns, filled part by part, and the DataFrame they make at the end."""

    def __init__(self, columns):
        self.columns = [Column(column) for column in columns]
        self.buffer = _Part()
        self.rows = 0

    def add_part(self, folder, file, chunks):
        with open(os.path.join(folder, file), "rb", buffering=0) as handle:
            size = os.fstat(handle.fileno()).st_size
            if len(self.buffer) < size:
                self.buffer = _Part(size)  # the views of the last one are gone: decoding copies
            view = memoryview(self.buffer)[:size]
            done = 0
            while done < size:
                read = handle.readinto(view[done:])
                if not read:
                    raise RuntimeError(f"{file} ended early")
                done += read
            view.release()
        data = self.buffer
        for chunk in chunks:
            data.base_offset = chunk["base"]
            for column, meta in zip(self.columns, chunk["columns"]):
                column.add(data, meta, chunk["rows"])
            self.rows += chunk["rows"]

    def finish(self, provenance):
        metas = [column.meta for column in self.columns]
        if self.rows:
            series = []
            for index, column in enumerate(self.columns):
                series.append(_finish(column.series(), column.meta))
                self.columns[index] = None  # freed column by column
            # Keyed by position, so duplicate names survive; copy=False keeps each column as decoded
            # instead of copying them all into consolidated blocks.
            frame = pd.DataFrame(dict(enumerate(series)), copy=False)
            frame.columns = [meta["name"] for meta in metas]
        else:
            frame = pd.DataFrame({meta["name"]: pd.Series(dtype=_empty_dtype(meta)) for meta in metas})
        frame.attrs["provenance"] = provenance
        return frame


def _by_part(chunks):
    """Chunks grouped by part file, in file order."""
    groups = []
    for chunk in chunks:
        if not groups or groups[-1][0] != chunk["file"]:
            groups.append((chunk["file"], []))
        groups[-1][1].append(chunk)
    return groups


def _read_json(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def load_extract(folder):
    """The DataFrame in a complete `folder`, with its provenance in `frame.attrs["provenance"]`."""
    manifest = _read_json(os.path.join(folder, "manifest.json"))
    frame = _Frame(manifest["columns"])
    for file, chunks in _by_part(manifest["chunks"]):
        frame.add_part(folder, file, chunks)  # one part in memory at a time
    return frame.finish(manifest["provenance"])


def follow_extract(folder, timeout_s):
    """Like load_extract, while the host is still writing: each part is decoded once its index
    (part-NNNNN.json, written after the part) appears, so decoding overlaps the query. The
    manifest comes last; a folder that disappears means the host gave up."""
    deadline = time.monotonic() + timeout_s
    manifest_path = os.path.join(folder, "manifest.json")  # whole once it parses: it is written in one go
    frame = None
    done = set()
    number = 1
    pause = 0.001
    progress_at = time.monotonic()
    while True:
        if frame is None:
            columns = _try_json(os.path.join(folder, "columns.json"))
            frame = None if columns is None else _Frame(columns)
        index = _try_json(os.path.join(folder, "part-%05d.json" % number)) if frame is not None else None
        if index is not None:
            file = "part-%05d.bin" % number
            frame.add_part(folder, file, index)
            done.add(file)
            number += 1
            pause = 0.001
            progress_at = time.monotonic()
            continue
        manifest = _try_json(manifest_path)
        if manifest is not None:
            frame = frame or _Frame(manifest["columns"])
            for file, chunks in _by_part(manifest["chunks"]):
                if file not in done:
                    frame.add_part(folder, file, chunks)
            return frame.finish(manifest["provenance"])
        if not os.path.isdir(folder):
            raise RuntimeError("the extract was abandoned by the host")
        if time.monotonic() > deadline:
            raise TimeoutError(f"no complete extract in {folder} after {timeout_s} s")
        time.sleep(pause)
        # While parts keep coming, look every few ms (the last one is waited for); a slow query, less often.
        pause = min(pause * 2, 0.004 if time.monotonic() - progress_at < 1 else 0.05)


def _try_json(path):
    """A small JSON file the host may be writing right now: None until it is whole."""
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle)
    except (FileNotFoundError, ValueError):
        return None


def _empty_dtype(column):
    if column.get("exact"):
        return "object"
    return {
        "integer": "int64",
        "float": "float64",
        "decimal": "float64",
        "boolean": "boolean",
        "date": "datetime64[ns]",
        "datetime": "datetime64[ns]",
        "time": "timedelta64[ns]",
    }.get(column["kind"], "object")


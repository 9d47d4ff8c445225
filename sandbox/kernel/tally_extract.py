"""Loads an extract written by the host (src/db/extract/) into a pandas DataFrame.

An extract is a folder under /inputs: columns.json first, then part files (part-NNNNN.bin, each
followed by its index part-NNNNN.json), then manifest.json; see encode-chunk.ts for the encodings.
Numbers are read with numpy.frombuffer, text through per-chunk dictionaries, and follow_extract
decodes each part while the host is still streaming the next ones, so no network or driver is
needed in here and little is left to do once the last row has arrived."""

import base64
import json
import os
import time

import numpy as np
import pandas as pd

NAT = np.iinfo(np.int64).min


def _segment(data, segment, dtype):
    count = segment["length"] // np.dtype(dtype).itemsize
    return np.frombuffer(data, dtype=dtype, count=count, offset=data.base_offset + segment["offset"])


class _Part(bytes):
    """A part file's bytes, seen from one chunk inside it."""

    base_offset = 0


def _mask(data, column):
    if "mask" not in column:
        return None
    return _segment(data, column["mask"], np.uint8).astype(bool)


def _micros(values, kind):
    missing = np.isnan(values)
    nanos = np.where(missing, 0, values).astype(np.int64) * 1000
    nanos[missing] = NAT
    return nanos.view(kind)


def _decode(data, column):
    encoding = column["encoding"]
    mask = _mask(data, column)
    if encoding == "f8":
        return _segment(data, column["values"], "<f8").copy()  # not a view: the part's bytes can go
    if encoding in ("i8f", "i8", "u8"):
        dtype = {"i8f": "<f8", "i8": "<i8", "u8": "<u8"}[encoding]
        values = _segment(data, column["values"], dtype).astype(np.uint64 if encoding == "u8" else np.int64)
        if mask is None:
            return values
        return pd.arrays.IntegerArray(values, mask)
    if encoding == "b1":
        values = _segment(data, column["values"], np.uint8).astype(bool)
        return values if mask is None else pd.arrays.BooleanArray(values, mask)
    if encoding == "M8":
        return _micros(_segment(data, column["values"], "<f8"), "datetime64[ns]")
    if encoding == "m8":
        return _micros(_segment(data, column["values"], "<f8"), "timedelta64[ns]")
    if encoding == "dict":
        codes = _segment(data, column["values"], "<i4")
        start = data.base_offset + column["dictionary"]["offset"]
        length = column["dictionary"]["length"]
        text = data[start : start + length].decode("utf-8", "replace")
        if column.get("terminated"):  # every entry ends in a NUL: one split, no JSON to parse
            entries = text.split("\x00")
            entries.pop()
        else:
            entries = json.loads(text)
        if column.get("binary"):
            entries = [base64.b64decode(entry) for entry in entries]
        table = np.empty(len(entries) + 1, dtype=object)
        table[: len(entries)] = entries
        table[-1] = None  # code -1 picks the last slot: NULL stays None, '' stays ''
        return table[codes]
    raise ValueError(f"unknown encoding {encoding!r}")


def _join(pieces, name):
    if len(pieces) == 1:
        piece = pieces[0]
        if isinstance(piece, np.ndarray) and not piece.flags.writeable:
            piece = piece.copy()  # a view of the part's bytes: the frame's columns must be its own
        return pd.Series(piece, name=name)
    if all(isinstance(piece, np.ndarray) for piece in pieces) and len({piece.dtype for piece in pieces}) == 1:
        return pd.Series(np.concatenate(pieces), name=name)
    return pd.concat([pd.Series(piece) for piece in pieces], ignore_index=True).rename(name)


def _finish(series, column):
    # TINYINT(1) / BOOLEAN columns become pandas booleans when they hold nothing but 0 and 1.
    if column.get("booleanLike") and (series.dtype.kind in "iu" or str(series.dtype) == "Int64"):
        if set(series.dropna().unique().tolist()) <= {0, 1}:
            return series.astype("boolean")
    return series


class _Frame:
    """Decoded pieces of each column, part by part, and the DataFrame they make at the end."""

    def __init__(self, columns):
        self.columns = columns
        self.pieces = [[] for _ in columns]
        self.rows = 0

    def add_part(self, folder, file, chunks):
        with open(os.path.join(folder, file), "rb") as handle:
            data = _Part(handle.read())
        for chunk in chunks:
            data.base_offset = chunk["base"]
            for index, column in enumerate(chunk["columns"]):
                self.pieces[index].append(_decode(data, column))
            self.rows += chunk["rows"]

    def finish(self, provenance):
        columns = self.columns
        if any(self.pieces):
            series = []
            for index, column in enumerate(columns):
                pieces, self.pieces[index] = self.pieces[index], None  # freed column by column: the peak is one column
                series.append(_finish(_join(pieces, column["name"]), column))
                del pieces
            # Keyed by position, so duplicate names survive; copy=False keeps each column as decoded
            # instead of copying them all into consolidated blocks.
            frame = pd.DataFrame(dict(enumerate(series)), copy=False)
            frame.columns = [column["name"] for column in columns]
        else:
            frame = pd.DataFrame({column["name"]: pd.Series(dtype=_empty_dtype(column)) for column in columns})
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


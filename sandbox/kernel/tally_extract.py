"""Loads an extract written by the host (src/db/extract/) into a pandas DataFrame.

An extract is a folder under /inputs with manifest.json and chunk files; see encode-chunk.ts for
the encodings. Numbers are read with numpy.frombuffer, text through per-chunk dictionaries, so
loading a million rows takes a fraction of a second and no network or driver is needed in here."""

import base64
import json
import os

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
        return _segment(data, column["values"], "<f8")
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
        entries = json.loads(data[start : start + length].decode("utf-8"))
        if column.get("binary"):
            entries = [base64.b64decode(entry) for entry in entries]
        table = np.empty(len(entries) + 1, dtype=object)
        table[: len(entries)] = entries
        table[-1] = None  # code -1 picks the last slot: NULL stays None, '' stays ''
        return table[codes]
    raise ValueError(f"unknown encoding {encoding!r}")


def _join(pieces, name):
    if len(pieces) == 1:
        return pd.Series(pieces[0], name=name)
    if all(isinstance(piece, np.ndarray) for piece in pieces) and len({piece.dtype for piece in pieces}) == 1:
        return pd.Series(np.concatenate(pieces), name=name)
    return pd.concat([pd.Series(piece) for piece in pieces], ignore_index=True).rename(name)


def _finish(series, column):
    # TINYINT(1) / BOOLEAN columns become pandas booleans when they hold nothing but 0 and 1.
    if column.get("booleanLike") and (series.dtype.kind in "iu" or str(series.dtype) == "Int64"):
        if set(series.dropna().unique().tolist()) <= {0, 1}:
            return series.astype("boolean")
    return series


def load_extract(folder):
    """The DataFrame in `folder`, with its provenance in `frame.attrs["provenance"]`."""
    with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as handle:
        manifest = json.load(handle)
    columns = manifest["columns"]
    pieces = [[] for _ in columns]
    parts = {}
    for chunk in manifest["chunks"]:
        if chunk["file"] not in parts:
            parts.clear()  # chunks come in file order: keep one part in memory at a time
            with open(os.path.join(folder, chunk["file"]), "rb") as handle:
                parts[chunk["file"]] = _Part(handle.read())
        data = parts[chunk["file"]]
        data.base_offset = chunk["base"]
        for index, column in enumerate(chunk["columns"]):
            pieces[index].append(_decode(data, column))
    if manifest["chunks"]:
        series = [_finish(_join(parts, column["name"]), column) for parts, column in zip(pieces, columns)]
        frame = pd.concat(series, axis=1)
        frame.columns = [column["name"] for column in columns]  # duplicate names survive
    else:
        frame = pd.DataFrame({column["name"]: pd.Series(dtype=_empty_dtype(column)) for column in columns})
    frame.attrs["provenance"] = manifest["provenance"]
    return frame


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


"""One column of an extract, written chunk by chunk straight into the arrays of the finished
DataFrame (see tally_extract.py for the part files and encode-chunk.ts for the encodings).

The arrays grow by half with ndarray.resize, which reallocates in place where it can (mremap for
large blocks), so a column never exists twice: no per-chunk pieces and no concatenation once the
last row is in, when the frame would otherwise be copied whole (2.5 s of a 10M-row extract; fresh
memory is dear on a VM). A column whose chunks disagree on their type (a chunk turned to text
because a value did not fit) goes on as a list of decoded pieces, joined by pandas at the end."""

import base64
import json

import numpy as np
import pandas as pd

NAT = np.iinfo(np.int64).min

# The array each encoding is written into.
_DTYPES = {
    "f8": np.dtype(np.float64),
    "i8f": np.dtype(np.int64),
    "i8": np.dtype(np.int64),
    "u8": np.dtype(np.uint64),
    "b1": np.dtype(bool),
    "M8": np.dtype("datetime64[ns]"),
    "m8": np.dtype("timedelta64[ns]"),
    "dict": np.dtype(object),
}
_SOURCE = {"f8": "<f8", "i8f": "<f8", "i8": "<i8", "u8": "<u8", "b1": np.uint8, "M8": "<f8", "m8": "<f8"}


def segment(data, where, dtype):
    """The numbers at `where` (offset and length in the chunk) in the part's bytes, as a view."""
    count = where["length"] // np.dtype(dtype).itemsize
    return np.frombuffer(data, dtype=dtype, count=count, offset=data.base_offset + where["offset"])


def entries(data, column):
    """A `dict` column's strings (or bytes): NUL-terminated UTF-8, or a JSON array."""
    start = data.base_offset + column["dictionary"]["offset"]
    text = str(memoryview(data)[start : start + column["dictionary"]["length"]], "utf-8", "replace")
    if column.get("terminated"):  # every entry ends in a NUL: one split, no JSON to parse
        values = text.split("\x00")
        values.pop()
    else:
        values = json.loads(text)
    if column.get("binary"):
        values = [base64.b64decode(entry) for entry in values]
    table = np.empty(len(values) + 1, dtype=object)
    table[: len(values)] = values
    table[-1] = None  # code -1 picks the last slot: NULL stays None, '' stays ''
    return table


def decode(data, column, rows):
    """A chunk's column as its own array (or pandas extension array), for a column of pieces."""
    out = np.empty(rows, _DTYPES[column["encoding"]])
    return _array(out, _write(data, column, out))


def _write(data, column, out):
    """Writes the chunk's values into `out`; returns its NULL mask for a maskable encoding, if any."""
    encoding = column["encoding"]
    if encoding == "dict":
        np.take(entries(data, column), segment(data, column["values"], "<i4"), out=out)
        return None
    values = segment(data, column["values"], _SOURCE[encoding])
    if encoding in ("M8", "m8"):  # float64 microseconds, NaN for NaT
        missing = np.isnan(values)
        nanos = out.view(np.int64)
        nanos[:] = np.where(missing, 0, values) if missing.any() else values
        nanos *= 1000
        nanos[missing] = NAT
        return None
    out[:] = values
    if "mask" in column:
        return segment(data, column["mask"], np.uint8) != 0
    return None


class Column:
    """One column's values so far, in arrays of the frame's type with room to grow."""

    def __init__(self, meta):
        self.meta = meta
        self.rows = 0
        self.values = None
        self.mask = None
        self.pieces = None  # a column whose chunks disagree on their type

    def add(self, data, column, rows):
        encoding = column["encoding"]
        if self.pieces is not None or (self.values is not None and self.values.dtype != _DTYPES[encoding]):
            self._add_piece(decode(data, column, rows))
            return
        self._reserve(encoding, rows)
        start, end = self.rows, self.rows + rows
        mask = _write(data, column, self.values[start:end])
        if mask is not None:
            if self.mask is None:
                self.mask = np.zeros(len(self.values), dtype=bool)
            self.mask[start:end] = mask
        elif self.mask is not None:
            self.mask[start:end] = False
        self.rows = end

    def series(self):
        """The column as a Series, its arrays cut to their rows; the column lets go of them."""
        if self.pieces is not None:
            pieces, self.pieces = self.pieces, None
            return pd.concat([pd.Series(piece) for piece in pieces], ignore_index=True).rename(self.meta["name"])
        values, mask = self._trimmed()
        self.values = self.mask = None
        return pd.Series(_array(values, mask), name=self.meta["name"], copy=False)

    def _reserve(self, encoding, rows):
        if self.values is None:
            self.values = np.empty(max(rows, 1024), dtype=_DTYPES[encoding])
            return
        capacity = len(self.values)
        if self.rows + rows <= capacity:
            return
        while capacity < self.rows + rows:
            capacity += capacity // 2
        self.values.resize(capacity, refcheck=False)
        if self.mask is not None:
            self.mask.resize(capacity, refcheck=False)

    def _trimmed(self):
        values, mask = self.values, self.mask
        if values is None:
            return np.empty(0, dtype=object), None
        values.resize(self.rows, refcheck=False)
        if mask is not None:
            mask.resize(self.rows, refcheck=False)
        return values, mask

    def _add_piece(self, piece):
        if self.pieces is None:
            values, mask = self._trimmed()
            self.pieces = [_array(values, mask)] if self.rows else []
            self.values = self.mask = None
        self.pieces.append(piece)
        self.rows += len(piece)


def _array(values, mask):
    if mask is None:
        return values
    if values.dtype == bool:
        return pd.arrays.BooleanArray(values, mask)
    return pd.arrays.IntegerArray(values, mask)

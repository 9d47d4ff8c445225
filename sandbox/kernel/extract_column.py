"""One column of an extract, written chunk by chunk straight into the arrays of the finished
DataFrame (see tally_extract.py for the part files and encode-chunk.ts for the encodings).

Numbers are written into memory that grows in place (private anonymous pages, resized with
mremap), so a column never exists twice: no per-chunk pieces and no concatenation once the last row
is in, when the frame would otherwise be copied whole (2.5 s of a 10M-row extract; fresh memory is
dear on a VM). The finished arrays keep those pages (their base is the map). Text is decoded into
one object array per chunk, joined once at the end. A column whose chunks disagree on their type (a
chunk turned to text because a value did not fit) goes on as pieces, joined by pandas at the end."""

import base64
import json
import mmap

import numpy as np
import pandas as pd

NAT = np.iinfo(np.int64).min
_PRIVATE = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS  # a shared map would not grow: mremap past its size faults
_HUGE = getattr(mmap, "MADV_HUGEPAGE", None)

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


class _Pages:
    """A numeric column's memory: private anonymous pages that grow with mremap, so growing copies
    nothing and a page is touched only when a value is written to it (unwritten ones read as 0)."""

    def __init__(self, dtype, rows):
        self.dtype = dtype
        self.rows = max(rows, 1)
        self.map = mmap.mmap(-1, self.rows * dtype.itemsize, flags=_PRIVATE)
        if _HUGE is not None:
            # 2 MiB pages: a first touch of 4 KiB pages cost 0.3 s per 100 MB here, of huge ones 0.01-0.15 s.
            try:
                self.map.madvise(_HUGE)
            except OSError:
                pass  # a kernel without transparent huge pages

    def grow(self, rows):
        """Room for at least `rows`, doubling (no view may be alive: numpy's views pin the pages)."""
        if rows > self.rows:
            while self.rows < rows:
                self.rows *= 2
            self.map.resize(self.rows * self.dtype.itemsize)

    def view(self, start, end):
        return np.frombuffer(self.map, self.dtype, count=end - start, offset=start * self.dtype.itemsize)

    def array(self, rows):
        """The first `rows`, the pages past them given back."""
        self.map.resize(max(rows, 1) * self.dtype.itemsize)
        return self.view(0, rows)


class Column:
    """One column's values so far: numbers in pages that grow in place, text as decoded pieces."""

    def __init__(self, meta):
        self.meta = meta
        self.rows = 0
        self.dtype = None
        self.values = None  # _Pages for numbers
        self.mask = None  # _Pages of bool, once a chunk has a NULL mask
        self.pieces = None  # text, and a column whose chunks disagree on their type

    def add(self, data, column, rows):
        dtype = _DTYPES[column["encoding"]]
        if self.dtype is None:
            self.dtype = dtype
            if dtype != np.dtype(object):
                self.values = _Pages(dtype, rows)
        if self.values is None or dtype != self.dtype:
            out = np.empty(rows, dtype)
            self._add_piece(_array(out, _write(data, column, out)))
            return
        start, end = self.rows, self.rows + rows
        self.values.grow(end)
        mask = _write(data, column, self.values.view(start, end))
        if self.mask is not None:
            self.mask.grow(self.values.rows)
        if mask is not None:
            if self.mask is None:
                self.mask = _Pages(np.dtype(bool), self.values.rows)
            self.mask.view(start, end)[:] = mask  # rows without a mask keep the pages' zeros: not NULL
        self.rows = end

    def series(self):
        """The column as a Series; the column lets go of its memory."""
        name = self.meta["name"]
        if self.values is None and self.pieces is None:
            return pd.Series(np.empty(0, dtype=object), name=name)
        if self.values is not None:
            values = self._take_pages()
            return pd.Series(values, name=name, copy=False)
        pieces, self.pieces = self.pieces, None
        if all(isinstance(piece, np.ndarray) for piece in pieces) and len({piece.dtype for piece in pieces}) == 1:
            return pd.Series(pieces[0] if len(pieces) == 1 else np.concatenate(pieces), name=name, copy=False)
        return pd.concat([pd.Series(piece) for piece in pieces], ignore_index=True).rename(name)

    def _take_pages(self):
        values = self.values.array(self.rows)
        mask = self.mask.array(self.rows) if self.mask is not None else None
        self.values = self.mask = None
        return _array(values, mask)

    def _add_piece(self, piece):
        if self.pieces is None:
            self.pieces = [self._take_pages()] if self.values is not None and self.rows else []
            self.values = self.mask = None
        self.pieces.append(piece)
        self.rows += len(piece)


def _array(values, mask):
    if mask is None:
        return values
    if values.dtype == bool:
        return pd.arrays.BooleanArray(values, mask)
    return pd.arrays.IntegerArray(values, mask)

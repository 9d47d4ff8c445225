"""Output capture for one cell: a byte buffer that keeps the head and the tail within a limit,
Python-level stream objects that write into it, and fd-level capture for subprocesses and C code."""

import io
import os


class CappedBuffer:
    """Keeps at most `limit` bytes: the first half and the last half, counting what it dropped."""

    def __init__(self, limit):
        self.limit = max(64, int(limit))
        self.half = self.limit // 2
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def write(self, data):
        self.total += len(data)
        room = self.half - len(self.head)
        if room > 0:
            data = memoryview(data)  # slices of a view copy nothing (a large write is copied once)
            self.head += data[:room]
            data = data[room:]
        if len(data) >= self.half:
            self.tail = bytearray(memoryview(data)[len(data) - self.half :])  # this write alone fills the tail
        elif data:
            self.tail += data
            if len(self.tail) > 2 * self.half:
                del self.tail[: len(self.tail) - self.half]

    @property
    def omitted(self):
        return max(0, self.total - len(self.head) - min(len(self.tail), self.half))

    def pieces(self):
        """What is kept, as byte views without copies: the head, the marker when bytes were dropped, the tail."""
        tail = memoryview(self.tail)[-self.half :] if self.half else b""
        if self.omitted == 0:
            return [self.head, tail]
        marker = f"\n... [{self.omitted} bytes omitted; {self.total} bytes in all] ...\n".encode()
        return [self.head, marker, tail]

    def text(self):
        # The marker is ASCII, so decoding the pieces joined equals decoding each on its own.
        return b"".join(self.pieces()).decode("utf-8", "replace")


def cap_text(text, limit):
    """`text` within `limit` UTF-8 bytes: the head and the tail, the omitted byte count in between."""
    data = text.encode("utf-8", "replace")
    limit = max(64, int(limit))
    if len(data) <= limit:
        return text
    half = limit // 2
    marker = f"\n... [{len(data) - 2 * half} bytes omitted; {len(data)} bytes in all] ...\n"
    return data[:half].decode("utf-8", "ignore") + marker + data[-half:].decode("utf-8", "ignore")


class _BinaryWriter(io.RawIOBase):
    def __init__(self, sink):
        self._sink = sink

    def writable(self):
        return True

    def write(self, data):
        data = bytes(data)
        self._sink.write(data)
        return len(data)


class CaptureStream(io.TextIOBase):
    """What sys.stdout / sys.stderr point at while a cell runs."""

    def __init__(self, sink, fd):
        self._sink = sink
        self._fd = fd
        self.buffer = _BinaryWriter(sink)

    @property
    def encoding(self):
        return "utf-8"

    @property
    def errors(self):
        return "replace"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        return self._fd

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._sink.write(text.encode("utf-8", "replace"))
        return len(text)

    def flush(self):
        pass


class FdCapture:
    """Points a file descriptor (1 or 2) at an append-only file on /tmp, so output from
    subprocesses and C code is kept without a reader thread; `collect` moves it into a buffer."""

    def __init__(self, fd, path):
        self.fd = fd
        self.path = path
        self._file = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC, 0o600)

    def reattach(self):
        # User code may have closed or replaced fd 1/2; put ours back before every cell.
        os.dup2(self._file, self.fd)

    def collect(self, sink):
        size = os.fstat(self._file).st_size
        if size == 0:
            return
        keep = sink.limit
        with open(self._file, "rb", closefd=False) as f:
            if size <= keep:
                f.seek(0)
                sink.write(f.read(size))
            else:
                f.seek(0)
                sink.write(f.read(keep // 2))
                sink.total += size - keep // 2 - (keep - keep // 2)
                f.seek(size - (keep - keep // 2))
                sink.write(f.read(keep - keep // 2))
        os.ftruncate(self._file, 0)

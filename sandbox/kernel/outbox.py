"""Large reply payloads handed over as a file instead of inside the JSON line (protocol v2).

A cell's output and figures are bytes. Inline, they cost JSON escaping here and parsing on the host
(each non-ASCII character is sent as a six-byte escape), base64 for every PNG, and the trip through
Docker's attach stream, which moves about 100 MB/s on a small machine. So when a reply's payloads
add up to MIN_BYTES or more they are written back to back, raw, into one file in the outbox (a
folder of the session's own disk, mounted at $TALLY_OUTBOX) named after the request, and the reply
says where each one lies: {"attachment": {"bytes": N}, "stdout": {"part": [offset, length]}, ...}.
The host reads the file and removes it. Anything that stops the file (no outbox, the disk quota
full, a name already taken) sends the payloads inline instead.
"""

import base64
import os

MIN_BYTES = 64 * 1024


class Payload:
    """Bytes to send, in pieces (views, so nothing is copied), either as text or as a PNG."""

    def __init__(self, pieces, kind):
        self.pieces = [memoryview(piece).cast("B") for piece in pieces]
        self.kind = kind
        self.size = sum(len(piece) for piece in self.pieces)

    def inline(self):
        data = b"".join(self.pieces)
        return data.decode("utf-8", "replace") if self.kind == "text" else base64.b64encode(data).decode("ascii")


def text(pieces):
    return Payload(pieces, "text")


def png(data):
    return Payload([data], "png")


def _slots(reply):
    """(container, key) of every field of a reply that may hold a payload."""
    slots = [(reply, name) for name in ("stdout", "stderr") if isinstance(reply.get(name), Payload)]
    for figure in reply.get("figures", ()):
        if isinstance(figure.get("png"), Payload):
            slots.append((figure, "png"))
    return slots


def _safe(name):
    """The request's id (32 hex digits from the host) is the file's name; nothing else is."""
    return isinstance(name, str) and len(name) == 32 and all(c in "0123456789abcdef" for c in name)


class Outbox:
    def __init__(self, path):
        self.path = path or None
        if self.path:
            self.clear()

    def clear(self):
        """Removes what an earlier interpreter left (a reply the host never read)."""
        try:
            for entry in os.scandir(self.path):
                if not entry.is_dir(follow_symlinks=False):
                    os.unlink(entry.path)
        except OSError:
            pass  # not there or not ours: replies go inline

    def finish(self, reply, name):
        """Puts the reply's payloads in a file when they are large and it can; inline otherwise."""
        slots = _slots(reply)
        total = sum(container[key].size for container, key in slots)
        if total >= MIN_BYTES and _safe(name) and self.path and self._write(name, [c[k] for c, k in slots]):
            offset = 0
            for container, key in slots:
                size = container[key].size
                container[key] = {"part": [offset, size]}
                offset += size
            reply["attachment"] = {"bytes": total}
            return reply
        for container, key in slots:
            container[key] = container[key].inline()
        return reply

    def _write(self, name, payloads):
        path = os.path.join(self.path, name)
        try:
            # O_EXCL: never through a link, a FIFO or a file that code in the cell put there.
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except OSError:
            return False
        try:
            for payload in payloads:
                for view in payload.pieces:
                    while view:
                        view = view[os.write(fd, view) :]
            return True
        except OSError:  # the disk quota is full, or the file size limit
            try:
                os.unlink(path)
            except OSError:
                pass
            return False
        finally:
            os.close(fd)

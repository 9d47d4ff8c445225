"""tally kernel driver: one long-lived Python namespace per sandbox, spoken to over the container's
stdin/stdout as JSON lines (protocol v2).

Requests (one per line):  {"v":2,"id":"<32 hex>","op":"run","code":"...","outputLimitBytes":65536}
                          {"v":2,"id":"<32 hex>","op":"ping"}
Replies (framed "\\n" + JSON + "\\n", so stray bytes on the channel cannot merge into a reply):
                          {"v":2,"type":"ready",...} once at start-up, then one "result"/"pong" per request.
A result's large payloads (output, figures) may travel as a file in the outbox instead: see outbox.py.

The protocol streams are private duplicates; fds 0, 1 and 2 are pointed at /dev/null and capture
files, so user code and its subprocesses write into the cell's output, never into the protocol.

SIGINT interrupts the cell whose request is arriving or running, through compiling, running,
showing the value and rendering figures; its KeyboardInterrupt is the cell's error. Between cells
(after a reply is sent, before the next request's first byte) it is ignored.
"""

import _signal  # getsignal without signal.py's enum conversion: a third of the driver's time for a cell '1'
import ast
import builtins
import errno
import gc
import io
import json
import linecache
import os
import shutil
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from capture import CappedBuffer, CaptureStream, FdCapture  # noqa: E402
from display import close_figures, collect_figures, display  # noqa: E402
from outbox import Outbox, png, text  # noqa: E402
from reaper import reap_strays  # noqa: E402
from tracebacks import CELL_PREFIX, describe  # noqa: E402

PROTOCOL = 2
DEFAULT_OUTPUT_LIMIT = 64 * 1024
READ_BYTES = 64 * 1024


# True in every child os.fork() makes (multiprocessing's too): a forked child of user code never speaks for the
# kernel. A flag rather than os.getpid() on every cell: under gVisor each system call costs ~0.1 ms.
forked_child = False


def _after_fork_in_child():
    global forked_child
    forked_child = True


os.register_at_fork(after_in_child=_after_fork_in_child)
RETIRED = "_tally_retired"  # set aside by a cell, freed once its reply is sent


class Channel:
    def __init__(self):
        self.incoming = os.dup(0)
        self.outgoing = os.dup(1)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        self.unread = bytearray()  # received bytes not yet handed out as a request
        self.taken = False  # a request was handed out and its reply is not sent yet

    @property
    def request_arriving(self):
        """True from the first byte of a request until its reply is sent: an interrupt now is meant for it."""
        return self.taken or bool(self.unread)

    def send(self, message):
        if forked_child:  # a forked child of user code never speaks for the kernel
            os._exit(0)
        data = b"\n" + json.dumps({"v": PROTOCOL, **message}, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"
        try:
            view = memoryview(data)
            while view:
                written = os.write(self.outgoing, view)
                view = view[written:]
        except OSError:
            os._exit(70)  # the channel is gone (user code closed it); dying lets the host restart us

    def receive(self):
        scanned = 0
        while True:
            end = self.unread.find(b"\n", scanned)
            if end >= 0:
                self.taken = True  # before the bytes leave `unread`, so request_arriving never blinks
                line = bytes(self.unread[:end])
                del self.unread[: end + 1]
                return json.loads(line)
            scanned = len(self.unread)
            # A pipe's worth at a time: asking for much more costs a large allocation on every request.
            chunk = os.read(self.incoming, READ_BYTES)
            if not chunk:
                os._exit(0)  # the host hung up
            self.unread += chunk

    def done(self):
        """The reply is sent: an interrupt from now on belongs to a cell that has finished."""
        self.taken = False


def _out_of_processes(error):
    # A fork that failed for lack of pid slots: whatever the cell forked must go, or the next cell
    # cannot start a subprocess either.
    return isinstance(error, BlockingIOError) and error.errno == errno.EAGAIN


class Kernel:
    def __init__(self, channel):
        self.channel = channel
        self.namespace = {"__name__": "__main__", "__builtins__": builtins}
        self.count = 0
        self.running = False
        self.interrupt_pending = False
        self.no_input = io.StringIO("")
        tmp = os.environ.get("TMPDIR", "/tmp")
        self.fd_out = FdCapture(1, os.path.join(tmp, ".tally-fd1"))
        self.fd_err = FdCapture(2, os.path.join(tmp, ".tally-fd2"))
        self.fd_out.reattach()
        self.fd_err.reattach()
        self.outbox = Outbox(os.environ.get("TALLY_OUTBOX"))
        self.interrupt_handler = self.on_interrupt  # one bound method, so `is` tells whether it is still ours

    def on_interrupt(self, signum, frame):
        # SIGINT from the host means "stop this cell". While the cell's request is still arriving, or
        # between its steps, it is kept for the next step; between cells it means nothing (it was
        # meant for a cell that has just finished).
        if self.running:
            raise KeyboardInterrupt
        if self.channel.request_arriving:
            self.interrupt_pending = True

    def armed(self, step):
        """Runs one step of a cell (compile and run, show the value, render figures) where a SIGINT
        raises KeyboardInterrupt, and returns what the step raised. The flag is set inside the
        try, so an interrupt at any point after it ends up here as the step's error."""
        try:
            try:
                self.running = True
                if self.interrupt_pending:
                    self.interrupt_pending = False
                    raise KeyboardInterrupt
                step()
            finally:
                self.running = False
        except BaseException as error:  # noqa: BLE001 - user errors are data, including SystemExit
            if forked_child:
                os._exit(1)  # a forked child of user code never speaks for the kernel
            return error
        return None

    def release_retired(self):
        """Frees what a cell set aside in `_tally_retired` (a DataFrame an extract replaced), now that
        the reply is sent: freeing a large frame takes a while, and nobody need wait for it."""
        self.namespace.pop(RETIRED, None)

    def compile_cell(self, code):
        """(statements, last expression) as code objects; either may be None."""
        self.count += 1
        filename = f"{CELL_PREFIX}{self.count}>"
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        try:  # the common one-expression cell compiles once
            return None, compile(code, filename, "eval")
        except SyntaxError:
            pass
        tree = ast.parse(code, filename, "exec")
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not code.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        body = compile(tree, filename, "exec")
        return body, (compile(last, filename, "eval") if last is not None else None)

    def run(self, request, request_id):
        limit = int(request.get("outputLimitBytes") or DEFAULT_OUTPUT_LIMIT)
        out, err = CappedBuffer(limit), CappedBuffer(limit)
        started = time.perf_counter()
        self.fd_out.reattach()
        self.fd_err.reattach()
        saved = sys.stdout, sys.stderr, sys.stdin
        sys.stdout, sys.stderr = CaptureStream(out, 1), CaptureStream(err, 2)
        if self.no_input.closed:
            self.no_input = io.StringIO("")
        sys.stdin = self.no_input  # input() gets EOF instead of reading the protocol
        if _signal.getsignal(signal.SIGINT) is not self.interrupt_handler:
            signal.signal(signal.SIGINT, self.interrupt_handler)
        code = request.get("code", "")
        shown = {}

        def execute():
            body, last = self.compile_cell(code)
            if body is not None:
                exec(body, self.namespace)
            if last is not None:
                value = eval(last, self.namespace)
                if value is not None:
                    self.namespace["_"] = value
                    shown["result"] = display(value)  # a slow or broken __repr__ is the cell's too

        def figures():
            shown["figures"] = collect_figures(png)

        error = self.armed(execute)
        figures_error = self.armed(figures)  # after an error too: the figures are closed either way
        if figures_error is not None:
            close_figures()
        sys.stdout, sys.stderr, sys.stdin = saved
        error = error or figures_error
        if forked_child:
            os._exit(0)
        reply = {"type": "result", "id": request_id}
        if error is not None:
            reply["error"] = describe(error, limit)
            if isinstance(error, KeyboardInterrupt) or _out_of_processes(error):
                reply["reaped"] = reap_strays()
        elif "result" in shown:
            reply["result"] = shown["result"]
        figures, dropped = shown.get("figures", ([], 0))
        if figures:
            reply["figures"] = figures
        if dropped:
            reply["figuresDropped"] = dropped
        self.fd_out.collect(out)
        self.fd_err.collect(err)
        # Empty fields are left out: the host reads a missing field as empty.
        for name, buffer in (("stdout", out), ("stderr", err)):
            if buffer.total:
                reply[name] = text(buffer.pieces())
                reply[name + "Bytes"] = buffer.total
        reply["durationMs"] = round((time.perf_counter() - started) * 1000, 3)
        return self.outbox.finish(reply, request_id)


def preload():
    """Imports the modules named in TALLY_PRELOAD before the kernel says ready (the warm pool's
    kernels); a kernel started for a waiting session names them in TALLY_PRELOAD_LATER instead, and
    imports them in the background once it is ready (see preload_later). Either way matplotlib finds
    its font cache ready and the house style (MATPLOTLIBRC, see the image)."""
    cache = "/opt/tally/mplconfig"
    target = os.environ.get("MPLCONFIGDIR")
    if target and os.path.isdir(cache) and not os.path.exists(target):
        shutil.copytree(cache, target)
    loaded = []
    for name in filter(None, os.environ.get("TALLY_PRELOAD", "").split(",")):
        try:
            __import__(name.strip())
            loaded.append(name.strip())
        except Exception as error:  # noqa: BLE001 - a missing module is reported, not fatal
            print(f"tally driver: cannot preload {name}: {error}", file=sys.__stderr__)
    return loaded


def preload_later():
    """Imports TALLY_PRELOAD_LATER on a background thread after "ready": the session's first cell
    comes seconds later (after a model call), by when the stack is usually in. A cell that imports a
    module still loading waits on Python's import lock for it, so it never sees half a module."""
    names = [name.strip() for name in os.environ.get("TALLY_PRELOAD_LATER", "").split(",") if name.strip()]
    if not names:
        return

    def load():
        for name in names:
            try:
                __import__(name)
            except Exception as error:  # noqa: BLE001 - the cell that needs it reports it
                print(f"tally driver: cannot preload {name}: {error}", file=sys.__stderr__)

    threading.Thread(target=load, name="tally-preload", daemon=True).start()


def main():
    channel = Channel()
    os.chdir(os.environ.get("TALLY_WORKSPACE", "/workspace"))
    loaded = preload()
    gc.freeze()  # the preloaded modules' objects never die; keep the collector from rescanning them
    kernel = Kernel(channel)
    signal.signal(signal.SIGINT, kernel.interrupt_handler)
    channel.send({"type": "ready", "pid": os.getpid(), "python": sys.version.split()[0], "preloaded": loaded})
    preload_later()
    while True:
        try:
            request = channel.receive()
            # Out of the request before user code runs, so `request` in a frame does not hand it over.
            request_id = request.pop("id", None)
            op = request.get("op")
            if op == "run":
                channel.send(kernel.run(request, request_id))
                kernel.release_retired()
            elif op == "ping":
                channel.send({"type": "pong", "id": request_id})
            else:
                channel.send({"type": "failure", "id": request_id, "message": f"unknown op {op!r}"})
        except KeyboardInterrupt:
            pass  # only raised inside armed(); kept so a stray one never ends the loop
        except ValueError as error:
            channel.send({"type": "failure", "id": None, "message": f"bad request: {error}"})
        channel.done()
        kernel.interrupt_pending = False


if __name__ == "__main__":
    main()

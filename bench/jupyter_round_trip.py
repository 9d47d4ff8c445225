"""Anchor b: round trips to an ipykernel through jupyter_client, measured inside the container.

Usage: python3 jupyter_round_trip.py PLAN
PLAN is JSON: {"trivial": [warmup, iterations], "outputs": {key: {"code", "minChars", "warmup", "iterations"}}}.
Prints one line "BENCH_RESULT {json}" with the raw samples in milliseconds. Each round trip is
what a notebook client does: execute on the shell channel, read iopub until the kernel reports
idle for that request, then take the shell reply.
"""

import json
import sys
import time

from jupyter_client.manager import start_new_kernel

TIMEOUT_S = 120


def run(client, code):
    msg_id = client.execute(code)
    output = []
    while True:
        message = client.get_iopub_msg(timeout=TIMEOUT_S)
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind = message["msg_type"]
        if kind == "stream" and message["content"]["name"] == "stdout":
            output.append(message["content"]["text"])
        elif kind == "execute_result":
            output.append(message["content"]["data"].get("text/plain", ""))
        elif kind == "error":
            raise RuntimeError(f"{code!r} raised {message['content']['ename']}")
        elif kind == "status" and message["content"]["execution_state"] == "idle":
            break
    while True:
        reply = client.get_shell_msg(timeout=TIMEOUT_S)
        if reply["parent_header"].get("msg_id") == msg_id:
            break
    if reply["content"]["status"] != "ok":
        raise RuntimeError(f"{code!r} replied {reply['content']['status']}")
    return "".join(output)


def sample(client, code, accept, warmup, iterations):
    for _ in range(warmup):
        run(client, code)
    samples = []
    for _ in range(iterations):
        started = time.perf_counter()
        output = run(client, code)
        samples.append((time.perf_counter() - started) * 1000)
        if not accept(output):
            raise RuntimeError(f"{code!r} returned {len(output)} characters")
    return samples


def main():
    plan = json.loads(sys.argv[1])
    warmup, iterations = plan["trivial"]
    started = time.perf_counter()
    manager, client = start_new_kernel(kernel_name="python3", startup_timeout=60)
    outputs = {}
    try:
        run(client, "import numpy, pandas, matplotlib.pyplot")  # the same stack as a warm kernel of ours
        run(client, "1")
        start_ms = (time.perf_counter() - started) * 1000
        trivial = sample(client, "1", lambda output: output == "1", warmup, iterations)
        for key, output in plan["outputs"].items():
            enough = output["minChars"]
            accept = lambda text, enough=enough: len(text) >= enough  # noqa: E731
            outputs[key] = sample(client, output["code"], accept, output["warmup"], output["iterations"])
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    result = {"startToFirstCellMs": start_ms, "trivialMs": trivial, "outputsMs": outputs}
    print("BENCH_RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()

"""Errors as data: name, value and a traceback that starts at the user's own code, each capped
like the cell's output (an exception can carry any amount of text)."""

import traceback

from capture import cap_text

CELL_PREFIX = "<cell-"
MAX_FRAMES = 30
MAX_NAME = 200


def describe(error, limit):
    name = type(error).__name__[:MAX_NAME]
    try:
        value = str(error)
    except Exception:  # a broken __str__ must not take the driver down
        value = "<unprintable error>"
    try:
        if isinstance(error, SyntaxError):
            lines = traceback.format_exception_only(type(error), error)
        else:
            tb = error.__traceback__
            while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(CELL_PREFIX):
                tb = tb.tb_next
            # Chained context (pandas raising inside its own except block) hides the point; show the last error.
            lines = traceback.format_exception(type(error), error, tb, limit=-MAX_FRAMES, chain=False)
        text = "".join(lines)
    except Exception:  # noqa: BLE001 - a hostile exception must not take the driver down either
        text = f"{name}: {value}\n"
    return {"name": name, "value": cap_text(value, limit), "traceback": cap_text(text, limit)}

"""Errors as data: name, value and a traceback that starts at the user's own code."""

import traceback

CELL_PREFIX = "<cell-"
MAX_FRAMES = 30


def describe(error):
    name = type(error).__name__
    try:
        value = str(error)
    except Exception:  # a broken __str__ must not take the driver down
        value = "<unprintable error>"
    if isinstance(error, SyntaxError):
        lines = traceback.format_exception_only(type(error), error)
        return {"name": name, "value": value, "traceback": "".join(lines)}
    tb = error.__traceback__
    while tb is not None and not tb.tb_frame.f_code.co_filename.startswith(CELL_PREFIX):
        tb = tb.tb_next
    # Chained context (pandas raising inside its own except block) hides the point; show the last error.
    lines = traceback.format_exception(type(error), error, tb, limit=-MAX_FRAMES, chain=False)
    return {"name": name, "value": value, "traceback": "".join(lines)}

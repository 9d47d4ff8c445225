"""How a cell's last expression and its matplotlib figures are shown to people and to the model."""

import io
import sys

from chart_finish import finish_figure

MAX_ROWS = 20
MAX_COLUMNS = 20
MAX_TEXT = 20000
MAX_FIGURES = 10
MAX_FIGURE_BYTES = 8 * 1024 * 1024


def loaded(name):
    """The module if it is fully imported. The driver imports the analysis stack on a background
    thread after "ready", so sys.modules may hold one still initialising: a cell cannot have used it
    (its own import waits on the import lock), so it counts as not loaded."""
    module = sys.modules.get(name)
    if module is None or getattr(getattr(module, "__spec__", None), "_initializing", False):
        return None
    return module


def _frame_text(value, pandas):
    with pandas.option_context("display.width", 200, "display.max_colwidth", 60):
        text = value.to_string(max_rows=MAX_ROWS, max_cols=MAX_COLUMNS)
    rows, columns = value.shape
    return f"{text}\n\n[{rows} rows x {columns} columns]", [rows, columns]


def display(value):
    """The value as {type, text, shape?}, like IPython's Out[n] but plain text."""
    kind = type(value).__name__
    shape = None
    pandas = loaded("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        text, shape = _frame_text(value, pandas)
    elif pandas is not None and isinstance(value, pandas.Series):
        with pandas.option_context("display.max_rows", MAX_ROWS, "display.width", 200):
            text = repr(value)
        shape = [len(value)]
        if len(value) > MAX_ROWS:
            text += f"\n[{len(value)} rows]"
    else:
        text = repr(value)
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT // 2] + f"\n... [{len(text) - MAX_TEXT} characters omitted] ...\n" + text[-MAX_TEXT // 2 :]
    shown = {"type": kind, "text": text}
    if shape is not None:
        shown["shape"] = shape
    return shown


def collect_figures(encode):
    """Every open matplotlib figure as PNG (encoded by `encode`), then closes them all."""
    pyplot = loaded("matplotlib.pyplot")
    if pyplot is None:
        return [], 0
    numbers = pyplot.get_fignums()
    if not numbers:
        return [], 0
    figures = []
    for number in numbers[:MAX_FIGURES]:
        figure = pyplot.figure(number)
        finish_figure(figure)
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        if buffer.tell() > MAX_FIGURE_BYTES:
            continue  # counted as dropped below
        width, height = figure.get_size_inches() * 100
        shown = {"png": encode(buffer.getvalue()), "width": int(width), "height": int(height)}
        shown.update(describe_figure(figure))
        figures.append(shown)
    pyplot.close("all")
    return figures, len(numbers) - len(figures)


def describe_figure(figure):
    """The figure's title and a one-line description (its axes' titles and labels) for alt text."""
    try:
        suptitle = figure._suptitle.get_text() if getattr(figure, "_suptitle", None) else ""
        parts = []
        titles = []
        for axes in figure.get_axes()[:4]:
            title = axes.get_title().strip()
            labels = [f"{name} axis: {text}" for name, text in (("x", axes.get_xlabel()), ("y", axes.get_ylabel())) if text.strip()]
            if title:
                titles.append(title)
            parts.append("; ".join(([f"'{title}'"] if title else []) + labels))
        title = (suptitle or (titles[0] if titles else "")).strip()[:120]
        description = " | ".join(part for part in parts if part)[:400]
        described = {}
        if title:
            described["title"] = title
        if description:
            described["description"] = f"Chart {description}"
        return described
    except Exception:  # noqa: BLE001 - a figure that cannot describe itself is still shown
        return {}


def close_figures():
    """Closes every figure, after rendering them was interrupted or failed."""
    pyplot = loaded("matplotlib.pyplot")
    if pyplot is not None:
        try:
            pyplot.close("all")
        except Exception:  # noqa: BLE001, S110 - nothing more to do about figures that cannot close
            pass

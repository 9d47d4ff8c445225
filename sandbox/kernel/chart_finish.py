"""Finishing touches on a chart before it is shown, for what a style file cannot know: the data.

Shares (every value between 0 and 1, on an axis or title that names a rate, share, proportion or
percentage) get percent ticks; bar charts with few bars get their values written on the bars. Only
what the cell left at matplotlib's defaults is changed: a formatter or labels the code set itself
stay as they are.
"""

import re

MAX_LABELLED_BARS = 12
SHARE_WORDS = re.compile(r"\b(rate|rates|share|shares|proportion|fraction|percent|percentage|pct)\b|%", re.IGNORECASE)


def finish_figure(figure):
    """Applies the finishing touches to every axes of `figure`; never raises."""
    for axes in figure.get_axes():
        try:
            _finish_axes(axes)
        except Exception:  # noqa: BLE001, S112 - a chart that cannot be finished is shown as drawn
            continue


def _finish_axes(axes):
    from matplotlib.container import BarContainer
    from matplotlib.ticker import PercentFormatter, ScalarFormatter

    bars = [container for container in axes.containers if isinstance(container, BarContainer)]
    horizontal = any(getattr(container, "orientation", "vertical") == "horizontal" for container in bars)
    value_axis = axes.xaxis if horizontal else axes.yaxis
    label = axes.get_xlabel() if horizontal else axes.get_ylabel()
    values = _values(axes, bars, horizontal)
    named_share = bool(SHARE_WORDS.search(f"{axes.get_title()} {label}"))
    share = named_share and values and all(0 <= value <= 1 for value in values)
    if share and type(value_axis.get_major_formatter()) is ScalarFormatter:
        value_axis.set_major_formatter(PercentFormatter(1.0, decimals=0))
    count = sum(len(container) for container in bars)
    if bars and count <= MAX_LABELLED_BARS and not axes.texts:
        text = "{:.1%}" if share else _plain_format(values)
        for container in bars:
            # Labels given as text: matplotlib before 3.7 takes only %-style formats.
            labels = [text.format(float(value)) for value in container.datavalues]
            axes.bar_label(container, labels=labels, padding=3, fontsize=9)
        axes.margins(**({"x": 0.12} if horizontal else {"y": 0.12}))


def _values(axes, bars, horizontal):
    """The data values the value axis shows: bar lengths, else the lines' values."""
    if bars:
        values = []
        for container in bars:
            values.extend(container.datavalues)
        return [float(value) for value in values]
    values = []
    for line in axes.get_lines():
        data = line.get_xdata() if horizontal else line.get_ydata()
        values.extend(float(value) for value in data)
    return values


def _plain_format(values):
    """Whole numbers as such, others with as few decimals as keep them apart."""
    if all(float(value).is_integer() for value in values):
        return "{:,.0f}"
    return "{:,.2f}" if max(abs(value) for value in values) < 100 else "{:,.1f}"

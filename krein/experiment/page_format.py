"""How the report page and its figures write values: numbers, times, parameters, HTML.

The small formatting functions every part of a comparison's report page shares
(:mod:`krein.experiment.page`, :mod:`krein.experiment.page_results`,
:mod:`krein.experiment.page_protocol`, :mod:`krein.experiment.page_diagnosis`)
and its figures (:mod:`krein.experiment.page_figures`): numbers for humans
(:func:`number`, :func:`percent`, :func:`seconds`, :func:`duration`,
:func:`timestamp`), parameters (:func:`param_value`, :func:`param_list`,
:func:`kernel_label`, :func:`json_object`), HTML pieces (:func:`escape`,
:func:`missing`, :func:`fact`, :func:`png_image`) and the class colours of the
page and the figures (:data:`CLASS_COLORS`).  A missing value is written "–".
"""

from __future__ import annotations

import base64
import html
import json
import math
from datetime import datetime

import numpy as np

__all__ = ["CLASS_COLORS", "number", "param_value", "param_list", "json_object", "kernel_label",
           "percent", "duration", "seconds", "timestamp", "escape", "missing", "fact",
           "png_image"]

#: Colours of the classes: matplotlib's tab10, for the swatches of the page and the
#: points of the decision-boundary figure.
CLASS_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                "#e377c2", "#7f7f7f", "#bcbd22", "#17becf")


# --------------------------------------------------------------------------- numbers
def number(v, digits=3):
    """A number for humans: ``digits`` significant digits, '–' when missing.

    Parameters
    ----------
    v : object
        The value: a number (int, float, NumPy scalar), None, a bool, or any
        other value.
    digits : int, default=3
        Significant digits; a number from 1 to 1e6 keeps all its integer digits
        (2521, not 2.52e+03).

    Returns
    -------
    str
        "–" for None and NaN, "∞"/"−∞" for infinities, an integral value below
        1e6 without decimals, a bool or a value that is not a number as ``str``.
    """
    if v is None or isinstance(v, bool):
        return "–" if v is None else str(v)
    try:
        x = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(x):
        return "–"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x == int(x) and abs(x) < 1e6:
        return str(int(x))
    if 1 <= abs(x) < 1e6:  # no exponent for numbers a reader reads whole: 2521, not 2.52e+03
        digits = max(digits, int(math.log10(abs(x))) + 1)
    return f"{x:.{digits}g}"


def percent(x, digits=1):
    """A rate in [0, 1] as a percentage without the sign, '–' when missing.

    Parameters
    ----------
    x : float or None
        The rate.
    digits : int, default=1
        Decimals.

    Returns
    -------
    str
        ``100 * x`` with ``digits`` decimals; "–" for None, NaN or inf.
    """
    return "–" if x is None or not np.isfinite(x) else f"{100 * x:.{digits}f}"


def seconds(v):
    """A short time (a fit's) in ms or s, two significant digits, '–' when missing.

    Parameters
    ----------
    v : float or None
        The time in seconds.

    Returns
    -------
    str
        ``"4.2 ms"`` below 0.01 s, ``"0.35 s"`` below 10 s, ``"12 s"`` above;
        "–" for None, NaN or inf.
    """
    if v is None or not np.isfinite(v):
        return "–"
    if v < 0.01:
        return f"{v * 1000:.2g} ms"
    return f"{v:.2g} s" if v < 10 else f"{v:.0f} s"


def duration(seconds):
    """A run time in s, min and s, or h and min.

    Parameters
    ----------
    seconds : float or str or None
        The time in seconds, as ``run.json`` records it.

    Returns
    -------
    str
        ``"8.5 s"``, ``"42 s"``, ``"3 min 5 s"`` or ``"1 h 12 min"``; "not
        recorded" for a value that is not a finite number.
    """
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return "not recorded"
    if not math.isfinite(s):
        return "not recorded"
    if s < 60:
        return f"{s:.3g} s" if s < 10 else f"{s:.0f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(round(s % 60))} s"
    return f"{int(s // 3600)} h {int(round(s % 3600 / 60))} min"


def timestamp(text):
    """An ISO 8601 time as ``YYYY-MM-DD HH:MM``, with " UTC" when it is in UTC.

    Parameters
    ----------
    text : str or None
        The time as ``run.json`` records it (``created``).

    Returns
    -------
    str
        The time to the minute; "not recorded" when empty, the text itself when
        it is not an ISO 8601 time.
    """
    if not text:
        return "not recorded"
    try:
        t = datetime.fromisoformat(str(text).replace("Z", "+00:00"))
    except ValueError:
        return str(text)
    zone = " UTC" if t.utcoffset() is not None and t.utcoffset().total_seconds() == 0 else ""
    return t.strftime("%Y-%m-%d %H:%M") + zone


# --------------------------------------------------------------------------- parameters
def param_value(v):
    """A parameter value: numbers with 4 significant digits, lists and dicts as JSON.

    Parameters
    ----------
    v : object
        The value (float, list, tuple, dict, None or any other value).

    Returns
    -------
    str
        A float by :func:`number` with 4 digits, lists as ``[a, b]``, dicts as
        ``{k: v}`` (values formatted alike), None as "none", else ``str``.
    """
    if isinstance(v, float):
        return number(v, 4)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(param_value(u) for u in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {param_value(u)}" for k, u in v.items()) + "}"
    if v is None:
        return "none"
    return str(v)


def param_list(d, sep=", "):
    """Parameters as ``name=value`` pairs (:func:`param_value`).

    Parameters
    ----------
    d : dict
        Parameter name -> value.
    sep : str, default=", "
        Text between the pairs.

    Returns
    -------
    str
        The pairs in the order of ``d``.
    """
    return sep.join(f"{k}={param_value(v)}" for k, v in d.items())


def json_object(text):
    """The JSON object of a CSV cell (e.g. ``best_params``).

    Parameters
    ----------
    text : str or object
        The cell.

    Returns
    -------
    dict or None
        The object; ``{}`` for an empty cell or one that is not a string; None
        when the text is not JSON or not a JSON object.
    """
    if not isinstance(text, str) or not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def kernel_label(data):
    """The kernel of a comparison with its parameters, as ``name(k=v, ...)``.

    Parameters
    ----------
    data : dict
        The ``data`` entry of ``run.json`` (``kernel``, ``kernel_params``).

    Returns
    -------
    str
        ``"sigmoid(a=1, r=-1)"``, the name alone without parameters, or
        "kernel not recorded".
    """
    kernel = data.get("kernel")
    if not kernel:
        return "kernel not recorded"
    params = data.get("kernel_params") or {}
    return f"{kernel}({param_list(params)})" if params else str(kernel)


# --------------------------------------------------------------------------- HTML
def escape(text):
    """A text as HTML: ``&``, ``<``, ``>`` and both quotes escaped.

    Parameters
    ----------
    text : object
        The text (any value, written by ``str``).

    Returns
    -------
    str
        :func:`html.escape` of ``str(text)`` with ``quote=True``.
    """
    return html.escape(str(text), quote=True)


def missing(text="not recorded"):
    """The HTML of a value the files do not hold, muted and in italics.

    Parameters
    ----------
    text : str, default="not recorded"
        What to write.

    Returns
    -------
    str
        A ``<span class="missing">`` holding the escaped text.
    """
    return f'<span class="missing">{escape(text)}</span>'


def fact(label, value_html):
    """One fact of a ``<dl class="facts">`` list: a ``<dt>``/``<dd>`` pair.

    Parameters
    ----------
    label : str
        The label (escaped).
    value_html : str
        The value, already HTML.

    Returns
    -------
    str
        ``<dt>label</dt><dd>value_html</dd>``.
    """
    return f"<dt>{escape(label)}</dt><dd>{value_html}</dd>"


def png_image(png, alt):
    """An ``<img>`` that embeds a PNG image as a base64 data URI.

    Parameters
    ----------
    png : bytes
        The PNG file's bytes.
    alt : str
        The alternative text (escaped).

    Returns
    -------
    str
        ``<img src="data:image/png;base64,..." alt="...">``.
    """
    data = base64.b64encode(png).decode("ascii")
    return f'<img src="data:image/png;base64,{data}" alt="{escape(alt)}">'

"""Printed numbers that are the same on every machine: the display policy of the notebooks.

A notebook cell marked ``# NBVAL_CHECK_OUTPUT`` is compared as text by nbval. A float
formatted to a few digits is only reproducible when it is not within a few ulps of a
rounding tie: ``400 * 1.0825e-3 / 4`` is 0.10825 or one bit either side depending on the
order of operations and the BLAS, and its 4th digit then prints as 2 on one machine and
3 on another. The policy here, applied by :func:`install` to every cell of a notebook:

1. every float is first rounded to :data:`SIGNIFICANT` (12) significant digits — far
   below any model's accuracy, far above any printed precision — so the last bits of
   the arithmetic no longer reach the printed digits;
2. the rounded value is then formatted as the cell asked (``f"{v:.1f}"``, pandas'
   tables, a bare float);
3. in a checked cell, a rounded value that sits on a tie of the printed precision
   (``108.25`` printed with ``.1f``), or within :data:`TIE_TOLERANCE` of one, raises
   :class:`DisplayTie`: its printed digit would hang on a rounding rule or on the 8th
   digit of a fit rather than on the value, so the cell must print one more digit.
   nbval then fails on that cell, naming the value and the format.

:func:`install` does this inside IPython: an AST transformer routes every f-string
replacement field that has a format spec through :func:`robust`, and the plain-text
and HTML formatters of floats, pandas Series and DataFrames round before they print.

This module sits beside the layers; it imports nothing of zmodel, and pandas and IPython
only inside the functions that need them.
"""
from __future__ import annotations

import ast
import re
from decimal import Decimal, localcontext
from numbers import Real

__all__ = ["SIGNIFICANT", "TIE_TOLERANCE", "DisplayTie", "robust", "Shown", "is_tie", "install", "CHECK_MARKER"]

#: significant digits kept before a number is formatted for display
SIGNIFICANT = 12

#: how close (relative) to a rounding tie a checked number may not come: fitted values differ
#: between machines in about the 8th significant digit (optimizer tolerances, BLAS order)
TIE_TOLERANCE = 1e-8

#: the nbval marker of a cell whose printed output is compared as text
CHECK_MARKER = "NBVAL_CHECK_OUTPUT"

# [[fill]align][sign][z][#][0][width][grouping][.precision][type] (format-spec mini-language)
_SPEC = re.compile(r"^(?:.?[<>=^])?[+\- ]?z?#?0?\d*[,_]?(?:\.(?P<precision>\d+))?(?P<type>[eEfFgGn%])?$")


class DisplayTie(ValueError):
    """A checked number sits exactly on a rounding tie of its printed precision."""


def robust(value):
    """A float rounded to :data:`SIGNIFICANT` significant digits, as a :class:`Shown`.

    Anything that is not a real floating-point number (int, bool, str, None, arrays) is
    returned unchanged; NaN and infinities are kept.

    Examples
    --------
    >>> robust(0.1 + 0.2)
    0.3
    >>> robust(108.24999999999999) == 108.25
    True
    >>> robust(7)
    7
    """
    if isinstance(value, bool) or not isinstance(value, Real) or isinstance(value, int):
        return value
    try:
        import numpy as np
        if isinstance(value, np.integer):
            return value
    except ImportError:  # pragma: no cover - numpy is a dependency
        pass
    x = float(value)
    if x != x or x in (float("inf"), float("-inf")) or x == 0.0:
        return Shown(x + 0.0)
    return Shown(float(f"{x:.{SIGNIFICANT - 1}e}"))


def _quantum(value: Decimal, precision: int | None, kind: str | None) -> Decimal | None:
    """The unit of the last printed digit of *value* under a format spec, or None."""
    if kind in ("f", "F", "%"):
        return Decimal(1).scaleb(-(6 if precision is None else precision))
    if kind in ("e", "E"):
        digits = (6 if precision is None else precision) + 1
    elif kind in ("g", "G", "n") or (kind is None and precision is not None):
        digits = max(1, 6 if precision is None else precision)
    else:
        return None  # no precision asked: the shortest repr, exact by construction
    return Decimal(1).scaleb(value.adjusted() - digits + 1)


def is_tie(value: float, spec: str, rtol: float = 0.0) -> bool:
    """True when *value* lies halfway between two outputs of ``format(value, spec)``.

    The test is made on the decimal expansion of the (already rounded) value, so it does
    not depend on binary representation: ``108.25`` with ``.1f`` is a tie, ``108.26`` is
    not, and neither is any value printed with all its digits. With *rtol* > 0, a value
    within ``rtol * |value|`` of the halfway point counts as a tie too (a near tie: one
    that a machine computing the value slightly differently would print the other way),
    as long as that window is narrower than half the printed unit; a value printed to
    finer than its tolerance counts only when it sits exactly on the tie.

    Examples
    --------
    >>> is_tie(108.25, ".1f"), is_tie(108.26, ".1f"), is_tie(0.125, ".3f")
    (True, False, False)
    >>> is_tie(0.0125, ".2g"), is_tie(0.3, ".1%"), is_tie(0.0015, ".1%")
    (True, False, True)
    >>> is_tie(108.2500001, ".1f"), is_tie(108.2500001, ".1f", rtol=1e-8)
    (False, True)
    """
    match = _SPEC.match(spec)
    x = float(value)
    if match is None or x != x or x in (float("inf"), float("-inf")) or x == 0.0:
        return False
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(repr(x))
        kind = match["type"]
        if kind == "%":
            exact *= 100
        precision = None if match["precision"] is None else int(match["precision"])
        quantum = _quantum(exact, precision, kind)
        if quantum is None:
            return False
        distance = abs(abs(exact / quantum) % 1 - Decimal("0.5")) * quantum
        tolerance = Decimal(repr(float(rtol))) * abs(exact)
        if 2 * tolerance >= quantum:
            tolerance = Decimal(0)  # printed finer than the tolerance: only exact ties count
        return distance <= tolerance


class Shown(float):
    """A float rounded for display; formatting it in a checked cell refuses rounding ties.

    ``format(Shown(x), spec)`` is ``format(float(x), spec)``, except that a zero printed
    with a sign (``-0.0``) loses it, and, while :func:`checking` is on, a value on a tie
    of *spec* raises :class:`DisplayTie`.
    """

    __slots__ = ()

    def __format__(self, spec: str) -> str:
        if _state["checking"] and spec and is_tie(self, spec, TIE_TOLERANCE):
            raise DisplayTie(
                f"{float(self)!r} printed with format '{spec}' sits on a rounding tie (within "
                f"{TIE_TOLERANCE:g} relative): "
                f"its last digit depends on the rounding rule, not the value; print one more digit")
        text = float.__format__(self, spec)
        mantissa = text.lower().split("e")[0]
        if "-" in mantissa and not any(c in "123456789" for c in mantissa):
            text = float.__format__(abs(self), spec)  # a zero printed with a sign: -0.0 -> 0.0
        return text

    def __repr__(self) -> str:
        return float.__repr__(self)


_state = {"checking": False}


def checking(on: bool | None = None) -> bool:
    """Turn the tie check on or off (when *on* is given); return whether it is on."""
    if on is not None:
        _state["checking"] = bool(on)
    return _state["checking"]


class _RobustFields(ast.NodeTransformer):
    """Route every f-string replacement field that has a format spec through ``robust``."""

    name = "__zmodel_robust__"

    def visit_FormattedValue(self, node: ast.FormattedValue) -> ast.AST:
        self.generic_visit(node)
        if node.format_spec is not None:
            node.value = ast.Call(func=ast.Name(id=self.name, ctx=ast.Load()), args=[node.value],
                                  keywords=[])
        return node


def _frame_rounded(obj):
    """A copy of a pandas Series or DataFrame with float columns rounded for display."""
    import numpy as np
    import pandas as pd

    def column(series):
        if not pd.api.types.is_float_dtype(series.dtype):
            return series
        rounded = np.array([float(robust(v)) for v in series.to_numpy(dtype=float)], dtype=float)
        _check_frame_ties(rounded, series.name)
        return pd.Series(rounded + 0.0, index=series.index, name=series.name)

    if isinstance(obj, pd.DataFrame):
        out = obj.copy()
        for position in range(out.shape[1]):
            out.isetitem(position, column(out.iloc[:, position]))
        return out
    return column(obj)


def _check_frame_ties(values, name) -> None:
    if not _state["checking"]:
        return
    import pandas as pd

    decimals = int(pd.get_option("display.precision"))
    for v in values:
        if v == v and 1e-4 <= abs(v) < 1e15 and is_tie(v, f".{decimals}f"):
            raise DisplayTie(f"column {name!r}: {v!r} printed with {decimals} decimals sits on a "
                             f"rounding tie; format that column with one more digit")


def install(shell=None) -> None:
    """Apply the display policy to an IPython shell (the running one by default).

    Idempotent. Every later cell of the notebook has its f-string numbers rounded by
    :func:`robust`; floats, pandas Series and DataFrames print rounded; cells marked
    ``# NBVAL_CHECK_OUTPUT`` refuse rounding ties (:class:`DisplayTie`).
    """
    if shell is None:
        from IPython import get_ipython

        shell = get_ipython()
        if shell is None:
            raise RuntimeError("zmodel.digits.install() needs a running IPython shell (a notebook)")
    import pandas as pd

    shell.user_ns[_RobustFields.name] = robust
    if not any(isinstance(t, _RobustFields) for t in shell.ast_transformers):
        shell.ast_transformers.append(_RobustFields())

    def before(info) -> None:
        checking(CHECK_MARKER in (info.raw_cell or ""))

    def after(result) -> None:
        checking(False)

    events = shell.events
    for name, callback in (("pre_run_cell", before), ("post_run_cell", after)):
        if not any(getattr(cb, "__qualname__", "") == callback.__qualname__ for cb in events.callbacks[name]):
            events.register(name, callback)

    plain = shell.display_formatter.formatters["text/plain"]
    html_formatter = shell.display_formatter.formatters["text/html"]
    plain.for_type(float, lambda value, printer, cycle: printer.text(repr(robust(value))))
    for kind in (pd.Series, pd.DataFrame):
        plain.for_type(kind, lambda obj, printer, cycle: printer.text(repr(_frame_rounded(obj))))
    html_formatter.for_type(pd.DataFrame, lambda obj: _frame_rounded(obj)._repr_html_())

"""Exact symbolic forms (SymPy) of the closed-form queueing and scalability models.

Each function returns a :class:`SymbolicModel`: the symbols (keyed by the numeric
functions' parameter names) and a dict of :class:`sympy.Expr` keyed by the same
metric names as the numeric results (``utilization``, ``waiting_probability``,
``waiting_time``, ``response_time``, ``queue_length``, ``throughput``, ...). They
are meant for notebooks (equations rendered with ``sympy.latex``) and for exact
conformance tests of the numeric code in Rational arithmetic.

SymPy is imported inside the functions, never at import time of ``zmodel``.

>>> from zmodel.queueing import symbolic
>>> m = symbolic.mm1()
>>> m.metrics["response_time"]
service_time/(-arrival_rate*service_time + 1)
>>> m.evaluate(arrival_rate=1, service_time="1/2")["queue_length"]
1
"""
from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Any

__all__ = ["SymbolicModel", "mm1", "mmc", "mg1", "usl", "amdahl"]


@dataclasses.dataclass(frozen=True)
class SymbolicModel:
    """Symbols and metric expressions of one model.

    Attributes
    ----------
    symbols : dict[str, sympy.Symbol]
        Parameter name (as in the numeric function) -> symbol.
    metrics : dict[str, sympy.Expr]
        Metric name (as in the numeric result) -> expression in ``symbols``.
    conditions : tuple[sympy.Expr, ...]
        Validity domain, e.g. ``rho < 1``.
    """

    symbols: dict
    metrics: dict
    conditions: tuple = ()

    def evaluate(self, **values: Any) -> dict:
        """Substitute exact values and return ``{metric: sympy number}``.

        Values may be ints, :class:`fractions.Fraction`, strings such as ``"3/7"``
        or SymPy numbers; floats are converted exactly (``sympy.Rational(0.1)`` is
        the binary double, not 1/10), so pass rationals for exact results.
        Unknown names raise ``ValueError``.
        """
        import sympy as sp

        unknown = set(values) - set(self.symbols)
        if unknown:
            raise ValueError(f"unknown parameter(s) {sorted(unknown)}; expected some of {sorted(self.symbols)}")
        subs = {}
        for name, v in values.items():
            if isinstance(v, Fraction):
                v = sp.Rational(v.numerator, v.denominator)
            subs[self.symbols[name]] = sp.Rational(v) if isinstance(v, (int, float, str)) else sp.sympify(v)
        return {k: sp.simplify(e.subs(subs).doit()) for k, e in self.metrics.items()}

    def latex(self) -> dict:
        """``{metric: LaTeX string}`` for display."""
        import sympy as sp

        return {k: sp.latex(e) for k, e in self.metrics.items()}


def _positive_symbols(*names):
    import sympy as sp

    return {n: sp.Symbol(n, positive=True) for n in names}


def mm1() -> SymbolicModel:
    r"""M/M/1 closed forms.

    Returns
    -------
    SymbolicModel
        Symbols ``arrival_rate`` (lambda) [1/s] and ``service_time`` (S) [s];
        metrics ``utilization`` rho = lambda S, ``waiting_probability`` rho,
        ``waiting_time`` rho S/(1-rho), ``response_time`` S/(1-rho),
        ``queue_length`` rho/(1-rho), ``queue_waiting`` rho^2/(1-rho),
        ``throughput`` lambda.

    Notes
    -----
    .. math:: R = \frac{S}{1 - \lambda S}, \quad Q = \lambda R, \quad \rho < 1 .

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975,
       §3.2 (M/M/1).
    .. [2] E. D. Lazowska et al., *Quantitative System Performance*,
       Prentice-Hall, 1984, ch. 6 (single-class open model, R_k = D_k/(1-U_k)).

    Examples
    --------
    >>> mm1().evaluate(arrival_rate=2, service_time="1/4")["waiting_time"]
    1/4
    """
    s = _positive_symbols("arrival_rate", "service_time")
    lam, st = s["arrival_rate"], s["service_time"]
    rho = lam * st
    metrics = {
        "utilization": rho,
        "waiting_probability": rho,
        "waiting_time": rho * st / (1 - rho),
        "response_time": st / (1 - rho),
        "queue_length": rho / (1 - rho),
        "queue_waiting": rho**2 / (1 - rho),
        "throughput": lam,
    }
    return SymbolicModel(s, metrics, (rho < 1,))


def _erlang_c_explicit(a, c: int):
    """Erlang C as an explicit rational function of the offered load a, integer c."""
    import sympy as sp

    top = a**c / sp.factorial(c)
    rho = a / c
    partial = sum(a**k / sp.factorial(k) for k in range(c))
    return top / ((1 - rho) * partial + top)


def mmc(servers: int | None = None) -> SymbolicModel:
    r"""M/M/c closed forms with the Erlang C waiting probability.

    Parameters
    ----------
    servers : int, optional
        A positive integer c gives the Erlang C sum written out term by term (a
        rational function of lambda and S); ``None`` keeps c as an integer
        symbol ``servers`` with an unevaluated :class:`sympy.Sum` [1].

    Returns
    -------
    SymbolicModel
        Symbols ``arrival_rate`` [1/s], ``service_time`` [s] (and ``servers``);
        metrics ``utilization`` a/c with a = lambda S, ``waiting_probability``
        C(c, a), ``waiting_time``, ``response_time``, ``queue_length``,
        ``queue_waiting`` (lambda W), ``throughput``.

    Notes
    -----
    .. math::

        C(c, a) = \frac{\frac{a^c}{c!}}{(1-\rho)\sum_{k=0}^{c-1}\frac{a^k}{k!}
        + \frac{a^c}{c!}},\quad
        W = \frac{C(c, a)\, S}{c (1 - \rho)},\quad R = W + S,\quad Q = \lambda R,

    with :math:`\rho = a/c < 1`.

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975,
       §3.5 (M/M/m), eq. (3.40) for the probability of queueing (Erlang C).
    .. [2] D. Gross, J. F. Shortle, J. M. Thompson, C. M. Harris,
       *Fundamentals of Queueing Theory*, 4th ed., Wiley, 2008, §2.3.

    Examples
    --------
    >>> m = mmc(2)
    >>> m.evaluate(arrival_rate=1, service_time=1)["waiting_probability"]   # C(2, 1)
    1/3
    """
    import sympy as sp

    s = _positive_symbols("arrival_rate", "service_time")
    lam, st = s["arrival_rate"], s["service_time"]
    a = lam * st
    if servers is None:
        c = sp.Symbol("servers", integer=True, positive=True)
        k = sp.Symbol("k", integer=True, nonnegative=True)
        top = a**c / sp.factorial(c)
        pw = top / ((1 - a / c) * sp.Sum(a**k / sp.factorial(k), (k, 0, c - 1)) + top)
        s = dict(s, servers=c)
    else:
        if isinstance(servers, bool) or int(servers) != servers or servers < 1:
            raise ValueError(f"servers must be a positive integer, got {servers!r}")
        c = int(servers)
        pw = _erlang_c_explicit(a, c)
    rho = a / c
    w = pw * st / (c * (1 - rho))
    r = w + st
    metrics = {
        "utilization": rho,
        "waiting_probability": pw,
        "waiting_time": w,
        "response_time": r,
        "queue_length": lam * r,
        "queue_waiting": lam * w,
        "throughput": lam,
    }
    return SymbolicModel(s, metrics, (rho < 1,))


def mg1() -> SymbolicModel:
    r"""M/G/1 closed forms (Pollaczek-Khinchine mean value formula).

    Returns
    -------
    SymbolicModel
        Symbols ``arrival_rate`` [1/s], ``service_time`` (mean S) [s] and
        ``service_scv`` (squared coefficient of variation of service, c_s^2 >= 0)
        [1]; metrics ``utilization``, ``waiting_probability`` (= rho, by PASTA),
        ``waiting_time``, ``response_time``, ``queue_length``,
        ``queue_waiting`` (lambda W), ``throughput``.

    Notes
    -----
    .. math::

        W = \frac{\rho S (1 + c_s^2)}{2 (1 - \rho)} = \frac{\lambda E[S^2]}{2(1-\rho)},
        \quad R = W + S,\quad Q = \lambda R,\quad \rho = \lambda S < 1 .

    References
    ----------
    .. [1] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975,
       §5.6, eq. (5.74)-(5.76) (Pollaczek-Khinchine mean value formula).

    Examples
    --------
    >>> mg1().evaluate(arrival_rate=1, service_time="1/2", service_scv=0)["waiting_time"]  # M/D/1
    1/4
    """
    import sympy as sp

    s = _positive_symbols("arrival_rate", "service_time")
    s["service_scv"] = sp.Symbol("service_scv", nonnegative=True)
    lam, st, cs2 = s["arrival_rate"], s["service_time"], s["service_scv"]
    rho = lam * st
    w = rho * st * (1 + cs2) / (2 * (1 - rho))
    r = w + st
    metrics = {
        "utilization": rho,
        "waiting_probability": rho,
        "waiting_time": w,
        "response_time": r,
        "queue_length": lam * r,
        "queue_waiting": lam * w,
        "throughput": lam,
    }
    return SymbolicModel(s, metrics, (rho < 1,))


def usl() -> SymbolicModel:
    r"""Universal Scalability Law: throughput, relative capacity and peak.

    Returns
    -------
    SymbolicModel
        Symbols ``concurrency`` (N) [1], ``sigma`` [1], ``kappa`` [1],
        ``lambda_`` [1/s]; metrics ``throughput`` X(N), ``relative_capacity``
        C(N) = X(N)/X(1), ``peak_concurrency`` N* = sqrt((1 - sigma)/kappa) and
        ``peak_throughput`` X(N*).

    Notes
    -----
    .. math:: X(N) = \frac{\lambda N}{1 + \sigma (N-1) + \kappa N (N-1)}

    References
    ----------
    .. [1] N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007, ch. 4
       (universal scalability model and its maximum). doi:10.1007/978-3-540-31010-5.

    Examples
    --------
    >>> usl().evaluate(concurrency=4, sigma="1/50", kappa="1/50", lambda_=1)["throughput"]
    40/13
    """
    import sympy as sp

    s = {"concurrency": sp.Symbol("concurrency", nonnegative=True),
         "sigma": sp.Symbol("sigma", nonnegative=True),
         "kappa": sp.Symbol("kappa", nonnegative=True),
         "lambda_": sp.Symbol("lambda", positive=True)}
    n, sg, kp, lam = s["concurrency"], s["sigma"], s["kappa"], s["lambda_"]
    cap = n / (1 + sg * (n - 1) + kp * n * (n - 1))
    n_star = sp.sqrt((1 - sg) / kp)
    metrics = {
        "throughput": lam * cap,
        "relative_capacity": cap,
        "peak_concurrency": n_star,
        "peak_throughput": lam * cap.subs(n, n_star),
    }
    return SymbolicModel(s, metrics, (sg <= 1,))


def amdahl() -> SymbolicModel:
    r"""Amdahl's law: speedup on p processors with serial fraction s.

    Returns
    -------
    SymbolicModel
        Symbols ``processors`` (p) [1] and ``serial_fraction`` (s) [1]; metric
        ``speedup`` 1/(s + (1 - s)/p).

    References
    ----------
    .. [1] G. M. Amdahl, AFIPS Spring Joint Computer Conference 30, pp. 483-485,
       1967. doi:10.1145/1465482.1465560.

    Examples
    --------
    >>> amdahl().evaluate(processors=16, serial_fraction="1/20")["speedup"]
    64/7
    """
    import sympy as sp

    s = {"processors": sp.Symbol("processors", positive=True),
         "serial_fraction": sp.Symbol("serial_fraction", nonnegative=True)}
    p, sf = s["processors"], s["serial_fraction"]
    return SymbolicModel(s, {"speedup": 1 / (sf + (1 - sf) / p)}, (p >= 1,))

"""Erlang B above the recurrence range (zmodel.queueing.erlang) against 50-digit mpmath.

Above 1000 servers with A <= c, erlang_b evaluates Loader's saddle-point Poisson pmf
(bd0 + Stirling-series error term) over the regularized incomplete gamma. The reference
is B = A^c e^{-A} / Gamma(c+1, A) in 50-digit arithmetic (Kleinrock 1975, Sec. 3.6, with
sum_{k<=c} A^k/k! = e^A Gamma(c+1, A)/c!). Tolerance 2e-12 relative: the module documents
an accuracy of about 1e-13 and the issue measured 6.6e-13 at c = 1e5; a wrong term of the
Stirling series (size 1/(360 c^3) at c = 1001: 5.5e-12) or the cancellation of log(A/c)
near A = c (c * eps = 1.1e-11 at c = 1e5) exceeds it.
"""
import mpmath
import pytest

from zmodel.queueing.erlang import erlang_b


def _b(c: int, a) -> float:
    with mpmath.workdps(50):
        a = mpmath.mpf(a)
        log_b = c * mpmath.log(a) - a - mpmath.log(mpmath.gammainc(c + 1, a))
        return float(mpmath.exp(log_b))


@pytest.mark.parametrize("c,a", [(1001, 500.5), (1001, 990), (1001, 1000), (1200, 1100),
                                 (100_000, 99_990), (100_000, 99_000), (100_000, 99_999.5)])
def test_erlang_b_saddle_point_branch_against_mpmath(c, a):
    assert erlang_b(c, a) == pytest.approx(_b(c, a), rel=2e-12, abs=0)


@pytest.mark.parametrize("c,a", [(10, 1e-30), (15, 1e-20), (3, 1e-100)])
def test_log_erlang_b_of_few_servers_below_the_underflow_threshold(c, a):
    # few servers, B < 1e-280: the recurrence underflows and log B comes from the gamma form
    # with the direct log(n!) - (n + 1/2) log n + n - log sqrt(2 pi) for n <= 15
    import numpy as np

    from zmodel.queueing.erlang import _erlang_b_log

    _, logb = _erlang_b_log(np.array([float(c)]), np.array([a]))
    with mpmath.workdps(50):
        ref = c * mpmath.log(a) - a - mpmath.log(mpmath.gammainc(c + 1, a))
    assert float(logb[0]) == pytest.approx(float(ref), rel=1e-13, abs=0)

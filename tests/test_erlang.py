"""Erlang B and C: published table entries, exact references, stability, errors."""
import math
import warnings
from fractions import Fraction

import mpmath
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import SaturationWarning
from zmodel.queueing.erlang import _erlang_b_log, erlang_b, erlang_c


# ---------------------------------------------------------------- exact references
def exact_b(c: int, a: Fraction) -> Fraction:
    """Erlang's loss formula, textbook form, in exact rational arithmetic."""
    terms = [Fraction(1)]
    for k in range(1, c + 1):
        terms.append(terms[-1] * a / k)
    return terms[-1] / sum(terms)


def exact_c(c: int, a: Fraction) -> Fraction:
    """Erlang's delay formula, textbook form (P0 sum), exact; requires a < c."""
    terms = [Fraction(1)]
    for k in range(1, c + 1):
        terms.append(terms[-1] * a / k)
    tail = terms[c] * c / (c - a)          # A^c/c! * 1/(1 - rho)
    return tail / (sum(terms[:c]) + tail)


def mp_b(c: int, a, dps: int = 60):
    """Erlang B by mpmath: Poisson pmf over the regularized upper incomplete gamma."""
    with mpmath.workdps(dps):
        a = mpmath.mpf(a)
        log_pmf = c * mpmath.log(a) - a - mpmath.loggamma(c + 1)
        return mpmath.exp(log_pmf) / mpmath.gammainc(c + 1, a, mpmath.inf, regularized=True)


# ---------------------------------------------------------------- published examples
def test_erlang_b_table_10_servers_5_erlangs():
    # Classic telephony Erlang B table entry: 10 trunks offered 5 Erl block 0.01838
    # (e.g. V. B. Iversen, "Teletraffic Engineering and Network Planning", ITU-D/DTU,
    # table of Erlang's B-formula; page not checked). 4 significant digits printed.
    assert erlang_b(10, 5.0) == pytest.approx(0.01838, abs=5e-6)
    assert float(exact_b(10, Fraction(5))) == pytest.approx(0.01838, abs=5e-6)


@pytest.mark.parametrize("servers, table_load", [
    (2, 0.1526),    # Erlang B table, 1 % blocking column (Iversen, page not checked)
    (5, 1.3608),
    (10, 4.4612),
    (20, 12.031),
])
def test_erlang_b_table_one_percent_loads(servers, table_load):
    # Published tables give the offered load at which B = 1 %; we invert our function
    # and compare at the printed digits, and check the printed load with exact B.
    from scipy.optimize import brentq

    load = brentq(lambda a: erlang_b(servers, a) - 0.01, 1e-6, servers, xtol=1e-12)
    digits = -math.floor(math.log10(table_load)) + 3        # 5 significant digits printed
    assert load == pytest.approx(table_load, abs=0.5 * 10.0 ** -digits)
    exact = float(exact_b(servers, Fraction(str(table_load))))
    assert exact == pytest.approx(0.01, rel=1e-3)


def test_erlang_c_two_servers_one_erlang_is_one_third():
    # M/M/2 with A = 1: P0 = 1/3 and C = (A^2/2)/(1 - 1/2) * P0 = 1/3 (Kleinrock Vol. 1,
    # Sec. 3.5, Erlang's C formula); exact rational check.
    assert exact_c(2, Fraction(1)) == Fraction(1, 3)
    assert erlang_c(2, 1.0) == pytest.approx(1 / 3, rel=1e-15)


# ---------------------------------------------------------------- exact agreement
@settings(max_examples=80, deadline=None)
@given(c=st.integers(1, 60), num=st.integers(0, 4000), den=st.integers(1, 100))
def test_erlang_b_matches_exact_fraction(c, num, den):
    a = Fraction(num, den)
    assert erlang_b(c, float(a)) == pytest.approx(float(exact_b(c, a)), rel=1e-13, abs=1e-300)


@settings(max_examples=60, deadline=None)
@given(c=st.integers(1, 60), frac=st.fractions(Fraction(0), Fraction(99, 100)))
def test_erlang_c_matches_exact_fraction(c, frac):
    a = frac * c
    with warnings.catch_warnings():
        warnings.simplefilter("error", SaturationWarning)
        assert erlang_c(c, float(a)) == pytest.approx(float(exact_c(c, a)), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("servers", [999, 1000, 1001, 5000, 100_000, 1_000_000])
@pytest.mark.parametrize("ratio", [0.3, 0.9, 0.99, 1.0, 1.001, 1.02, 1.5, 3.0, 100.0])
def test_erlang_b_large_servers_against_mpmath(servers, ratio):
    # The recurrence (<= 1000 servers) and the gamma / series forms (above) must both
    # agree with 60-digit mpmath to 1e-10 relative, including B ~ 1e-236.
    a = servers * ratio
    ref = mp_b(servers, a)
    got = erlang_b(servers, a)
    assert got == pytest.approx(float(ref), rel=1e-10)


def test_erlang_b_log_survives_underflow():
    # B underflows to 0 but log B (used by M/M/c/K) stays accurate.
    c = np.array([500.0, 100_000.0, 2_000.0])
    a = np.array([1.0, 10.0, 3.0])
    b, logb = _erlang_b_log(c, a)
    assert np.all(b == 0.0)
    for ci, ai, lb in zip(c, a, logb):
        with mpmath.workdps(60):
            ref = mpmath.log(mp_b(int(ci), ai))
        assert lb == pytest.approx(float(ref), rel=1e-12)


def test_textbook_float_form_agrees_where_finite():
    # Naive textbook float evaluation (overflows for larger c and A) vs the recurrence.
    for c in (1, 3, 17, 60, 100):
        for a in (0.1, 0.5 * c, float(c), 2.0 * c):
            num = a**c / math.factorial(c)
            den = sum(a**k / math.factorial(k) for k in range(c + 1))
            assert math.isfinite(num) and math.isfinite(den)
            assert erlang_b(c, a) == pytest.approx(num / den, rel=1e-11)


# ---------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(c=st.integers(1, 3000), a=st.floats(0, 5000))
def test_erlang_b_in_unit_interval_and_monotone(c, a):
    b = erlang_b(c, a)
    assert 0.0 <= b <= 1.0
    assert erlang_b(c + 1, a) <= b * (1 + 1e-12)          # more servers, less blocking
    assert erlang_b(c, a * 1.01 + 1e-9) >= b * (1 - 1e-12)  # more load, more blocking


def test_zero_load_gives_zero():
    assert erlang_b(5, 0.0) == 0.0
    assert erlang_c(5, 0.0) == 0.0


def test_subnormal_load_gives_zero_without_a_warning():
    # A = 5e-324 (the smallest float): B(c, A) ~ A^c / c! underflows to 0 for c >= 2; the
    # log-space path takes log(A/c) = log(0) = -inf quietly. B(1, A) = A/(1 + A), which rounds
    # to A itself, subnormal A included (the recurrence's 1/A overflows there; exp(log B) does not)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert erlang_b(3000, 5e-324) == 0.0
        assert erlang_b(2, 5e-324) == 0.0
        assert erlang_b(1, 1e-300) == pytest.approx(1e-300, rel=1e-12)
        assert erlang_b(1, 5e-324) == 5e-324
        assert erlang_b(1, 1e-310) == pytest.approx(1e-310, rel=1e-9)
        assert erlang_c(1, 5e-324) == 5e-324      # C = B / (1 - rho (1 - B)) = A to float precision


def test_broadcasting_and_batches():
    c = np.array([[1], [2], [10]])
    a = np.array([0.5, 1.0, 5.0, 9.0])
    out = erlang_b(c, a)
    assert out.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            ref = float(exact_b(int(c[i, 0]), Fraction(a[j])))
            assert out[i, j] == pytest.approx(ref, rel=1e-13)
    assert isinstance(erlang_b(2, 1.0), float)
    assert erlang_b([1, 2], [1.0, 1.0]).tolist() == pytest.approx([0.5, 0.2])


def test_series_in_series_out():
    loads = pd.Series([1.0, 5.0], index=["low", "high"])
    out = erlang_b(10, loads)
    assert isinstance(out, pd.Series)
    assert list(out.index) == ["low", "high"]
    assert out["high"] == pytest.approx(float(exact_b(10, Fraction(5))), rel=1e-13)
    out_c = erlang_c(pd.Series([2, 3], index=["x", "y"]), 1.0)
    assert list(out_c.index) == ["x", "y"]


def test_erlang_c_relation_to_b():
    # C >= B always; C = B / (1 - rho (1 - B)).
    c, a = 7, 5.5
    b = erlang_b(c, a)
    assert erlang_c(c, a) == pytest.approx(b / (1 - a / c * (1 - b)), rel=1e-15)
    assert erlang_c(c, a) > b


def test_erlang_c_saturation_policy():
    with pytest.warns(SaturationWarning, match="2 Erlang C entries saturated") as rec:
        out = erlang_c([2, 2, 2], [1.0, 2.0, 3.0])
    assert len(rec) == 1
    assert out[0] == pytest.approx(1 / 3)
    assert out[1] == 1.0 and out[2] == 1.0


# The accuracy the docstring of erlang_b documents (and erlang_c inherits), checked against
# 60-digit mpmath at the same grid: rho from 0.1 to 0.999 per server count.
DOCUMENTED_RELATIVE_ERROR = {10: 3e-15, 100: 3e-15, 1000: 3e-15, 5000: 1e-13, 100_000: 9e-13,
                             1_000_000: 1.3e-12}


@pytest.mark.parametrize("c", sorted(DOCUMENTED_RELATIVE_ERROR))
def test_erlang_accuracy_as_documented(c):
    bound = DOCUMENTED_RELATIVE_ERROR[c]
    for rho in (0.1, 0.5, 0.8, 0.9, 0.95, 0.99, 0.995, 0.999):
        a = rho * c
        with mpmath.workdps(60):
            b = mp_b(c, a)
            ref_c = b / (1 - mpmath.mpf(a) / c * (1 - b))
            if b < mpmath.mpf("1e-300"):
                continue  # below the float range: erlang_b underflows to 0 by design
            err_b = abs(mpmath.mpf(float(erlang_b(c, a))) / b - 1)
            err_c = abs(mpmath.mpf(float(erlang_c(c, a))) / ref_c - 1)
        assert err_b <= bound, (c, rho, float(err_b))
        assert err_c <= bound, (c, rho, float(err_c))


def test_erlang_c_large_servers_against_mpmath():
    c, a = 100_000, 99_000.0
    with mpmath.workdps(60):
        b = mp_b(c, a)
        rho = mpmath.mpf(a) / c
        ref = b / (1 - rho * (1 - b))
    assert erlang_c(c, a) == pytest.approx(float(ref), rel=1e-10)


# ---------------------------------------------------------------- errors
def test_error_servers_positive():
    with pytest.raises(ValueError, match=r"servers must be a positive integer, got 0"):
        erlang_b(0, 1.0)


def test_error_servers_integer():
    with pytest.raises(ValueError, match=r"servers must be an integer, got 1.5"):
        erlang_c(1.5, 1.0)


def test_error_load_negative():
    with pytest.raises(ValueError, match=r"offered_load must be non-negative, got -1.0 at index 1"):
        erlang_b(3, [1.0, -1.0])


def test_error_load_nan():
    with pytest.raises(ValueError, match=r"offered_load must not be NaN"):
        erlang_b(3, float("nan"))


def test_error_load_infinite():
    with pytest.raises(ValueError, match=r"offered_load must be finite"):
        erlang_c(3, math.inf)


def test_error_load_numeric():
    with pytest.raises(ValueError, match=r"offered_load must be numeric"):
        erlang_b(3, "lots")

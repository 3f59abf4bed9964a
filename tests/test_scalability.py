"""Tests of zmodel.queueing.scalability: usl, usl_fit, amdahl."""
from fractions import Fraction as F

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zmodel.queueing import amdahl, usl, usl_fit
from zmodel.queueing.scalability import UslFitResult

# Ray-tracer benchmark (BRL-CAD on an SGI Origin 2000, 1-64 R12000 processors), the
# hardware-scalability case study of Gunther, Guerrilla Capacity Planning (2007),
# ch. 5; numbers as distributed in the R package `usl` (data set `raytracer`).
RAYTRACER_N = [1, 4, 8, 12, 16, 20, 24, 28, 32, 48, 64]
RAYTRACER_X = [20, 78, 130, 170, 190, 200, 210, 230, 260, 280, 310]


def usl_exact(n, sigma, kappa, lam=1):
    n, sigma, kappa, lam = F(n), F(sigma), F(kappa), F(lam)
    if n == 0:
        return F(0)
    return lam * n / (1 + sigma * (n - 1) + kappa * n * (n - 1))


rationals = st.fractions(min_value=0, max_value=1, max_denominator=1000)


# ----------------------------------------------------------------- published examples

def test_raytracer_fit_matches_r_usl_package():
    # R package `usl` (S. Moeding), tests/confint.Rout.save, fit of `raytracer`:
    # coef alpha (sigma) 0.0578, beta (kappa) 0.0000, gamma (lambda) 21.8488.
    fit = usl_fit(RAYTRACER_N, RAYTRACER_X)
    assert fit.sigma == pytest.approx(0.0578, abs=5e-5)
    assert fit.kappa < 5e-5
    assert fit.lambda_ == pytest.approx(21.8488, abs=5e-5)
    # kappa = 0 on its bound: no retrograde peak, the supremum is lambda/sigma
    assert fit.peak_concurrency > 1e6
    # the optimum is a stationary point of the sum of squares along the free parameters
    eps = 1e-6
    def ssr(lam, s, k):
        return float(np.sum((np.array(RAYTRACER_X) - usl(RAYTRACER_N, s, k, lam)) ** 2))
    base = ssr(fit.lambda_, fit.sigma, fit.kappa)
    assert ssr(fit.lambda_ * (1 + eps), fit.sigma, fit.kappa) >= base
    assert ssr(fit.lambda_ * (1 - eps), fit.sigma, fit.kappa) >= base
    assert ssr(fit.lambda_, fit.sigma * (1 + eps), fit.kappa) >= base
    assert ssr(fit.lambda_, fit.sigma * (1 - eps), fit.kappa) >= base
    assert ssr(fit.lambda_, fit.sigma, fit.kappa + 1e-7) >= base


def test_r_usl_coef_example_recovers_two_percent():
    # R package `usl`, tests/coef.Rout.save: data printed to 4 decimals, the fit
    # gives alpha = 0.02, beta = 0.02, gamma = 1.00 (3 significant digits).
    load = [1, 2, 4, 6, 8, 10]
    tput = [1, 1.8868, 3.0769, 3.5294, 3.5398, 3.3557]
    # independent check that the printed data are C(N) with sigma = kappa = 1/50
    for n, x in zip(load, tput):
        assert round(float(usl_exact(n, F(1, 50), F(1, 50))), 4) == x
    fit = usl_fit(load, tput)
    assert fit.sigma == pytest.approx(0.02, abs=5e-5)
    assert fit.kappa == pytest.approx(0.02, abs=5e-5)
    assert fit.lambda_ == pytest.approx(1.00, abs=5e-3)
    # N* = sqrt(0.98 / 0.02) = 7
    assert fit.peak_concurrency == pytest.approx(7.0, rel=1e-3)


def test_amdahl_textbook_numbers():
    # Amdahl (1967) argument as usually stated: s = 5 % serial caps speedup at 20;
    # 1/(1/20 + (19/20)/16) = 64/7 on 16 processors (exact fraction).
    assert amdahl(16, 0.05) == pytest.approx(float(F(64, 7)), rel=1e-15)
    assert amdahl(1e12, 0.05) == pytest.approx(20.0, rel=1e-9)


# ----------------------------------------------------------------- invariants

@settings(max_examples=100, deadline=None)
@given(n=st.one_of(st.just(F(0)), st.fractions(min_value=1, max_value=500, max_denominator=10)),
       sigma=rationals,
       kappa=st.fractions(min_value=0, max_value=F(1, 10), max_denominator=10_000),
       lam=st.fractions(min_value=F(1, 100), max_value=1000, max_denominator=100))
def test_usl_equals_exact_rational(n, sigma, kappa, lam):
    got = usl(float(n), float(sigma), float(kappa), float(lam))
    assert got == pytest.approx(float(usl_exact(n, sigma, kappa, lam)), rel=1e-12, abs=1e-300)


@settings(max_examples=100, deadline=None)
@given(p=st.fractions(min_value=1, max_value=10_000, max_denominator=10), s=rationals)
def test_amdahl_stable_form_equals_textbook_form(p, s):
    exact = 1 / (s + (1 - s) / p)
    got = amdahl(float(p), float(s))
    assert got == pytest.approx(float(exact), rel=1e-13)
    textbook = 1.0 / (float(s) + (1.0 - float(s)) / float(p))
    assert got == pytest.approx(textbook, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(sigma=rationals, lam=st.floats(0.1, 1e4))
def test_usl_kappa_zero_is_amdahl(sigma, lam):
    n = np.arange(1, 65, dtype=float)
    x = usl(n, float(sigma), 0.0, lam)
    np.testing.assert_allclose(x / x[0], amdahl(n, float(sigma)), rtol=1e-13)
    np.testing.assert_allclose(x[0], lam, rtol=1e-15)


def test_usl_linear_without_contention_or_coherency():
    n = np.linspace(0, 1000, 101)
    np.testing.assert_array_equal(usl(n, 0.0, 0.0, 3.0), 3.0 * n)
    assert usl(0, 0.3, 0.01) == 0.0


def test_usl_peak_is_the_maximum():
    sigma, kappa = 0.05, 0.001
    grid = np.linspace(1, 200, 199_001)
    x = usl(grid, sigma, kappa)
    n_star = np.sqrt((1 - sigma) / kappa)
    assert grid[np.argmax(x)] == pytest.approx(n_star, abs=2e-3)


@settings(max_examples=30, deadline=None)
@given(sigma=st.floats(0.0, 0.5), kappa=st.floats(1e-5, 1e-2), lam=st.floats(1.0, 1e5))
def test_usl_fit_recovers_noiseless_parameters(sigma, kappa, lam):
    n = np.array([1, 2, 4, 8, 12, 16, 24, 32, 48, 64], dtype=float)
    x = usl(n, sigma, kappa, lam)
    fit = usl_fit(n, x)
    assert fit.lambda_ == pytest.approx(lam, rel=1e-7)
    # sigma = 0 is an active bound, which the trust-region reflective solver approaches from the
    # interior (Coleman-Li scaling): it stops a few 1e-9 inside it (sigma=0, kappa=0.0086, lam=1
    # gave 1.8e-9), hence the absolute tolerance of 1e-8 there
    assert fit.sigma == pytest.approx(sigma, rel=1e-6, abs=1e-8)
    assert fit.kappa == pytest.approx(kappa, rel=1e-6, abs=1e-11)
    np.testing.assert_allclose(fit.residuals, 0.0, atol=1e-7 * lam)
    assert fit.peak_concurrency == pytest.approx(np.sqrt((1 - fit.sigma) / fit.kappa), rel=1e-12)
    assert fit.peak_throughput == pytest.approx(float(usl(fit.peak_concurrency, sigma, kappa, lam)),
                                                rel=1e-6)


def test_usl_fit_with_noise_is_within_standard_errors():
    rng = np.random.default_rng(20070101)
    true = dict(lam=1000.0, sigma=0.04, kappa=2e-4)
    n = np.repeat(np.array([1, 2, 4, 8, 16, 24, 32, 48, 64, 96], dtype=float), 3)
    clean = usl(n, true["sigma"], true["kappa"], true["lam"])
    x = clean * (1 + 0.02 * rng.standard_normal(n.size))
    fit = usl_fit(n, x)
    for name, value, se in [("lam", fit.lambda_, fit.lambda_stderr),
                            ("sigma", fit.sigma, fit.sigma_stderr),
                            ("kappa", fit.kappa, fit.kappa_stderr)]:
        assert se > 0
        assert abs(value - true[name]) < 3 * se, name
    # covariance = s^2 (J^T J)^-1 with a finite-difference Jacobian computed here
    p = np.array([fit.lambda_, fit.sigma, fit.kappa])
    jac = np.empty((n.size, 3))
    for j in range(3):
        h = 1e-6 * p[j]
        up, dn = p.copy(), p.copy()
        up[j] += h
        dn[j] -= h
        jac[:, j] = (usl(n, up[1], up[2], up[0]) - usl(n, dn[1], dn[2], dn[0])) / (2 * h)
    s2 = np.sum(fit.residuals ** 2) / (n.size - 3)
    cov = s2 * np.linalg.inv(jac.T @ jac)
    np.testing.assert_allclose(fit.covariance, cov, rtol=1e-5)
    np.testing.assert_allclose(np.diag(fit.correlation), 1.0)
    assert fit.dof == n.size - 3


def test_usl_fit_with_fixed_lambda():
    n = np.array([1, 2, 4, 8, 16, 32], dtype=float)
    x = usl(n, 0.1, 0.002, 50.0)
    fit = usl_fit(n, x, lambda_=50.0)
    assert fit.lambda_ == 50.0 and fit.lambda_stderr == 0.0
    assert fit.sigma == pytest.approx(0.1, rel=1e-7)
    assert fit.kappa == pytest.approx(0.002, rel=1e-7)
    assert fit.dof == n.size - 2


def test_usl_fit_report_tables():
    fit = usl_fit(RAYTRACER_N, RAYTRACER_X)
    assert isinstance(fit, UslFitResult)
    frame = fit.to_frame()
    assert list(frame.columns) == ["concurrency", "measured", "predicted", "residual", "percent_error"]
    assert len(frame) == len(RAYTRACER_N)
    np.testing.assert_allclose(frame["measured"] - frame["predicted"], frame["residual"])
    params = fit.parameters()
    assert list(params.index) == ["lambda_", "sigma", "kappa"]
    assert params.loc["sigma", "value"] == fit.sigma


def test_series_in_series_out():
    n = pd.Series([1.0, 2.0, 4.0], index=["a", "b", "c"])
    x = usl(n, 0.1, 0.0)
    assert isinstance(x, pd.Series) and list(x.index) == ["a", "b", "c"]
    s = amdahl(n, 0.1)
    assert isinstance(s, pd.Series)
    np.testing.assert_allclose(x.to_numpy(), s.to_numpy())


def test_broadcasting_batches():
    sigma = np.array([[0.0], [0.1]])
    x = usl([1, 2, 3], sigma, 0.0)
    assert x.shape == (2, 3)
    np.testing.assert_allclose(x[0], [1, 2, 3])


# ----------------------------------------------------------------- errors

def test_usl_errors():
    with pytest.raises(ValueError, match="concurrency must be non-negative"):
        usl(-1, 0.1, 0.0)
    with pytest.raises(ValueError, match="concurrency must be 0 or >= 1"):
        usl(0.5, 0.1, 0.0)
    with pytest.raises(ValueError, match=r"sigma must be a probability in \[0, 1\]"):
        usl(2, 1.5, 0.0)
    with pytest.raises(ValueError, match="kappa must be non-negative"):
        usl(2, 0.1, -0.01)
    with pytest.raises(ValueError, match="lambda_ must be positive"):
        usl(2, 0.1, 0.0, lambda_=0.0)


def test_amdahl_errors():
    with pytest.raises(ValueError, match="processors must be >= 1"):
        amdahl(0.5, 0.1)
    with pytest.raises(ValueError, match=r"serial_fraction must be a probability in \[0, 1\]"):
        amdahl(4, 1.1)


def test_usl_fit_errors():
    with pytest.raises(ValueError, match="concurrency must be positive"):
        usl_fit([0, 1, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="throughput must be positive"):
        usl_fit([1, 2, 3], [1, -2, 3])
    with pytest.raises(ValueError, match="concurrency and throughput must have the same length"):
        usl_fit([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="usl_fit needs at least 3 measurements"):
        usl_fit([1, 2], [1, 2])
    with pytest.raises(ValueError, match="lambda_ must be positive"):
        usl_fit([1, 2, 3], [1, 2, 3], lambda_=-1.0)

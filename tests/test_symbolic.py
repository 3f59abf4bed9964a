"""Tests of zmodel.queueing.symbolic: numeric functions equal their exact SymPy forms."""
from fractions import Fraction as F

import pytest
import sympy as sp

from zmodel.queueing import amdahl, mg1, mm1, mmc, symbolic, usl

METRICS = ("utilization", "waiting_probability", "waiting_time", "response_time",
           "queue_length", "queue_waiting", "throughput")

# (arrival_rate, service_time) rational points with rho < 1 for c = 1
POINTS = [(F(1, 2), F(1, 3)), (F(3), F(1, 5)), (F(7, 10), F(9, 7)), (F(99, 100), F(1)),
          (F(1, 1000), F(3, 2))]


def _close(numeric, exact):
    exact = float(exact)
    assert float(numeric) == pytest.approx(exact, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("lam,s", POINTS)
def test_mm1_equals_exact_form(lam, s):
    exact = symbolic.mm1().evaluate(arrival_rate=lam, service_time=s)
    assert all(isinstance(v, sp.Rational) for v in exact.values())
    res = mm1(float(lam), float(s))
    for name in METRICS:
        _close(getattr(res, name), exact[name])


@pytest.mark.parametrize("c", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("lam,s", POINTS)
def test_mmc_equals_exact_form(c, lam, s):
    s_c = s * c * F(9, 10) if lam * s >= 1 else s        # keep rho < 1 for every c
    exact = symbolic.mmc(c).evaluate(arrival_rate=lam, service_time=s_c)
    assert all(isinstance(v, sp.Rational) for v in exact.values())
    res = mmc(float(lam), float(s_c), c)
    for name in METRICS:
        _close(getattr(res, name), exact[name])


@pytest.mark.parametrize("scv", [F(0), F(1, 4), F(1), F(5, 2), F(16)])
@pytest.mark.parametrize("lam,s", POINTS)
def test_mg1_equals_exact_form(scv, lam, s):
    exact = symbolic.mg1().evaluate(arrival_rate=lam, service_time=s, service_scv=scv)
    res = mg1(float(lam), float(s), float(scv))
    for name in METRICS:
        _close(getattr(res, name), exact[name])


@pytest.mark.parametrize("n,sigma,kappa,lam", [(F(1), F(0), F(0), F(1)), (F(4), F(1, 50), F(1, 50), F(1)),
                                               (F(64), F(1, 20), F(1, 10_000), F(20)),
                                               (F(7, 2), F(1), F(1, 3), F(5, 7)), (F(1000), F(0), F(0), F(3))])
def test_usl_equals_exact_form(n, sigma, kappa, lam):
    exact = symbolic.usl().evaluate(concurrency=n, sigma=sigma, kappa=kappa, lambda_=lam)
    _close(usl(float(n), float(sigma), float(kappa), float(lam)), exact["throughput"])
    _close(usl(float(n), float(sigma), float(kappa)), exact["relative_capacity"])


@pytest.mark.parametrize("p,s", [(F(1), F(1, 2)), (F(16), F(1, 20)), (F(1024), F(1, 1000)), (F(3), F(0)),
                                 (F(5), F(1))])
def test_amdahl_equals_exact_form(p, s):
    exact = symbolic.amdahl().evaluate(processors=p, serial_fraction=s)["speedup"]
    _close(amdahl(float(p), float(s)), exact)


def test_symbolic_identities():
    m1, mc1 = symbolic.mm1(), symbolic.mmc(1)
    for name in METRICS:
        assert sp.simplify(m1.metrics[name] - mc1.metrics[name]) == 0
    g = symbolic.mg1()
    for name in METRICS:
        exponential = g.metrics[name].subs(g.symbols["service_scv"], 1)
        assert sp.simplify(exponential - m1.metrics[name]) == 0
    # Little's law holds symbolically in every model
    for model in (m1, symbolic.mmc(3), g):
        lam = model.symbols["arrival_rate"]
        assert sp.simplify(model.metrics["queue_length"] - lam * model.metrics["response_time"]) == 0
        assert sp.simplify(model.metrics["queue_waiting"] - lam * model.metrics["waiting_time"]) == 0


def test_symbolic_servers_sum_matches_explicit_form():
    general = symbolic.mmc()
    c = general.symbols["servers"]
    assert general.metrics["waiting_probability"].has(sp.Sum)
    for n in (1, 2, 4):
        explicit = symbolic.mmc(n)
        for name in ("waiting_probability", "response_time"):
            diff = general.metrics[name].subs(c, n).doit() - explicit.metrics[name]
            assert sp.simplify(diff) == 0


def test_usl_symbolic_identities():
    u = symbolic.usl()
    n, sigma, kappa = u.symbols["concurrency"], u.symbols["sigma"], u.symbols["kappa"]
    # dX/dN vanishes at the peak N* = sqrt((1 - sigma)/kappa)
    dx = sp.diff(u.metrics["throughput"], n).subs(n, u.metrics["peak_concurrency"])
    assert sp.simplify(dx) == 0
    # kappa = 0 gives Amdahl's law with serial fraction sigma
    a = symbolic.amdahl()
    amdahl_in_n = a.metrics["speedup"].subs({a.symbols["processors"]: n, a.symbols["serial_fraction"]: sigma})
    assert sp.simplify(u.metrics["relative_capacity"].subs(kappa, 0) - amdahl_in_n) == 0


def test_latex_and_errors():
    tex = symbolic.mm1().latex()
    assert set(tex) == set(symbolic.mm1().metrics) and "service" in tex["response_time"]
    with pytest.raises(ValueError, match="unknown parameter"):
        symbolic.mm1().evaluate(arrival_rate=1, servers=2)
    with pytest.raises(ValueError, match="servers must be a positive integer"):
        symbolic.mmc(0)

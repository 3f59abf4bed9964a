"""DASD volume model (zmodel.hardware.dasd): distributions, Little's law, bad input.

Reference values come from outside the code: math.erf for the log-normal CDF, a seeded
Monte Carlo with a binomial confidence interval for the convolutions, hand algebra for
Little's law.
"""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from zmodel.hardware.dasd import DasdVolume, binned_probabilities, lognormal_mixture_cdf

EDGES = np.r_[0.0, 2.0 ** np.arange(9, 21) * 1e-6, np.inf]   # 0, 512 us, ..., 1 s, inf


def _lognormal_cdf(t, median, sigma):
    return 0.5 * (1.0 + math.erf((math.log(t) - math.log(median)) / (sigma * math.sqrt(2.0))))


def test_lognormal_mixture_cdf_against_erf():
    w, med, sg = [0.7, 0.3], [2e-3, 20e-3], [0.4, 0.6]
    for t in (1e-3, 3e-3, 15e-3, 0.1):
        expected = sum(wi * _lognormal_cdf(t, mi, si) for wi, mi, si in zip(w, med, sg))
        assert lognormal_mixture_cdf(t, w, med, sg) == pytest.approx(expected, abs=1e-12)
    assert lognormal_mixture_cdf(0.0, w, med, sg) == 0.0
    assert lognormal_mixture_cdf(np.inf, w, med, sg) == pytest.approx(1.0)


def test_binned_probabilities():
    assert binned_probabilities([0.0, 0.5, 0.5, 1.0]).tolist() == [0.5, 0.0, 0.5]


def _monte_carlo(volume, n=200_000, seed=1):
    """Simulate W and T of the model definition directly (independent of the FFT code)."""
    rng = np.random.default_rng(seed)
    w, med, sg = volume.weights, volume.medians, volume.sigmas
    p = volume.ahead_probabilities
    K = p.size - 1

    def draw(comp):
        return med[comp] * np.exp(sg[comp] * rng.standard_normal(comp.shape))

    k = rng.choice(p.size, size=n, p=p)
    c = volume.regime_correlation
    same = rng.random(n) < c
    shared = rng.choice(w.size, size=n, p=w)
    comps = rng.choice(w.size, size=(n, K + 1), p=w)
    comps = np.where(same[:, None], shared[:, None], comps)
    s = draw(comps)                                     # column 0: own service, 1..K: ahead
    ahead = np.where(np.arange(1, K + 1)[None, :] <= k[:, None], s[:, 1:], 0.0).sum(axis=1)
    wait = np.where(k == 0, volume.start_latency, ahead)
    end = rng.choice(volume.end_times, size=n, p=volume.end_probabilities)
    total = wait + s[:, 0] + end
    return wait, s[:, 0], total


@pytest.mark.parametrize("corr", [0.0, 0.6])
def test_predicted_buckets_match_simulation(corr):
    v = DasdVolume([0.75, 0.2, 0.05], [1.8e-3, 5e-3, 25e-3], [0.37, 0.55, 0.42],
                   ahead_probabilities=[0.01, 0.02, 0.02, 0.05, 0.9], regime_correlation=corr,
                   end_times=[12e-6, 200e-6], end_probabilities=[0.9, 0.1])
    pred = v.predict(EDGES)
    wait, serv, total = _monte_carlo(v)
    n = wait.size
    for sample, probs in ((serv, pred.service), (wait, pred.waiting), (total, pred.total)):
        counts, _ = np.histogram(sample, bins=np.where(np.isinf(EDGES), 1e9, EDGES))
        frac = counts / n
        sigma = np.sqrt(np.clip(probs * (1 - probs), 1e-12, None) / n)
        # 5 sigma binomial band plus the 10 us grid error (< 2e-3 per bucket)
        assert np.all(np.abs(frac - probs) <= 5 * sigma + 2e-3), (frac, probs)


def test_one_ahead_wait_is_one_service():
    v = DasdVolume([0.6, 0.4], [2e-3, 10e-3], [0.3, 0.5], ahead_probabilities=[0.0, 1.0])
    p = v.predict(EDGES)
    assert np.allclose(p.waiting, p.service, atol=2e-3)


def test_probabilities_sum_to_one_and_means():
    v = DasdVolume([0.7, 0.3], [2e-3, 15e-3], [0.4, 0.5], ahead_probabilities=[0.1, 0.2, 0.7])
    p = v.predict(EDGES)
    for probs in (p.service, p.waiting, p.total):
        assert probs.sum() == pytest.approx(1.0, abs=1e-9)
        assert np.all(probs >= 0)
    es = 0.7 * 2e-3 * math.exp(0.4 ** 2 / 2) + 0.3 * 15e-3 * math.exp(0.5 ** 2 / 2)
    assert v.mean_service_time == pytest.approx(es, rel=1e-12)
    assert v.mean_ahead == pytest.approx(0.2 + 1.4)
    assert v.mean_waiting_time == pytest.approx(0.1 * v.start_latency + 1.6 * es, rel=1e-12)
    second = 0.7 * (2e-3) ** 2 * math.exp(2 * 0.4 ** 2) + 0.3 * (15e-3) ** 2 * math.exp(2 * 0.5 ** 2)
    assert v.service_scv == pytest.approx(second / es ** 2 - 1, rel=1e-12)


def test_little_by_hand():
    v = DasdVolume([1.0], [4e-3], [0.5], ahead_probabilities=[0.2, 0.0, 0.8])
    lc = v.little(mean_waiting_time=0.01, mean_service_time=0.005)
    assert lc.utilization == pytest.approx(0.8)
    assert lc.throughput == pytest.approx(0.8 / 0.005)
    assert lc.queue_length_little == pytest.approx(160 * 0.01)
    assert lc.queue_length_observed == pytest.approx(1.6)
    assert lc.relative_difference == pytest.approx(0.0, abs=1e-12)
    # the model's own means satisfy Little's law with p0 = 0 exactly: X E[W] = mean ahead
    v2 = DasdVolume([1.0], [4e-3], [0.5], ahead_probabilities=[0.0, 0.3, 0.7])
    assert v2.little().relative_difference == pytest.approx(0.0, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.5e-3, 20e-3), st.floats(0.1, 1.0), st.floats(0.0, 1.0))
def test_more_ahead_means_longer_wait(median, sigma, corr):
    """Invariant: with more requests ahead the wait is stochastically larger."""
    few = DasdVolume([1.0], [median], [sigma], ahead_probabilities=[0, 1, 0, 0], regime_correlation=corr)
    many = DasdVolume([1.0], [median], [sigma], ahead_probabilities=[0, 0, 0, 1], regime_correlation=corr)
    cf = np.cumsum(few.predict(EDGES).waiting)
    cm = np.cumsum(many.predict(EDGES).waiting)
    assert np.all(cm <= cf + 1e-9)


def test_bad_parameters():
    with pytest.raises(ValueError, match="weights must be non-negative and sum to 1"):
        DasdVolume([0.5, 0.4], [1e-3, 2e-3], [0.3, 0.3])
    with pytest.raises(ValueError, match="medians must be positive"):
        DasdVolume([1.0], [-1e-3], [0.3])
    with pytest.raises(ValueError, match="sigmas must be positive"):
        DasdVolume([1.0], [1e-3], [0.0])
    with pytest.raises(ValueError, match="equal-length non-empty"):
        DasdVolume([1.0], [1e-3, 2e-3], [0.3])
    with pytest.raises(ValueError, match="ahead_probabilities must be non-negative and sum to 1"):
        DasdVolume([1.0], [1e-3], [0.3], ahead_probabilities=[0.5, 0.6])
    with pytest.raises(ValueError, match="regime_correlation must be a probability"):
        DasdVolume([1.0], [1e-3], [0.3], regime_correlation=1.5)
    with pytest.raises(ValueError, match="start_latency must be non-negative"):
        DasdVolume([1.0], [1e-3], [0.3], start_latency=-1.0)
    with pytest.raises(ValueError, match="end_times and end_probabilities must be equal-length"):
        DasdVolume([1.0], [1e-3], [0.3], end_times=[1e-5, 2e-5], end_probabilities=[1.0])
    with pytest.raises(ValueError, match="end_times must be non-negative"):
        DasdVolume([1.0], [1e-3], [0.3], end_times=[-1e-5], end_probabilities=[1.0])
    with pytest.raises(ValueError, match="end_probabilities must be non-negative and sum to 1"):
        DasdVolume([1.0], [1e-3], [0.3], end_times=[1e-5], end_probabilities=[0.5])
    v = DasdVolume([1.0], [1e-3], [0.3])
    with pytest.raises(ValueError, match="edges must be at least two strictly ascending"):
        v.predict([0.0, 0.0])
    with pytest.raises(ValueError, match="mean_service_time must be positive"):
        v.little(mean_service_time=0.0)


def test_service_moments_against_numerical_integration():
    # E[S] and the scv of the log-normal mixture by scipy.integrate.quad over the mixture
    # density (scipy.stats.lognorm: s = sigma, scale = median), not the closed form.
    from scipy import stats
    from scipy.integrate import quad

    w, med, sg = [0.7, 0.3], [2e-3, 20e-3], [0.4, 0.6]
    v = DasdVolume(w, med, sg)

    def pdf(t):
        return sum(wi * stats.lognorm.pdf(t, si, scale=mi) for wi, mi, si in zip(w, med, sg))

    pts = [1e-3, 2e-3, 2e-2, 1e-1]
    m1 = quad(lambda t: t * pdf(t), 0, 1.0, points=pts, limit=200, epsabs=0, epsrel=1e-11)[0] \
        + quad(lambda t: t * pdf(t), 1.0, np.inf, epsabs=1e-16)[0]
    m2 = quad(lambda t: t * t * pdf(t), 0, 1.0, points=pts, limit=200, epsabs=0, epsrel=1e-11)[0] \
        + quad(lambda t: t * t * pdf(t), 1.0, np.inf, epsabs=1e-18)[0]
    assert v.mean_service_time == pytest.approx(m1, rel=1e-8)
    assert v.service_scv == pytest.approx(m2 / m1 ** 2 - 1.0, rel=1e-8)


def test_predictions_do_not_depend_on_what_was_predicted_before():
    """The k-fold sum spectra are kept per law: another law or another c in between changes nothing."""
    a = dict(weights=[0.8, 0.2], medians=[2e-3, 20e-3], sigmas=[0.4, 0.5],
             ahead_probabilities=[0.2, 0.3, 0.5], end_times=[20e-6, 60e-6], end_probabilities=[0.5, 0.5])
    first = DasdVolume(**a, regime_correlation=0.3).predict(EDGES)
    DasdVolume(**{**a, "medians": [3e-3, 30e-3]}, regime_correlation=0.3).predict(EDGES)
    DasdVolume(**a, regime_correlation=0.9).predict(EDGES)
    again = DasdVolume(**a, regime_correlation=0.3).predict(EDGES)
    for part in ("service", "waiting", "total"):
        np.testing.assert_array_equal(getattr(first, part), getattr(again, part))

"""Numba kernel of the log-normal mixture of :mod:`zmodel.hardware.dasd`: the binned likelihood
that the service-law fit (:mod:`zmodel.fits.dasd`) evaluates in its measured hot loop.

Imported lazily (it imports :mod:`numba`). No validation: contiguous float64 arrays in.
The Nelder-Mead search of :func:`zmodel.fits.dasd._fit_service` evaluates the binned
likelihood some 50,000 times; in NumPy each evaluation costs about twenty small array
operations, here one pass over the buckets (BENCHMARKS.md, 2026-11-27).
"""
from __future__ import annotations

import math

import numpy as np

from zmodel.queueing._kernels import _jit   # the cache policy of every kernel

_SQRT_HALF = math.sqrt(0.5)


@_jit
def _ndtr(z):
    """Standard normal CDF, the formula of Cephes ``ndtr`` (scipy.special.ndtr)."""
    x = z * _SQRT_HALF
    a = abs(x)
    if a < _SQRT_HALF:
        return 0.5 + 0.5 * math.erf(x)
    y = 0.5 * math.erfc(a)
    return 1.0 - y if x > 0 else y


@_jit
def binned_mixture_nll(x, log_edges, positive, counts):
    """Multinomial negative log-likelihood of bucket ``counts`` under a log-normal mixture.

    ``x`` holds the unconstrained coordinates of ``zmodel.fits.dasd._unpack`` (k - 1 log
    weight ratios to the first component, k log medians, k log sigmas); ``log_edges`` the
    logarithms of the n + 1 finite bucket edges where ``positive`` (the CDF is 0 at an edge
    <= 0). Each bucket probability is clipped at 0 below and 1e-300 inside the logarithm,
    as in ``_nll``.
    """
    k = (x.size + 1) // 3
    top = 0.0
    for j in range(k - 1):
        top = max(top, x[j])
    w = np.empty(k)
    w[0] = math.exp(0.0 - top)
    total = w[0]
    for j in range(1, k):
        w[j] = math.exp(x[j - 1] - top)
        total += w[j]
    prev = 0.0
    nll = 0.0
    for i in range(log_edges.size):
        cdf = 0.0
        if positive[i]:
            for j in range(k):
                lm = math.log(math.exp(x[k - 1 + j]))
                sg = math.exp(x[2 * k - 1 + j])
                cdf += (w[j] / total) * _ndtr((log_edges[i] - lm) / sg)
        if i > 0:
            p = max(cdf - prev, 0.0)
            nll -= counts[i - 1] * math.log(max(p, 1e-300))
        prev = cdf
    return nll

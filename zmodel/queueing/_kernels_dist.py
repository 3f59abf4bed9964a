"""Numba kernels for :mod:`zmodel.queueing.distributions`: log-space normalising constants.

Imported lazily (it imports numba). No validation here; plain float64 / int64 arrays in,
output arrays written in place. See :mod:`zmodel.queueing._kernels` for the cache policy.
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit


def _jit(func):
    try:
        return njit(cache=True)(func)
    except RuntimeError:  # no cache locator available
        return njit(func)


_QUEUE, _DELAY, _MULTI = 0, 1, 2


@_jit
def _logaddexp(a, b):
    if a == -np.inf:
        return b
    if b == -np.inf:
        return a
    if a >= b:
        return a + math.log1p(math.exp(b - a))
    return b + math.log1p(math.exp(a - b))


@_jit
def log_g(logd, kind, servers, logz, npop, skip, lg, tmp):
    """log G(n), n = 0..npop, of the network without station ``skip`` (-1: none).

    Delay stations are merged into the think-time factor exp(Z z) whose log-total is
    ``logz`` (-inf when there is none); a c-server station is the polynomial
    sum_{j<c} D^j/j! (1 - j/c) z^j times the single-server factor 1/(1 - (D/c) z).
    Every step adds positive terms only (log-sum-exp), so nothing cancels or overflows.
    """
    K = logd.shape[0]
    if logz == -np.inf:
        lg[0] = 0.0
        for n in range(1, npop + 1):
            lg[n] = -np.inf
    else:
        for n in range(npop + 1):
            lg[n] = n * logz - math.lgamma(n + 1.0)
    for k in range(K):
        if k == skip or kind[k] == _DELAY:
            continue
        a = logd[k]
        if kind[k] == _MULTI:
            c = servers[k]
            for n in range(npop + 1):
                acc = -np.inf
                top = c - 1 if c - 1 < n else n
                for j in range(top + 1):
                    lp = j * logd[k] - math.lgamma(j + 1.0) + math.log1p(-j / c)
                    acc = _logaddexp(acc, lp + lg[n - j])
                tmp[n] = acc
            for n in range(npop + 1):
                lg[n] = tmp[n]
            a = logd[k] - math.log(c)
        for n in range(1, npop + 1):
            lg[n] = _logaddexp(lg[n], a + lg[n - 1])


@_jit
def marginals(logd, kind, servers, logz_all, logz_minus, npop, lg_full, lg_minus, tmp):
    """log G(n) of the whole network into ``lg_full`` and of each complement into
    ``lg_minus[k]`` (the network without station k; for a delay station k its demand
    is taken out of the merged think-time factor, ``logz_minus[k]``)."""
    K = logd.shape[0]
    log_g(logd, kind, servers, logz_all, npop, -1, lg_full, tmp)
    for k in range(K):
        if kind[k] == _DELAY:
            log_g(logd, kind, servers, logz_minus[k], npop, -1, lg_minus[k], tmp)
        else:
            log_g(logd, kind, servers, logz_all, npop, k, lg_minus[k], tmp)

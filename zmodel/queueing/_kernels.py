"""Numba kernels for the exact closed-network solvers in :mod:`zmodel.queueing.closed`.

This module imports :mod:`numba` at top level, so it is itself imported lazily, by the
solver functions that need it (``import zmodel`` stays fast). Kernels are compiled with
``cache=True``; the cache goes where Numba's locators allow (``NUMBA_CACHE_DIR`` if set,
else ``__pycache__`` beside this file, else the user-wide cache). If no cache location is
writable (a read-only install without a home directory) the kernels are compiled on first
use instead of being cached.

Every kernel takes plain contiguous float64 / int64 arrays and writes into output arrays
given by the caller; no validation happens here (see ``closed.py``).
"""
from __future__ import annotations

import numpy as np
from numba import njit


def _jit(func):
    """``njit(cache=True)``, or plain ``njit`` if no cache directory is usable."""
    try:
        return njit(cache=True)(func)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        return njit(func)


# station kinds
_QUEUE, _DELAY, _MULTI = 0, 1, 2


@_jit
def _plain_network(D, Z, npop, kind, qidx, nqueue, inv_m, q, r, scratch):
    """Exact single-class MVA of one network of single-server and delay stations.

    ``qidx[:nqueue]`` lists the single-server stations; the others are delays (their
    demand adds to the think time). ``inv_m[k]`` is 1 / copies of station ``k``: a
    station of m identical queues sharing its demand evenly has R = D (1 + Q / m).
    Writes queue lengths into ``q`` and residence times into ``r``; returns X(N).
    """
    K = D.shape[0]
    zd = Z
    for k in range(K):
        q[k] = 0.0
        if kind[k] != _QUEUE:
            zd += D[k]
    x = 0.0
    if nqueue == K:  # all single-server queues: the branch-free loop
        for n in range(1, npop + 1):
            s = zd
            for k in range(K):
                rk = D[k] * (1.0 + q[k] * inv_m[k])
                scratch[k] = rk
                s += rk
            x = n / s
            for k in range(K):
                q[k] = x * scratch[k]
    else:
        for n in range(1, npop + 1):
            s = zd
            for i in range(nqueue):
                k = qidx[i]
                rk = D[k] * (1.0 + q[k] * inv_m[k])
                scratch[k] = rk
                s += rk
            x = n / s
            for i in range(nqueue):
                k = qidx[i]
                q[k] = x * scratch[k]
        for k in range(K):
            q[k] = x * D[k]  # delays; queues are rewritten below
        for i in range(nqueue):
            k = qidx[i]
            q[k] = x * scratch[k]
    for k in range(K):
        r[k] = q[k] / x if x > 0.0 else 0.0
    return x


@_jit
def _ld_network(D, Z, npop, kind, c_of, copies, q, r):
    """Exact single-class MVA of one network that has multi-server stations.

    Throughputs come from a normalised convolution (all terms positive, so no
    cancellation); each multi-server station ``t`` needs the complement network (all but
    ``t``) for its marginal probabilities p_t(j|n), j < c, as ratios of positive
    quantities, so the convolution is ordered with ``t`` last. The mean queue length then
    follows the load-dependent MVA recursion of Reiser & Lavenberg. A single-server station
    of ``copies[k]`` = m identical queues enters the convolution as m factors
    1 / (1 - (D/m) z) and its queue follows R = D (1 + Q / m).

    The chain runs the delays and single-server queues first, then the multi-server stations,
    the last of them last; at each population the chain of every other multi-server station
    ``t`` redoes only the multi-server factors, ``t`` last, from the partial product of the
    delays and queues (that partial product, and X(n), do not depend on the order of the
    factors after it). Until 2026-11-27 each such station had a pass of the whole chain: with
    256 disk queues beside four multi-server stations, four times the work. Memory stays a
    window of max(c) + 1 populations.
    Returns X(N).
    """
    K = D.shape[0]
    zd = Z
    nqq = 0      # convolution factors of the single-server queues (one per copy)
    P = 0        # multi-server stations
    cmax = 1
    for k in range(K):
        q[k] = 0.0
        if kind[k] == _DELAY:
            zd += D[k]
        elif kind[k] == _QUEUE:
            nqq += copies[k]
        else:
            P += 1
            if c_of[k] > cmax:
                cmax = c_of[k]
    nq = nqq + P
    W = cmax + 1
    multi = np.empty(P, np.int64)
    order = np.empty(nq, np.int64)
    dem = np.empty(nq)
    pos = 0
    for k in range(K):
        if kind[k] == _QUEUE:
            for _ in range(copies[k]):
                order[pos] = k
                dem[pos] = D[k] / copies[k]
                pos += 1
    i = 0
    for k in range(K):
        if kind[k] == _MULTI:
            multi[i] = k
            order[nqq + i] = k
            dem[nqq + i] = D[k]
            i += 1
    # the other multi-server stations' chains: tail[s] = the multi-server factors, multi[s] last
    tail = np.empty((P - 1, P), np.int64)
    for s in range(P - 1):
        i = 0
        for u in range(P):
            if u != s:
                tail[s, i] = multi[u]
                i += 1
        tail[s, P - 1] = multi[s]
    gam = np.zeros((nq + 1, W))
    gam[:, 0] = 1.0
    gt = np.zeros((P - 1, P + 1, W))
    gt[:, :, 0] = 1.0
    h = np.empty(nq + 1)
    ht = np.empty(P + 1)
    qts = np.zeros(P - 1)
    xs = np.zeros(W)
    t = multi[P - 1]
    ct = c_of[t]
    dt = D[t]
    qt = 0.0
    x = 0.0
    for n in range(1, npop + 1):
        cur = n % W
        prev = (n - 1) % W
        # the whole chain, multi[P - 1] last
        hprev = gam[0, prev] * zd / n
        h[0] = hprev
        for p in range(1, nq + 1):
            d = dem[p - 1]
            if p <= nqq:
                hv = hprev + d * gam[p, prev]
            else:
                c = c_of[order[p - 1]]
                acc = hprev
                w_ = d
                jmax = min(c - 1, n)
                for j in range(1, jmax + 1):
                    acc += (1.0 - j / c) * w_ * gam[p - 1, (n - j) % W]
                    if j < jmax:
                        w_ = w_ * d * xs[(n - j) % W] / (j + 1)
                hv = acc + (d / c) * gam[p, prev]
            h[p] = hv
            hprev = hv
        x = 1.0 / hprev
        for p in range(nq + 1):
            gam[p, cur] = h[p] * x
        xs[cur] = x
        # p_t(j | n-1) = D^j/j! * gam_{nq-1}(n-1-j) * prod_{l=n-j}^{n-1} x(l)
        m = n - 1
        corr = 0.0
        v = 1.0
        jtop = min(ct - 2, m)
        for j in range(0, jtop + 1):
            corr += (ct - 1 - j) * v * gam[nq - 1, (m - j) % W]
            if j < jtop:
                v = v * dt * xs[(m - j) % W] / (j + 1)
        qt = x * (dt / ct) * (1.0 + qt + corr)
        for k in range(K):
            if kind[k] == _QUEUE:
                q[k] = x * D[k] * (1.0 + q[k] / copies[k])
        # every other multi-server station: its chain of the multi-server factors after the
        # delays and queues (level nqq of the whole chain), it last. The factor step and the
        # marginals are written out as in the whole chain above: as shared Numba helpers they
        # cost 35 % more time here (benchmarks/mva_copies.py, four multi-server stations)
        for s in range(P - 1):
            hprev = h[nqq]
            for p in range(1, P + 1):
                st = tail[s, p - 1]
                d = D[st]
                c = c_of[st]
                acc = hprev
                w_ = d
                jmax = min(c - 1, n)
                for j in range(1, jmax + 1):
                    below = gam[nqq, (n - j) % W] if p == 1 else gt[s, p - 1, (n - j) % W]
                    acc += (1.0 - j / c) * w_ * below
                    if j < jmax:
                        w_ = w_ * d * xs[(n - j) % W] / (j + 1)
                hv = acc + (d / c) * gt[s, p, prev]
                ht[p] = hv
                hprev = hv
            for p in range(1, P + 1):
                gt[s, p, cur] = ht[p] * x
            ts = multi[s]
            cs = c_of[ts]
            ds = D[ts]
            corr = 0.0
            v = 1.0
            jtop = min(cs - 2, m)
            for j in range(0, jtop + 1):
                corr += (cs - 1 - j) * v * gt[s, P - 1, (m - j) % W]
                if j < jtop:
                    v = v * ds * xs[(m - j) % W] / (j + 1)
            qts[s] = x * (ds / cs) * (1.0 + qts[s] + corr)
    q[t] = qt
    for s in range(P - 1):
        q[multi[s]] = qts[s]
    for k in range(K):
        if kind[k] == _DELAY:
            q[k] = x * D[k]
        r[k] = q[k] / x if x > 0.0 else 0.0
    return x


@_jit
def mva_batch(D, Z, N, servers, copies, X, Q, R, U, RT):
    """Exact single-class MVA of ``B`` independent networks.

    D (B, K) demands [s]; Z (B,) think times [s]; N (B,) populations; servers (B, K) float
    (1, k > 1, or inf; one row per network); copies (B, K) int64 (identical single-server
    queues sharing the station's demand; 1 elsewhere). Writes X (B,), Q, R, U (B, K) and the
    response time RT (B,); U is per server of one copy.
    A network with N > 0 and no demand at all gets X = nan (the caller raises).
    """
    B, K = D.shape
    kind = np.empty(K, np.int64)
    c_of = np.ones(K, np.int64)
    scratch = np.empty(K)
    qidx = np.empty(K, np.int64)
    inv_m = np.empty(K)
    for b in range(B):
        npop = N[b]
        total = Z[b]
        for k in range(K):
            total += D[b, k]
        if npop == 0 or not total > 0.0:
            X[b] = 0.0 if npop == 0 else np.nan
            RT[b] = 0.0
            for k in range(K):
                Q[b, k] = 0.0
                R[b, k] = 0.0
                U[b, k] = 0.0
            continue
        multi = False
        nqueue = 0
        for k in range(K):
            inv_m[k] = 1.0 / copies[b, k]
            c = servers[b, k]
            if D[b, k] == 0.0:
                # a station without demand: R = 0 (1 + Q) = 0 whatever Q, exactly a delay of
                # zero, with one server or several (a multi-server one would only add a pass
                # whose factor is 1); solved as one (it adds exactly nothing to any sum)
                kind[k] = _DELAY
            elif c == 1.0:
                kind[k] = _QUEUE
                qidx[nqueue] = k
                nqueue += 1
            elif c >= npop:  # includes inf: never more busy servers than jobs
                kind[k] = _DELAY
            else:
                kind[k] = _MULTI
                c_of[k] = np.int64(c)
                multi = True
        if multi:
            X[b] = _ld_network(D[b], Z[b], npop, kind, c_of, copies[b], Q[b], R[b])
        else:
            X[b] = _plain_network(D[b], Z[b], npop, kind, qidx, nqueue, inv_m, Q[b], R[b], scratch)
        x = X[b]
        rt = 0.0
        for k in range(K):
            rt += R[b, k]
            c = servers[b, k]
            U[b, k] = 0.0 if c == np.inf else x * D[b, k] / (c * copies[b, k])
        RT[b] = rt


@_jit
def mva_multiclass_lattice(D, Z, N, delay, X, R):
    """Exact multi-class MVA over the population lattice (mixed-radix order).

    D (C, K) demands [s]; Z (C,) think times [s]; N (C,) populations; delay (K,) bool.
    Stores only the total queue length per station for every population vector; the
    predecessor n - e_c of vector index ``i`` is ``i - stride_c``. Writes X (C,) and
    R (C, K) at the full population.
    """
    C, K = D.shape
    strides = np.empty(C, np.int64)
    total = 1
    for c in range(C):
        strides[c] = total
        total *= N[c] + 1
    Qv = np.zeros((total, K))
    n = np.zeros(C, np.int64)
    for c in range(C):
        X[c] = 0.0
        for k in range(K):
            R[c, k] = 0.0
    for idx in range(1, total):
        c = 0
        while True:
            n[c] += 1
            if n[c] <= N[c]:
                break
            n[c] = 0
            c += 1
        for k in range(K):
            Qv[idx, k] = 0.0
        for c in range(C):
            if n[c] == 0:
                X[c] = 0.0
                continue
            pred = idx - strides[c]
            s = Z[c]
            for k in range(K):
                if delay[k]:
                    rk = D[c, k]
                else:
                    rk = D[c, k] * (1.0 + Qv[pred, k])
                R[c, k] = rk
                s += rk
            xc = n[c] / s
            X[c] = xc
            for k in range(K):
                Qv[idx, k] += xc * R[c, k]
    for c in range(C):
        if N[c] == 0:
            for k in range(K):
                R[c, k] = 0.0

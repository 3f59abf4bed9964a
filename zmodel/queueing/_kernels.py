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
def _plain_network(D, Z, stops, kind, qidx, nqueue, inv_m, q, scratch, Xs, Qs, Rs):
    """Exact single-class MVA of one network of single-server and delay stations.

    ``qidx[:nqueue]`` lists the single-server stations; the others are delays (their
    demand adds to the think time). ``inv_m[k]`` is 1 / copies of station ``k``: a
    station of m identical queues sharing its demand evenly has R = D (1 + Q / m).
    ``stops`` holds populations >= 1 in ascending order: the recursion runs once, to the
    last, and at the i-th it writes the throughput into ``Xs[i]``, the queue lengths into
    ``Qs[i]`` and the residence times into ``Rs[i]`` -- the very operations, so the very
    numbers, of a run that stops there. ``q`` and ``scratch`` are work arrays of K.
    """
    K = D.shape[0]
    zd = Z
    for k in range(K):
        q[k] = 0.0
        if kind[k] != _QUEUE:
            zd += D[k]
    x = 0.0
    done = 0   # the population the recursion has reached
    for i in range(stops.shape[0]):
        top = stops[i]
        if nqueue == K:  # all single-server queues: the branch-free loop
            for n in range(done + 1, top + 1):
                s = zd
                for k in range(K):
                    rk = D[k] * (1.0 + q[k] * inv_m[k])
                    scratch[k] = rk
                    s += rk
                x = n / s
                for k in range(K):
                    q[k] = x * scratch[k]
            for k in range(K):
                Qs[i, k] = q[k]
        else:
            for n in range(done + 1, top + 1):
                s = zd
                for j in range(nqueue):
                    k = qidx[j]
                    rk = D[k] * (1.0 + q[k] * inv_m[k])
                    scratch[k] = rk
                    s += rk
                x = n / s
                for j in range(nqueue):
                    k = qidx[j]
                    q[k] = x * scratch[k]
            for k in range(K):
                Qs[i, k] = x * D[k]  # delays; queues are rewritten below
            for j in range(nqueue):
                k = qidx[j]
                Qs[i, k] = x * scratch[k]
        for k in range(K):
            Rs[i, k] = Qs[i, k] / x if x > 0.0 else 0.0
        Xs[i] = x
        done = top


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
    qwork = np.empty(K)
    qidx = np.empty(K, np.int64)
    inv_m = np.empty(K)
    stop = np.empty(1, np.int64)
    for b in range(B):
        npop = N[b]
        total = Z[b]
        for k in range(K):
            total += D[b, k]
        if npop == 0 or not total > 0.0:
            _no_jobs(b, 0.0 if npop == 0 else np.nan, X, Q, R, U, RT)
            continue
        nqueue, multi = _classify(D[b], servers[b], copies[b], npop, kind, c_of, qidx, inv_m)
        if multi:
            X[b] = _ld_network(D[b], Z[b], npop, kind, c_of, copies[b], Q[b], R[b])
        else:
            stop[0] = npop
            _plain_network(D[b], Z[b], stop, kind, qidx, nqueue, inv_m, qwork, scratch, X[b:b + 1], Q[b:b + 1],
                           R[b:b + 1])
        RT[b] = _utilization_and_response(X[b], D[b], servers[b], copies[b], R[b], U[b])


@_jit
def mva_sweep(D, Z, N, servers, copies, X, Q, R, U, RT):
    """Exact single-class MVA of one network at each of ``B`` populations, in one recursion.

    D (K,) demands [s]; Z think time [s]; N (B,) populations in any order; servers (K,)
    float, copies (K,) int64, as one row of :func:`mva_batch`, which must not make any
    station multi-server at max(N) (the caller checks: every station with demand has one
    server, or at least max(N), or is a delay), and Z + sum(D) > 0. Writes what
    :func:`mva_batch` writes for the network given once per population, and the same
    numbers bit for bit: the recursion stops at each population asked for, and its first n
    steps are those of a run to n.
    """
    B = N.shape[0]
    K = D.shape[0]
    kind = np.empty(K, np.int64)
    c_of = np.ones(K, np.int64)
    qidx = np.empty(K, np.int64)
    inv_m = np.empty(K)
    order = np.argsort(N, kind="mergesort")
    stops = np.empty(B, np.int64)
    slot = np.empty(B, np.int64)    # row b -> its population's index in stops (-1: N = 0)
    nstop = 0
    for i in range(B):
        b = order[i]
        if N[b] == 0:
            slot[b] = -1
            continue
        if nstop == 0 or stops[nstop - 1] != N[b]:
            stops[nstop] = N[b]
            nstop += 1
        slot[b] = nstop - 1
    Xs = np.empty(nstop)
    Qs = np.empty((nstop, K))
    Rs = np.empty((nstop, K))
    if nstop > 0:
        nqueue, multi = _classify(D, servers, copies, stops[nstop - 1], kind, c_of, qidx, inv_m)
        _plain_network(D, Z, stops[:nstop], kind, qidx, nqueue, inv_m, np.empty(K), np.empty(K), Xs, Qs, Rs)
    for b in range(B):
        i = slot[b]
        if i < 0:
            _no_jobs(b, 0.0, X, Q, R, U, RT)
            continue
        X[b] = Xs[i]
        for k in range(K):
            Q[b, k] = Qs[i, k]
            R[b, k] = Rs[i, k]
        RT[b] = _utilization_and_response(X[b], D, servers, copies, R[b], U[b])


@_jit
def _no_jobs(b, x, X, Q, R, U, RT):
    """Row ``b`` of a batch with no work: throughput ``x`` (0; nan for jobs but no demand), all else 0."""
    X[b] = x
    RT[b] = 0.0
    for k in range(Q.shape[1]):
        Q[b, k] = 0.0
        R[b, k] = 0.0
        U[b, k] = 0.0


@_jit
def _classify(D, servers, copies, npop, kind, c_of, qidx, inv_m):
    """Station kinds of one network at population ``npop`` (writes kind, c_of, qidx, inv_m).

    Returns (number of single-server queues, whether any station is multi-server).
    """
    multi = False
    nqueue = 0
    for k in range(D.shape[0]):
        inv_m[k] = 1.0 / copies[k]
        c = servers[k]
        if D[k] == 0.0:
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
    return nqueue, multi


@_jit
def _utilization_and_response(x, D, servers, copies, R, U):
    """Per-server utilizations of one network into ``U``; returns its response time (sum of R)."""
    rt = 0.0
    for k in range(D.shape[0]):
        rt += R[k]
        c = servers[k]
        U[k] = 0.0 if c == np.inf else x * D[k] / (c * copies[k])
    return rt


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

"""Multi-server stations in approximate and mixed multi-class networks, and multi-class bounds.

* :func:`amva_multiserver_residence` -- the residence time of a c-server station in
  approximate MVA: Seidmann et al. or Rolia & Sevcik (used by
  :func:`zmodel.queueing.amva`, ``multiserver=``).
* :func:`mixed_multiserver` -- exact mixed open/closed networks with multi-server stations
  (used by :func:`zmodel.queueing.mixed_network` when a station has c > 1 servers).
* :func:`multiclass_bounds` -- asymptotic and balanced-job bounds per class, and the
  bottleneck analysis over population mixes (Balbo & Serazzi).
"""
from __future__ import annotations

import dataclasses
import math
from typing import ClassVar

import numpy as np

from ._result import Result
from ._validate import as_float_array, as_int_array

__all__ = ["amva_multiserver_residence", "mixed_multiserver", "multiclass_bounds",
           "MultiClassBoundsResult", "bottleneck_mixes", "BottleneckResult"]


# --------------------------------------------------------------------------- AMVA

def amva_multiserver_residence(service_demands, arrival_queue, servers, busy_servers=None,
                               method="seidmann"):
    r"""Residence time at c-server stations from the queue an arriving job sees (AMVA).

    Parameters
    ----------
    service_demands : array_like, shape (..., K)
        Demand D_k of the arriving class at each station (on one server) [s].
    arrival_queue : array_like, shape (..., K)
        Mean number of jobs an arriving job finds at each station, A_k [1].
    servers : array_like, shape (K,)
        Servers c_k >= 1 [1].
    busy_servers : array_like, shape (..., K), optional
        Mean number of busy servers :math:`\sum_j X_j D_{jk}` (``"rolia"`` only) [1].
    method : {"seidmann", "rolia"}
        The approximation.

    Returns
    -------
    ndarray
        Residence time R_k, shape of ``service_demands`` [s].

    Notes
    -----
    Seidmann, Schweitzer & Shalev-Oren (1987): a c-server station is a single server
    of demand D/c followed by a delay of D (c-1)/c,

    .. math:: R_k = \frac{D_k}{c_k}\,(1 + A_k) + D_k\,\frac{c_k - 1}{c_k}.

    Rolia & Sevcik (1995, the Method of Layers; the form of the LQNS solver's
    ``Rolia_Multi_Server``): an arriving job waits for the jobs ahead only when all
    servers are busy, with probability estimated as :math:`P_B = \rho_k^{c_k}`,
    :math:`\rho_k = \min(1, \sum_j X_j D_{jk} / c_k)`,

    .. math:: R_k = D_k\Big(1 + \frac{P_B\,A_k}{c_k}\Big).

    Both reduce to D (1 + A) at c = 1 only for Seidmann (Rolia's P_B = U is meant for
    c > 1); both are exact at light load (A = 0) and tend to the c-server capacity
    bound at heavy load.

    References
    ----------
    A. Seidmann, P. J. Schweitzer, S. Shalev-Oren, "Computerized closed queueing
    network models of flexible manufacturing systems", Large Scale Systems 12:91-107,
    1987.
    J. A. Rolia, K. C. Sevcik, "The Method of Layers", IEEE Trans. Software Eng.
    21(8):689-700, 1995. doi:10.1109/32.403785
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §9.1 (approximate MVA, multiple servers).

    Examples
    --------
    >>> amva_multiserver_residence([2.0], [3.0], [2]).tolist()   # 2/2 * 4 + 2 * 1/2
    [5.0]
    >>> amva_multiserver_residence([2.0], [3.0], [2], [1.0], "rolia").tolist()  # 2 (1 + 0.25*3/2)
    [2.75]
    """
    D = np.asarray(service_demands, dtype=float)
    A = np.asarray(arrival_queue, dtype=float)
    c = np.asarray(servers, dtype=float)
    if method == "seidmann":
        return D / c * (1.0 + A) + D * (c - 1.0) / c
    if method == "rolia":
        if busy_servers is None:
            raise ValueError("busy_servers must be given for method 'rolia'")
        rho = np.minimum(1.0, np.asarray(busy_servers, dtype=float) / c)
        return D * (1.0 + rho ** c * A / c)
    raise ValueError(f"method must be 'seidmann' or 'rolia', got {method!r}")


def _amva_core_multiserver(D, N, Z, delay, F, Q, tol, max_iter, nserv, multiserver):
    """``closed._amva_core`` with c-server stations (``nserv`` > 1) approximated."""
    C, K = D.shape
    Nf = N.astype(float)
    safe = np.where(Nf > 0, Nf, 1.0)
    Nm = Nf[None, :] - np.eye(C)
    multi = nserv > 1
    residual = np.inf
    omega = 0.5
    X = np.zeros(C)
    R = D.copy()
    it = 0
    for it in range(1, max_iter + 1):
        frac = Q / safe[:, None]
        est = np.clip(Nm[:, :, None] * (frac[None, :, :] + F), 0.0, None)
        A = est.sum(axis=1)                       # (class j, station k)
        busy = (X[:, None] * D).sum(axis=0)        # busy servers per station
        Rm = amva_multiserver_residence(D, A, nserv, np.broadcast_to(busy, D.shape), multiserver)
        Rn = np.where(delay, D, np.where(multi, Rm, D * (1.0 + A)))
        # Rolia's P_B = rho^c feeds back through X and oscillates near saturation:
        # under-relax the residence times (as the LQNS solver filters Rolia's waiting
        # times); the fixed point is unchanged
        R = omega * Rn + (1.0 - omega) * R if (multiserver == "rolia" and it > 1) else Rn
        X = np.where(N > 0, Nf / np.maximum(Z + R.sum(axis=1), np.finfo(float).tiny), 0.0)
        Qn = X[:, None] * R
        prev, residual = residual, float(np.max(np.abs(Qn - Q)))
        if residual > prev:  # the relaxation halves whenever the change grows
            omega = max(omega / 2.0, 1.0 / 1024.0)
        Q = Qn
        if residual < tol:
            break
    return Q, X, R, it, residual


# --------------------------------------------------------------------------- mixed networks

def _log_phi(rho, c, nmax):
    r"""log phi(n), n = 0..nmax, of a c-server station carrying open load rho < c.

    :math:`\phi(n) = \sum_{m\ge0}\binom{n+m}{m}\rho^m / A(n+m)`, A(j) = prod_{i<=j}
    min(i, c): the open jobs summed out of the station's product-form factor. Terms with
    n + m < c are rho^m/(m! n!); the rest form a negative-binomial tail,
    :math:`\frac{c^c}{c!\,c^n}(1-x)^{-(n+1)} I_x(m_0, n+1)`, x = rho/c,
    m_0 = max(0, c - n) (regularised incomplete beta function).
    """
    from scipy.special import betainc, gammaln, logsumexp

    n = np.arange(nmax + 1, dtype=float)
    x = rho / c
    out = np.empty(nmax + 1)
    logc = math.log(c)
    with np.errstate(divide="ignore"):
        lrho = math.log(rho) if rho > 0 else -np.inf
        for i, nv in enumerate(n):
            m0 = int(max(0, c - nv))
            terms = []
            if m0 > 0:
                m = np.arange(m0, dtype=float)
                with np.errstate(invalid="ignore"):
                    fin = np.where(m == 0, 0.0, m * lrho) - gammaln(m + 1) - gammaln(nv + 1)
                terms.append(logsumexp(fin))
            tail = c * logc - gammaln(c + 1) - nv * logc - (nv + 1) * math.log1p(-x)
            if m0 > 0:
                b = betainc(m0, nv + 1, x) if x > 0 else 0.0
                tail = tail + (math.log(b) if b > 0 else -np.inf)
            terms.append(tail)
            out[i] = logsumexp(terms)
    return out


def mixed_multiserver(open_arrival_rates, open_demands, closed_demands, populations,
                      think_times, servers):
    r"""Mixed open/closed network with multi-server stations, exact (product form).

    Inputs as :func:`zmodel.queueing.mixed_network` (validated there), with ``servers``
    (K,) a float array of 1, integers c > 1 or inf. Returns the fields of
    :class:`~zmodel.queueing.MixedNetworkResult` as a dict.

    Notes
    -----
    At a queueing station with c servers and open load
    :math:`\rho_k = \sum_o \lambda_o D_{ok} < c_k` (busy servers), summing the open
    jobs out of the product-form factor leaves the closed classes a load-dependent
    station with rate multipliers

    .. math::

        \alpha^*_k(n) = \frac{\phi_k(n-1)}{\phi_k(n)},\qquad
        \phi_k(n) = \sum_{m \ge 0}\binom{n+m}{m}\frac{\rho_k^m}{A_k(n+m)},\quad
        A_k(j) = \prod_{i=1}^{j}\min(i, c_k),

    solved by exact load-dependent MVA (:func:`zmodel.queueing.mva_load_dependent`).
    Given n closed jobs there, the open jobs number on average
    :math:`\mathrm E[m \mid n] = (n+1)\rho_k\,\phi_k(n+1)/\phi_k(n)`, so
    :math:`Q^{open}_k = \sum_n p_k(n \mid N)\,\mathrm E[m\mid n]`, shared among the
    open classes in proportion to :math:`\lambda_o D_{ok}`, and
    :math:`R_{ok} = Q_{ok}/\lambda_o`. With c = 1, :math:`\alpha^* = 1 - \rho` and
    :math:`Q^{open} = \rho(1 + Q^{closed})/(1-\rho)`: the single-server rule of
    Lazowska et al. (1984, §7.4.3). The tail of phi is a negative-binomial sum,
    evaluated with the regularised incomplete beta function in log space.

    References
    ----------
    F. Baskett, K. M. Chandy, R. R. Muntz, F. G. Palacios, "Open, closed, and mixed
    networks of queues with different classes of customers", J. ACM 22(2):248-260,
    1975. doi:10.1145/321879.321887 (product form of mixed networks).
    G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks and Markov
    Chains*, 2nd ed., Wiley 2006, §8.2 (MVA for mixed networks).
    """
    from ._validate import warn_saturated
    from .loaddep import mva_load_dependent

    lam, d_op, d_cl, pops, z, srv = (open_arrival_rates, open_demands, closed_demands,
                                     populations, think_times, servers)
    n_open, n_closed, K = lam.size, d_cl.shape[0], srv.size
    delay = np.isinf(srv)
    cap = np.where(delay, np.inf, srv)
    rho_ok = np.where(delay, 0.0, lam[:, None] * d_op)                    # (O, K) busy servers
    rho = rho_ok.sum(axis=0)
    sat = ~delay & (rho >= cap)
    warn_saturated(sat, "station", stacklevel=3)
    trapped = ((d_cl > 0) & sat).any(axis=1) & (pops > 0)
    free = ~trapped
    total = int(pops[free].sum()) if n_closed else 0
    tables, log_phi = {}, {}
    for k in range(K):
        if delay[k] or sat[k]:
            continue
        lp = _log_phi(rho[k], int(srv[k]), total + 1)
        log_phi[k] = lp
        if total > 0:
            tables[k] = np.exp(lp[:-1] - lp[1:])[:total]
    x_cl = np.zeros(n_closed)
    q_cl = np.zeros((n_closed, K))
    r_cl = np.zeros((n_closed, K))
    marg = np.zeros((K, total + 1))
    marg[:, 0] = 1.0
    if free.any() and total > 0:
        d_free = np.where(sat, 0.0, d_cl[free])
        sol = mva_load_dependent(d_free, pops[free], z[free], np.where(delay, np.inf, 1.0),
                                 rate_multipliers=tables, marginals=True)
        x_cl[free] = sol.throughput
        q_cl[free] = sol.queue_length
        r_cl[free] = sol.residence_time
        marg = np.where(np.isnan(sol.marginal), 0.0, sol.marginal)
    if trapped.any():
        share = np.where(sat, d_cl[trapped], 0.0)
        q_cl[trapped] = pops[trapped, None] * share / share.sum(axis=1, keepdims=True)
        r_cl[trapped] = np.where(share > 0, np.inf, 0.0)
    q_open = np.zeros(K)
    for k, lp in log_phi.items():
        n = np.arange(total + 1, dtype=float)
        e_m = (n + 1) * rho[k] * np.exp(lp[1:total + 2] - lp[:total + 1])   # E[m | n]
        q_open[k] = float((marg[k] * e_m).sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        q_op = np.where(rho > 0, rho_ok / np.where(rho > 0, rho, 1.0), 0.0) * q_open
        r_op = np.where(lam[:, None] > 0, q_op / np.where(lam > 0, lam, 1.0)[:, None], 0.0)
    r_op = np.where(delay, d_op, r_op)
    q_op = np.where(delay, lam[:, None] * d_op, q_op)
    r_op = np.where((d_op > 0) & sat, np.inf, r_op)
    q_op = np.where((d_op > 0) & sat, np.inf, q_op)
    u_op = np.where(delay, 0.0, rho_ok / cap)
    u_cl = np.where(delay, 0.0, x_cl[:, None] * d_cl / cap)
    resid = np.vstack([r_op, r_cl])
    return dict(throughput=np.concatenate([lam, x_cl]), response_time=resid.sum(axis=1),
                residence_time=resid, queue_length=np.vstack([q_op, q_cl]),
                utilization=np.vstack([u_op, u_cl]),
                is_open=np.arange(n_open + n_closed) < n_open)

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
    network models of flexible manufacturing systems", Large Scale Systems 12, 1987
    (pages not verified).
    J. A. Rolia, K. C. Sevcik, "The Method of Layers", IEEE Trans. Software Eng. 21(8),
    1995; the waiting-time form as implemented in the LQNS solver library (libmva,
    ``Rolia_Multi_Server``, which cites Rolia's thesis p. 157).
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
    q_closed = q_cl.sum(axis=0)
    for k, lp in log_phi.items():
        if srv[k] == 1:  # alpha* = 1 - rho: E[m | n] = (n + 1) rho / (1 - rho)
            q_open[k] = rho[k] * (1.0 + q_closed[k]) / (1.0 - rho[k])
            continue
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


# --------------------------------------------------------------------------- bounds

@dataclasses.dataclass(frozen=True)
class MultiClassBoundsResult(Result):
    """Per-class bounds on throughput and response time of a closed network.

    Attributes
    ----------
    throughput_lower, throughput_upper : ndarray
        Bounds on each class's throughput X_c, shape (C,) [1/s].
    response_time_lower, response_time_upper : ndarray
        Bounds on each class's response time R_c (think time excluded), shape (C,) [s].
    method : str
        ``"asymptotic"`` or ``"balanced job"``.
    """

    throughput_lower: np.ndarray
    throughput_upper: np.ndarray
    response_time_lower: np.ndarray
    response_time_upper: np.ndarray
    method: str

    trailing_dims: ClassVar[tuple[str, ...]] = ("class",)

    def _frame_dims(self) -> tuple[str, ...]:
        return ("class",)


def _check_bounds(service_demands, populations, think_times, servers):
    """The checks of :func:`zmodel.queueing.mva_multiclass` (one checker), populations as floats."""
    from .closed import _check_multiclass

    D, N, Z, srv = _check_multiclass(service_demands, populations, think_times, servers)
    return D, N.astype(float), Z, srv


def multiclass_bounds(service_demands, populations, think_times=0.0, servers=1,
                      method="asymptotic") -> MultiClassBoundsResult:
    r"""Asymptotic or balanced-job bounds on each class of a closed multi-class network.

    Parameters
    ----------
    service_demands : array_like, shape (C, K)
        Demand D_ck of class c at station k (on one server of a multi-server
        station) [s].
    populations : array_like, shape (C,)
        Jobs N_c >= 0 per class [1].
    think_times : float or array_like
        Think time Z_c per class [s].
    servers : int, float or sequence of length K
        1, an integer c > 1, or ``math.inf`` (delay) per station [1].
    method : {"asymptotic", "balanced job"}
        Which bounds.

    Returns
    -------
    MultiClassBoundsResult
        ``throughput_lower/upper`` [1/s], ``response_time_lower/upper`` [s], shape (C,);
        zeros for a class without jobs.

    Notes
    -----
    With :math:`N = \sum_c N_c`, :math:`D_c = \sum_k D_{ck}` (delay demand
    :math:`D^{\infty}_c` counted with the think time), queueing stations q, and the
    arrival theorem :math:`R_{ck} = D_{ck}(1 + Q_k(\mathbf N - \mathbf e_c))` (for c
    servers, :math:`R_{ck} \le D_{ck}(1 + Q_k)`, and :math:`R_{ck} \ge D_{ck}` always):

    *Asymptotic* (Lazowska et al. 1984, §5.2, applied per class): a class
    never does better than alone in the network, and the utilization law
    :math:`\sum_c X_c D_{ck} \le c_k` caps each class after the others' lower bounds,

    .. math::

        X_c \le \min\Big(\frac{N_c}{D_c + Z_c},\;
               \min_k \frac{c_k - \sum_{j\ne c} X^{-}_j D_{jk}}{D_{ck}}\Big),\qquad
        X_c \ge X^{-}_c = \frac{N_c}{Z_c + D^{\infty}_c + N \sum_{k\in q} D_{ck}},

    the lower one because :math:`Q_k(\mathbf N - \mathbf e_c) \le N - 1`.

    *Balanced job* (the multi-class form of Kerola's composite bounds): since
    :math:`\sum_k D_{ck} Q_k \le D^{max}_c (N - 1)`,
    :math:`X_c \ge N_c / (Z_c + D_c + (N-1) D^{max}_c)`, and with no think time and no
    delay demand, :math:`\sum_k Q_k(\mathbf N - \mathbf e_c) = N - 1` gives
    :math:`X_c \le N_c / ((K_q + N - 1) D^{min}_c)` (K_q queueing stations), each
    intersected with the asymptotic bounds. Response times follow from
    :math:`R_c = N_c/X_c - Z_c`.

    References
    ----------
    E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik, *Quantitative System
    Performance*, Prentice Hall 1984, ch. 5 (§5.2 asymptotic bounds, §5.4 balanced
    system bounds).
    T. Kerola, "The composite bound method (CBM) for computing throughput bounds in
    multiple class environments", Tech. Rep. CSD-TR-475, Purdue University, 1984 (as
    cited by GNU Octave's ``qncmbsb``); the bounds here are re-derived above from the
    arrival theorem.

    Examples
    --------
    One class of 2 jobs at two 1 s stations: N/(N D + Z) = 2/4 <= X <= N/D = 1, and
    <= 1/D_max = 1.

    >>> b = multiclass_bounds([[1.0, 1.0]], [2])
    >>> b.throughput_lower.tolist(), b.throughput_upper.tolist()
    ([0.5], [1.0])
    """
    D, N, Z, srv = _check_bounds(service_demands, populations, think_times, servers)
    if method not in ("asymptotic", "balanced job"):
        raise ValueError(f"method must be 'asymptotic' or 'balanced job', got {method!r}")
    C, K = D.shape
    delay = np.isinf(srv)
    cap = np.where(delay, np.inf, srv)
    Dq = np.where(delay, 0.0, D)
    Zd = Z + np.where(delay, D, 0.0).sum(axis=1)
    Dtot = D.sum(axis=1)
    Ntot = N.sum()
    has = N > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        x_lo = np.where(has, N / (Zd + Ntot * Dq.sum(axis=1)), 0.0)
        x_hi = np.where(has, N / (Dtot + Z), 0.0)
        if method == "balanced job":
            dmax = Dq.max(axis=1)
            x_lo = np.maximum(x_lo, np.where(has, N / (Zd + Dq.sum(axis=1) + (Ntot - 1) * dmax), 0.0))
            kq = int((~delay).sum())
            if kq and np.all(Zd == 0):
                dmin = Dq[:, ~delay].min(axis=1)
                bjb = np.where(dmin > 0, N / ((kq + Ntot - 1) * dmin), np.inf)
                x_hi = np.minimum(x_hi, np.where(has, bjb, 0.0))
        others = (x_lo[:, None] * Dq).sum(axis=0)[None, :] - x_lo[:, None] * Dq   # (C, K)
        room = np.where(Dq > 0, np.maximum(cap[None, :] - others, 0.0) / Dq, np.inf)
        x_hi = np.where(has, np.minimum(x_hi, room.min(axis=1)), 0.0)
        x_lo = np.minimum(x_lo, x_hi)
        r_lo = np.where(has, N / x_hi - Z, 0.0)
        r_hi = np.where(has, N / x_lo - Z, 0.0)
    return MultiClassBoundsResult(throughput_lower=x_lo, throughput_upper=x_hi,
                                  response_time_lower=np.maximum(r_lo, 0.0),
                                  response_time_upper=r_hi, method=method)


@dataclasses.dataclass(frozen=True)
class BottleneckResult(Result):
    """Bottlenecks of a two-class network over the population mix (Balbo & Serazzi).

    One row per sector of the class-1 population fraction beta_1 = N_1/N in [0, 1].

    Attributes
    ----------
    beta_low, beta_high : ndarray
        Ends of the sector [1].
    stations : tuple of tuple of int
        The station(s) that saturate as N grows with beta_1 inside the sector: one for
        a single bottleneck, two in a saturation sector of common bottlenecks.
    common : ndarray of bool
        True for a saturation sector (two stations saturate together).
    throughput_mix : ndarray
        Class-1 share of the throughput X_1/(X_1 + X_2) at which the two stations of a
        saturation sector are equally loaded (NaN for a single bottleneck) [1].
    """

    beta_low: np.ndarray
    beta_high: np.ndarray
    stations: tuple
    common: np.ndarray
    throughput_mix: np.ndarray

    def to_frame(self):
        """One row per sector."""
        import pandas as pd

        return pd.DataFrame({"beta_low": self.beta_low, "beta_high": self.beta_high,
                             "stations": list(self.stations), "common": self.common,
                             "throughput_mix": self.throughput_mix})


def bottleneck_mixes(service_demands, servers=1) -> BottleneckResult:
    r"""Bottleneck analysis of a two-class closed network over population mixes.

    Parameters
    ----------
    service_demands : array_like, shape (2, K)
        Demand D_ck of the two classes at each station (on one server) [s].
    servers : int, float or sequence of length K
        1, an integer c > 1, or ``math.inf`` (delay, never a bottleneck) [1].

    Returns
    -------
    BottleneckResult
        Sectors of beta_1 = N_1/N with their bottleneck station(s).

    Notes
    -----
    Balbo & Serazzi (1997): let the total population grow with a fixed mix
    :math:`\beta_1 = N_1/N`. With throughput mix :math:`\gamma = X_1/(X_1+X_2)`,
    station k's load per unit throughput is
    :math:`L_k(\gamma) = (\gamma D_{1k} + (1-\gamma) D_{2k})/c_k`; the stations on the
    upper envelope of these lines are the potential bottlenecks, and two neighbours i, j
    on it switch at :math:`\gamma^*_{ij}` where :math:`L_i = L_j`. At that throughput
    mix both saturate, and since the jobs then sit in those two queues with class shares
    equal to their utilization shares, the population mixes for which i and j are
    *common* bottlenecks form the saturation sector

    .. math::

        \beta_1 \in \big[\min(f_i, f_j),\ \max(f_i, f_j)\big],\qquad
        f_k = \frac{\gamma^* D_{1k}}{\gamma^* D_{1k} + (1-\gamma^*) D_{2k}}
            = \frac{U_{1k}}{U_k},

    between which a single station is the bottleneck. Exact in the limit N -> infinity
    for separable networks.

    References
    ----------
    G. Balbo, G. Serazzi, "Asymptotic analysis of multiclass closed queueing networks:
    multiple bottlenecks", Performance Evaluation 30, 1997, pp. 115-152 (the population
    mix space partitioned into sectors where several stations saturate together).
    G. Balbo, G. Serazzi, "Asymptotic analysis of multiclass closed queueing networks:
    common bottleneck", Performance Evaluation, 1996 (volume and pages not verified).

    Examples
    --------
    Class 1 loads station 0 (demands 2 vs 1), class 2 loads station 1 (1 vs 2): they
    switch at gamma* = 1/2 where f_0 = 2/3 and f_1 = 1/3.

    >>> r = bottleneck_mixes([[2.0, 1.0], [1.0, 2.0]])
    >>> [(round(float(lo), 4), round(float(hi), 4), s)
    ...  for lo, hi, s in zip(r.beta_low, r.beta_high, r.stations)]
    [(0.0, 0.3333, (1,)), (0.3333, 0.6667, (0, 1)), (0.6667, 1.0, (0,))]
    """
    from ._validate import as_servers

    D = as_float_array("service_demands", service_demands)
    if D.ndim != 2 or D.shape[0] != 2 or D.shape[1] == 0:
        raise ValueError("service_demands must have shape (2, stations): the bottleneck "
                         f"analysis over population mixes is for two classes, got shape {D.shape}")
    K = D.shape[1]
    srv = as_servers(servers, K)
    queue = np.isfinite(srv)
    if not queue.any() or not (D[:, queue] > 0).any():
        raise ValueError("service_demands must load at least one station with finite servers")
    a = np.where(queue, D[0] / np.where(queue, srv, 1.0), -np.inf)   # L_k(1)
    b = np.where(queue, D[1] / np.where(queue, srv, 1.0), -np.inf)   # L_k(0)
    # upper envelope of L_k(g) = g a_k + (1 - g) b_k over g in [0, 1]
    cuts = {0.0, 1.0}
    for i in range(K):
        for j in range(i + 1, K):
            if queue[i] and queue[j]:
                den = (a[i] - b[i]) - (a[j] - b[j])
                if den != 0:
                    g = (b[j] - b[i]) / den
                    if 0 < g < 1:
                        cuts.add(float(g))
    cuts = sorted(cuts)
    env = []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        g = 0.5 * (lo + hi)
        load = g * a + (1 - g) * b
        k = int(np.argmax(load))
        if env and env[-1][0] == k:
            env[-1][2] = hi
        else:
            env.append([k, lo, hi])
    # beta_1 from gamma at a switch: f_k = g D1k / (g D1k + (1-g) D2k)
    def share(k, g):
        u1, u2 = g * D[0, k], (1 - g) * D[1, k]
        return u1 / (u1 + u2) if u1 + u2 > 0 else 0.0

    rows = []
    beta_prev = 0.0
    for idx, (k, lo, hi) in enumerate(env):
        if idx + 1 < len(env):
            j, g = env[idx + 1][0], hi
            f1, f2 = sorted((share(k, g), share(j, g)))
            rows.append((beta_prev, f1, (k,), False, math.nan))
            rows.append((f1, f2, tuple(sorted((k, j))), True, g))
            beta_prev = f2
        else:
            rows.append((beta_prev, 1.0, (k,), False, math.nan))
    rows = [r for r in rows if r[1] > r[0] or r[3]]
    lo, hi, st_, com, mix = zip(*rows)
    return BottleneckResult(beta_low=np.array(lo), beta_high=np.array(hi), stations=tuple(st_),
                            common=np.array(com), throughput_mix=np.array(mix))

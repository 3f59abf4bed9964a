"""Mixed open/closed multi-class product-form networks (QSP §7.4.3).

The open classes are solved first (their utilizations do not depend on the closed
ones); the closed classes then see each queueing station slowed by the open load,
D*_ck = D_ck / (1 - U_open_k), and are solved by exact multi-class MVA; finally the
open classes' residence times account for the closed jobs they find queued.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, as_int_array, as_servers, vectorized, warn_saturated

__all__ = ["mixed_network", "MixedNetworkResult"]


@dataclasses.dataclass(frozen=True)
class MixedNetworkResult(Result):
    """Solution of a mixed network; classes are the open ones, then the closed ones.

    Attributes
    ----------
    throughput : numpy.ndarray
        Per-class throughput: the arrival rate for an open class, the MVA
        throughput for a closed class; shape (O + C,) [1/s].
    response_time : numpy.ndarray
        Per-class sum of residence times, think time excluded; shape (O + C,) [s].
    residence_time : numpy.ndarray
        Time a job of the class spends at each station over all its visits;
        shape (O + C, K) [s].
    queue_length : numpy.ndarray
        Mean number of jobs of the class at each station; shape (O + C, K) [1].
    utilization : numpy.ndarray
        Per-class utilization X_c D_ck (0 at a delay station); shape (O + C, K) [1].
    is_open : numpy.ndarray
        True for the open classes (the first O rows); shape (O + C,).
    """

    throughput: np.ndarray
    response_time: np.ndarray
    residence_time: np.ndarray
    queue_length: np.ndarray
    utilization: np.ndarray
    is_open: np.ndarray

    trailing_dims: ClassVar[tuple[str, ...]] = ("class", "station")

    def _frame_dims(self) -> tuple[str, ...]:
        return ("class", "station")


def _as_class_matrix(name, value, k=None):
    arr = as_float_array(name, value)
    if arr.ndim == 1 and arr.size == 0:
        arr = arr.reshape(0, 0 if k is None else k)
    if arr.ndim != 2:
        raise ValueError(f"{name} must have shape (classes, stations), got shape {arr.shape}")
    return arr


@vectorized
def mixed_network(open_arrival_rates, open_demands, closed_demands, populations,
                  think_times=0.0, servers=1) -> MixedNetworkResult:
    r"""Mixed open/closed multi-class product-form network.

    Parameters
    ----------
    open_arrival_rates : array_like, shape (O,)
        Arrival rate of each open class (may be empty) [1/s].
    open_demands : array_like, shape (O, K)
        Service demand D_ok of open class o at station k [s].
    closed_demands : array_like, shape (C, K)
        Service demand D_ck of closed class c at station k [s].
    populations : array_like of int, shape (C,)
        Jobs N_c >= 0 of each closed class [1].
    think_times : float or array_like, shape (C,), optional
        Think time Z_c of each closed class [s].
    servers : float or sequence of length K, optional
        1 (single-server queue, default), an integer c > 1 (c servers, solved
        exactly by :func:`zmodel.queueing.multiclass.mixed_multiserver`; utilization
        is then per server) or ``math.inf`` (delay station) per station [1].

    Returns
    -------
    MixedNetworkResult
        Open classes first, then closed classes: ``throughput``,
        ``response_time`` (O + C,), ``residence_time``, ``queue_length``,
        ``utilization`` (O + C, K), ``is_open``.

    Notes
    -----
    With :math:`U^{o}_k = \sum_{o} \lambda_o D_{ok}` the open utilization of a
    queueing station,

    .. math::

        D^*_{ck} = \frac{D_{ck}}{1 - U^{o}_k},\qquad
        (X_c, R_{ck}, Q_{ck}) = \mathrm{MVA}(D^*, N, Z),\qquad
        R_{ok} = \frac{D_{ok}\,(1 + Q^{c}_k)}{1 - U^{o}_k},

    where :math:`Q^{c}_k = \sum_c Q_{ck}(N)` is the closed jobs' queue length,
    :math:`Q_{ok} = \lambda_o R_{ok}`, and at a delay station
    :math:`D^*_{ck} = D_{ck}`, :math:`R_{ok} = D_{ok}`. Closed-class
    utilizations use the original demands, :math:`U_{ck} = X_c D_{ck}`. Exact
    for separable networks with :math:`U^o_k < 1`; the closed solution is
    :func:`zmodel.queueing.mva_multiclass`.

    Saturation (:math:`U^o_k \ge 1` at a queueing station) follows the
    library's policy with one :class:`~zmodel.queueing.SaturationWarning`: open
    classes visiting a saturated station get ``inf`` residence time, response
    time and queue length there, and carry :math:`\lambda_o / \max_k U^o_k` (the
    maximum over the saturated stations they visit), so that every utilization is
    at the carried rate and at most 1 (a single saturated station: utilization 1,
    throughput its capacity); a closed class visiting one is trapped there
    in the limit: throughput 0, response and residence time ``inf`` at the
    saturated stations it visits (0 elsewhere), and its N_c jobs split over
    those stations in proportion to D_ck; the other closed classes are solved
    by MVA without the trapped ones.

    References
    ----------
    .. [1] E. D. Lazowska, J. Zahorjan, G. S. Graham, K. C. Sevcik,
       *Quantitative System Performance*, Prentice-Hall, 1984, ch. 7, §7.4.3
       (mixed model solution technique; section number inferred from the
       neighbouring §7.4.1 open and §7.4.2 closed techniques) and the example
       on p. 148.
    .. [2] G. Bolch, S. Greiner, H. de Meer, K. S. Trivedi, *Queueing Networks
       and Markov Chains*, 2nd ed., Wiley, 2006, ch. 8 (mean value analysis
       of mixed networks), Example 8.6 (p. 345; page not verified).
    .. [3] D. A. Menascé, V. A. F. Almeida, L. W. Dowdy, *Performance by
       Design*, Prentice Hall, 2004, §13.7 "Mixed Models".

    Examples
    --------
    Lazowska et al. (1984) p. 148: two open and two closed classes, two stations.

    >>> r = mixed_network([1.0, 0.5], [[0.25, 1/6], [0.5, 1.0]],
    ...                   [[0.5, 1.0], [1.0, 4/3]], [1, 1])
    >>> (r.queue_length[2:] * 19).round(6).tolist()     # exact: [[4, 15], [5, 14]] / 19
    [[4.0, 15.0], [5.0, 14.0]]
    """
    lam = np.ravel(as_float_array("open_arrival_rates", open_arrival_rates))
    n_open = lam.size
    d_cl = _as_class_matrix("closed_demands", closed_demands)
    d_op = _as_class_matrix("open_demands", open_demands, d_cl.shape[1] if d_cl.ndim == 2 else None)
    if d_op.shape[0] != n_open:
        raise ValueError(f"open_demands must have one row per open class ({n_open}), got shape {d_op.shape}")
    if n_open and d_cl.shape[0] and d_op.shape[1] != d_cl.shape[1]:
        raise ValueError("open_demands and closed_demands must have the same number of stations, "
                         f"got {d_op.shape[1]} and {d_cl.shape[1]}")
    k = d_cl.shape[1] if d_cl.shape[0] else d_op.shape[1]
    if k == 0:
        raise ValueError("a mixed network must have at least one station")
    if n_open == 0:
        d_op = d_op.reshape(0, k)
    n_closed = d_cl.shape[0]
    if n_closed == 0:
        d_cl = d_cl.reshape(0, k)
    pops = np.ravel(as_int_array("populations", populations, minimum=0))
    if pops.shape != (n_closed,):
        raise ValueError(f"populations must have one entry per closed class ({n_closed}), got shape {pops.shape}")
    z = as_float_array("think_times", think_times)
    if z.ndim == 0:
        z = np.full(n_closed, float(z))
    if z.shape != (n_closed,):
        raise ValueError(f"think_times must be a scalar or have one entry per closed class ({n_closed}), "
                         f"got shape {z.shape}")
    srv = as_servers(servers, k)
    if (np.isfinite(srv) & (srv != 1)).any():
        from .multiclass import mixed_multiserver

        return MixedNetworkResult(**mixed_multiserver(lam, d_op, d_cl, pops, z, srv))
    delay = np.isinf(srv)

    u_open_ck = np.where(delay, 0.0, lam[:, None] * d_op)          # (O, K)
    u_open = u_open_ck.sum(axis=0)                                  # (K,)
    sat = ~delay & (u_open >= 1.0)
    warn_saturated(sat, "station", stacklevel=2)
    with np.errstate(divide="ignore"):
        stretch = np.where(delay, 1.0, np.where(sat, np.inf, 1.0 / (1.0 - np.minimum(u_open, 1.0))))

    # closed classes: trapped ones (visiting a saturated station) are set aside
    trapped = ((d_cl > 0) & sat).any(axis=1)  # whatever its population, as documented
    x_cl = np.zeros(n_closed)
    r_cl = np.zeros((n_closed, k))
    q_cl = np.zeros((n_closed, k))
    free = ~trapped
    if free.any():
        from .closed import mva_multiclass

        d_star = np.where(sat, 0.0, d_cl[free] * np.where(sat, 1.0, stretch))
        sol = mva_multiclass(d_star, pops[free], z[free], servers=srv)
        x_cl[free] = sol.throughput
        r_cl[free] = sol.residence_time
        q_cl[free] = sol.queue_length
    if trapped.any():
        share = np.where(sat, d_cl[trapped], 0.0)
        q_cl[trapped] = pops[trapped, None] * share / share.sum(axis=1, keepdims=True)
        r_cl[trapped] = np.where(share > 0, np.inf, 0.0)
    q_closed = q_cl.sum(axis=0)

    # open classes
    with np.errstate(invalid="ignore"):
        r_op = np.where(delay, d_op, d_op * (1.0 + q_closed) * stretch)
    r_op = np.where(d_op > 0, r_op, 0.0)
    q_op = np.where(lam[:, None] > 0, lam[:, None] * r_op, 0.0)
    q_op = np.where((d_op > 0) & sat, np.inf, q_op)
    u_cl = np.where(delay, 0.0, x_cl[:, None] * d_cl)
    # saturation policy: an open class carries what its most loaded saturated station lets
    # through, lam / U, so every utilization is at the carried rate and at most 1
    overload = np.where((d_op > 0) & sat, u_open, 1.0).max(axis=1, initial=1.0)
    x_op = lam / overload
    u_open_ck = u_open_ck / overload[:, None]

    resid = np.vstack([r_op, r_cl])
    return MixedNetworkResult(
        throughput=np.concatenate([x_op, x_cl]),
        response_time=resid.sum(axis=1),
        residence_time=resid,
        queue_length=np.vstack([q_op, q_cl]),
        utilization=np.vstack([u_open_ck, u_cl]),
        is_open=np.arange(n_open + n_closed) < n_open,
    )

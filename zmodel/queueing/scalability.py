"""Scalability laws: Gunther's Universal Scalability Law (USL), its fit, and Amdahl's law.

``usl`` and ``amdahl`` are vectorised closed forms; ``usl_fit`` calibrates the USL
against measured throughput by bounded nonlinear least squares and returns a report
(value and standard error per parameter, correlations, residual table).
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from ._result import Result
from zmodel.conventions import as_float_array, as_probability, vectorized

__all__ = ["usl", "usl_fit", "amdahl", "UslFitResult"]

_GCP = ("N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007, "
        "doi:10.1007/978-3-540-31010-5")


@vectorized
def usl(concurrency, sigma, kappa, lambda_=1.0):
    r"""Throughput predicted by Gunther's Universal Scalability Law.

    Parameters
    ----------
    concurrency : float or array_like or pandas.Series
        Load N: processors, threads or concurrent users, N = 0 or N >= 1 (real
        values allowed for smooth curves) [1].
    sigma : float or array_like
        Contention (serialisation) coefficient, 0 <= sigma <= 1 [1].
    kappa : float or array_like
        Coherency (crosstalk) coefficient, kappa >= 0 [1].
    lambda_ : float or array_like, optional
        Throughput of a single unit of concurrency, X(1), lambda > 0; the default
        1 returns the relative capacity C(N) = X(N)/X(1) [1/s].

    Returns
    -------
    float or numpy.ndarray or pandas.Series
        Throughput X(N), broadcast over the inputs; a Series with the input's
        index when a Series came in [1/s].

    Notes
    -----
    .. math::

        X(N) = \frac{\lambda N}{1 + \sigma (N - 1) + \kappa N (N - 1)}

    valid for N >= 1, where the denominator is >= 1 when 0 <= sigma <= 1 and
    kappa >= 0; X(0) = 0 by definition (the formula would give 0/0 at
    sigma = 1), and 0 < N < 1 is refused as meaningless. With kappa = 0 it reduces to
    Amdahl's law with serial fraction sigma; with sigma = kappa = 0 it is linear.
    Gunther calls the coefficients sigma, kappa for hardware and alpha, beta for
    software scalability.

    References
    ----------
    .. [1] N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007,
       ch. 4 (derivation of the universal scalability model from Amdahl's law)
       and ch. 5 (evaluating the parameters; ray-tracer benchmark), ch. 6
       (software scalability). doi:10.1007/978-3-540-31010-5.
       Page numbers not verified.
    .. [2] N. J. Gunther, "A General Theory of Computational Scalability Based
       on Rational Functions", arXiv:0808.1431, 2008.

    Examples
    --------
    >>> round(usl(4, 0.02, 0.02), 4)          # relative capacity C(4) = 4/1.30
    3.0769
    >>> usl([1, 2], 0.0, 0.0, lambda_=20.0).tolist()   # linear scaling
    [20.0, 40.0]
    """
    n = as_float_array("concurrency", concurrency)
    bad = (n > 0) & (n < 1)
    if bad.any():
        raise ValueError(f"concurrency must be 0 or >= 1, got {n[bad].flat[0]!r}")
    s = as_probability("sigma", sigma)
    k = as_float_array("kappa", kappa)
    lam = as_float_array("lambda_", lambda_, positive=True)
    n, s, k, lam = np.broadcast_arrays(n, s, k, lam)
    m = np.where(n == 0, 1.0, n)
    x = np.where(n == 0, 0.0, lam * m / (1.0 + s * (m - 1.0) + k * m * (m - 1.0)))
    return x


@vectorized
def amdahl(processors, serial_fraction):
    r"""Amdahl's law: speedup of a job with a serial fraction on p processors.

    Parameters
    ----------
    processors : float or array_like or pandas.Series
        Number of processors p >= 1 (real values allowed for curves) [1].
    serial_fraction : float or array_like
        Fraction s of the single-processor run time that cannot be parallelised,
        0 <= s <= 1 [1].

    Returns
    -------
    float or numpy.ndarray or pandas.Series
        Speedup S(p) = T(1)/T(p), broadcast over the inputs [1].

    Notes
    -----
    Textbook form

    .. math::

        S(p) = \frac{1}{s + (1 - s)/p}

    computed as the algebraically equal :math:`p / (1 + s (p - 1))`, which has
    no cancellation and is exact at s = 0 (S = p) and s = 1 (S = 1). Valid for
    p >= 1, 0 <= s <= 1; S(p) <= 1/s is the asymptote. It is the kappa = 0
    special case of :func:`usl` with sigma = s.

    References
    ----------
    .. [1] G. M. Amdahl, "Validity of the single processor approach to achieving
       large scale computing capabilities", Proc. AFIPS Spring Joint Computer
       Conference 30, pp. 483-485, 1967. doi:10.1145/1465482.1465560 (the
       argument is verbal there; the formula is the standard reading of it).
    .. [2] N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007, ch. 4
       (Amdahl's law as the kappa = 0 case of the universal scalability model).

    Examples
    --------
    >>> amdahl(16, 0.05)        # 16 / (1 + 0.05 * 15)
    9.142857142857142
    >>> amdahl([1, 2], 0.0).tolist()
    [1.0, 2.0]
    """
    p = as_float_array("processors", processors)
    bad = p < 1
    if bad.any():
        raise ValueError(f"processors must be >= 1, got {p[bad].flat[0]!r}")
    s = as_probability("serial_fraction", serial_fraction)
    p, s = np.broadcast_arrays(p, s)
    return p / (1.0 + s * (p - 1.0))


@dataclasses.dataclass(frozen=True)
class UslFitResult(Result):
    """Calibration report of :func:`usl_fit`.

    Attributes
    ----------
    lambda_, sigma, kappa : float
        Fitted parameters [1/s], [1], [1].
    lambda_stderr, sigma_stderr, kappa_stderr : float
        Standard errors from the Jacobian at the optimum, s^2 (J^T J)^-1; 0 for a
        parameter held fixed, NaN when there are no residual degrees of freedom.
    peak_concurrency : float
        N* = sqrt((1 - sigma)/kappa); ``inf`` when kappa = 0 [1].
    peak_throughput : float
        X(N*); when kappa = 0 the supremum lambda/sigma (``inf`` if sigma = 0 too) [1/s].
    concurrency, throughput, predicted, residuals : numpy.ndarray
        One entry per measurement: load, measured and fitted throughput, and
        measured minus fitted [1], [1/s], [1/s], [1/s].
    covariance : numpy.ndarray
        (3, 3) covariance of (lambda_, sigma, kappa).
    dof : int
        Residual degrees of freedom (measurements minus free parameters).
    """

    lambda_: float
    sigma: float
    kappa: float
    lambda_stderr: float
    sigma_stderr: float
    kappa_stderr: float
    peak_concurrency: float
    peak_throughput: float
    concurrency: np.ndarray
    throughput: np.ndarray
    predicted: np.ndarray
    residuals: np.ndarray
    covariance: np.ndarray
    dof: int

    trailing_dims: ClassVar[tuple[str, ...]] = ("point",)

    @property
    def correlation(self) -> np.ndarray:
        """(3, 3) correlation matrix of (lambda_, sigma, kappa); NaN rows for fixed parameters."""
        sd = np.sqrt(np.diag(self.covariance))
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.covariance / np.outer(sd, sd)

    def parameters(self):
        """A :class:`pandas.DataFrame`: one row per parameter with value and stderr."""
        import pandas as pd

        return pd.DataFrame(
            {"value": [self.lambda_, self.sigma, self.kappa],
             "stderr": [self.lambda_stderr, self.sigma_stderr, self.kappa_stderr]},
            index=pd.Index(["lambda_", "sigma", "kappa"], name="parameter"))

    def to_frame(self):
        """Residual table: one row per measurement (measured, predicted, % error)."""
        import pandas as pd

        with np.errstate(invalid="ignore", divide="ignore"):
            pct = 100.0 * (self.predicted - self.throughput) / self.throughput
        return pd.DataFrame({"concurrency": self.concurrency, "measured": self.throughput,
                             "predicted": self.predicted, "residual": self.residuals,
                             "percent_error": pct})


@vectorized
def usl_fit(concurrency, throughput, *, lambda_=None):
    r"""Fit the Universal Scalability Law to measured throughput.

    Parameters
    ----------
    concurrency : array_like or pandas.Series
        Loads N_i at which throughput was measured, N_i > 0 [1].
    throughput : array_like or pandas.Series
        Measured throughputs X_i, same length, X_i > 0 [1/s].
    lambda_ : float, optional
        Hold X(1) fixed at this value (e.g. a measured single-user throughput)
        and fit sigma and kappa only; by default all three are fitted [1/s].

    Returns
    -------
    UslFitResult
        Parameter values and standard errors, peak concurrency and throughput,
        residuals; ``.to_frame()`` is the residual table, ``.parameters()`` the
        parameter table.

    Notes
    -----
    Minimises :math:`\sum_i (X_i - X(N_i; \lambda, \sigma, \kappa))^2` with
    :func:`usl` as the model, by ``scipy.optimize.least_squares`` (trust-region
    reflective) with bounds lambda > 0, 0 <= sigma <= 1, kappa >= 0. The start
    is Gunther's linearisation (GCP §5.2.3): with lambda0 = max X_i/N_i,
    :math:`\lambda_0 N/X - 1 = \sigma (N-1) + \kappa N (N-1)` solved by linear
    least squares. Standard errors: :math:`\mathrm{cov} = s^2 (J^T J)^{-1}`,
    :math:`s^2 = \mathrm{SSR}/(n - p)`, with J the Jacobian at the optimum
    (asymptotic, and only indicative for a parameter sitting on a bound). The
    peak :math:`N^* = \sqrt{(1-\sigma)/\kappa}` follows from dX/dN = 0.

    References
    ----------
    .. [1] N. J. Gunther, *Guerrilla Capacity Planning*, Springer, 2007, ch. 5
       "Evaluating Scalability Parameters" (regression of the USL; ray-tracer
       benchmark), ch. 4 (N*). doi:10.1007/978-3-540-31010-5.
    .. [2] S. Möding, R package ``usl`` (CRAN), vignette "Analyze System
       Scalability in R with the Universal Scalability Law" (the same bounded
       nonlinear least-squares estimate and standard-error confidence intervals).

    Examples
    --------
    >>> n = [1, 2, 4, 8, 16, 32]
    >>> x = usl(n, 0.05, 0.001, lambda_=100.0)
    >>> fit = usl_fit(n, x)
    >>> round(fit.sigma, 6), round(fit.kappa, 6), round(fit.lambda_, 3)
    (0.05, 0.001, 100.0)
    >>> round(fit.peak_concurrency, 3)          # sqrt(0.95 / 0.001)
    30.822
    """
    n = np.ravel(as_float_array("concurrency", concurrency, positive=True))
    x = np.ravel(as_float_array("throughput", throughput, positive=True))
    if n.shape != x.shape:
        raise ValueError(f"concurrency and throughput must have the same length, got {n.size} and {x.size}")
    free = 3 if lambda_ is None else 2
    if n.size < free:
        raise ValueError(f"usl_fit needs at least {free} measurements, got {n.size}")
    from scipy.optimize import least_squares

    if lambda_ is not None:
        lam_fixed = float(as_float_array("lambda_", lambda_, positive=True))
        lam0 = lam_fixed
    else:
        lam0 = float(np.max(x / n))
    # Gunther's linearisation for a starting point
    z = lam0 * n / x - 1.0
    a = np.column_stack([n - 1.0, n * (n - 1.0)])
    coef = np.linalg.lstsq(a, z, rcond=None)[0] if np.any(n != 1) else np.zeros(2)
    s0 = float(np.clip(coef[0], 1e-6, 1 - 1e-6))
    k0 = float(np.clip(coef[1], 1e-12, None))

    def model(p):
        lam, s, k = (lam_fixed, p[0], p[1]) if lambda_ is not None else p
        return lam * n / (1.0 + s * (n - 1.0) + k * n * (n - 1.0))

    def jac(p):
        lam, s, k = (lam_fixed, p[0], p[1]) if lambda_ is not None else p
        den = 1.0 + s * (n - 1.0) + k * n * (n - 1.0)
        d_lam = n / den
        d_s = -lam * n * (n - 1.0) / den**2
        d_k = -lam * n * n * (n - 1.0) / den**2
        cols = [d_s, d_k] if lambda_ is not None else [d_lam, d_s, d_k]
        return np.column_stack(cols)

    if lambda_ is None:
        p0 = np.array([lam0, s0, k0])
        lower, upper = [0.0, 0.0, 0.0], [np.inf, 1.0, np.inf]
    else:
        p0 = np.array([s0, k0])
        lower, upper = [0.0, 0.0], [1.0, np.inf]
    sol = least_squares(lambda p: model(p) - x, p0, jac=jac, bounds=(lower, upper),
                        method="trf", x_scale="jac", ftol=1e-15, xtol=1e-15, gtol=1e-15,
                        max_nfev=10_000)
    p = sol.x
    lam, s, k = (lam_fixed, p[0], p[1]) if lambda_ is not None else (p[0], p[1], p[2])
    pred = model(p)
    resid = x - pred
    dof = n.size - free
    cov_free = np.full((free, free), np.nan)
    if dof > 0:
        j = jac(p)
        s2 = float(resid @ resid) / dof
        try:
            cov_free = s2 * np.linalg.inv(j.T @ j)
        except np.linalg.LinAlgError:
            pass
    cov = np.zeros((3, 3))
    if lambda_ is None:
        cov[:] = cov_free
    else:
        cov[1:, 1:] = cov_free
    se = np.sqrt(np.abs(np.diag(cov)))
    if k > 0:
        n_star = float(np.sqrt((1.0 - s) / k))
        x_star = float(lam * n_star / (1.0 + s * (n_star - 1.0) + k * n_star * (n_star - 1.0)))
    else:
        n_star = np.inf
        x_star = lam / s if s > 0 else np.inf
    return UslFitResult(lambda_=float(lam), sigma=float(s), kappa=float(k),
                        lambda_stderr=float(se[0]), sigma_stderr=float(se[1]),
                        kappa_stderr=float(se[2]), peak_concurrency=n_star,
                        peak_throughput=float(x_star), concurrency=n, throughput=x,
                        predicted=pred, residuals=resid, covariance=cov, dof=int(dof))

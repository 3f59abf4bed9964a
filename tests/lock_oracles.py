"""Exact references for the hand-off lock models, shared by the lock and composition tests.

Nothing here calls zmodel: the numbers come from listing every state of the network in
rational arithmetic.
"""
import itertools
import math
from fractions import Fraction


def enumerate_split(n, z, s, c, k):
    """X, Q (all locks) and one lock's utilization of n CPUs sharing k hand-off locks, every state listed.

    n CPUs alternate between work (mean z) and one of k locks chosen uniformly, a lock with j
    CPUs handing over after s + j c (Boyd-Wickizer et al., Linux Symposium 2012, sec. 3). Product
    form (Baskett, Chandy, Muntz, Palacios, JACM 1975): state (n_0 working, n_1..n_k at the locks)
    weighs z^n_0/n_0! prod_i prod_{l <= n_i} (s + l c)/k; X = E[n_0]/z (Little's law at the work
    station, z > 0). Rationals throughout.
    """
    def f(j):
        out = Fraction(1)
        for l in range(1, j + 1):
            out *= (s + l * c) / k
        return out

    total = q = work = idle = Fraction(0)
    for ns in itertools.product(range(n + 1), repeat=k):
        m = sum(ns)
        if m > n:
            continue
        w = z ** (n - m) / math.factorial(n - m)
        for j in ns:
            w *= f(j)
        total += w
        q += m * w
        work += (n - m) * w
        idle += w if ns[0] == 0 else 0
    return work / total / z, q / total, 1 - idle / total

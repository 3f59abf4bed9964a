"""Compatibility path: the checks moved to :mod:`zmodel.conventions` (public, below every layer).

Modules written against this private path keep working; new code imports
:mod:`zmodel.conventions`. Nothing is defined here.
"""
from zmodel.conventions import (  # noqa: F401 - re-exported names
    MAX_INTEGER, SaturationWarning, as_float_array, as_int_array, as_probability, as_scalar, as_servers,
    is_delay, series_index, warn_saturated, wrap,
)

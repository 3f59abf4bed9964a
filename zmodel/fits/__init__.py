"""Calibrations of the layered models against the documented numbers (beside the layers)."""
from __future__ import annotations

from collections.abc import Iterable, Mapping


def catalog_rows(ids: Iterable[str], kinds: Mapping[str, str] | None = None):
    """The catalog rows a fit uses, with the fit's reading of their kinds applied.

    Parameters
    ----------
    ids : iterable of str
        Catalog ids (zmodel/_data/catalog/); an unknown id raises ``ValueError`` (the loader's).
    kinds : mapping id -> kind, optional
        Kinds under which the fit reads some rows, where the phrase's bound word in the
        catalog is not how the number enters the model; each fit module states why.

    Returns
    -------
    pandas.DataFrame
        The rows of :func:`zmodel.data.measurements`, in catalog order.
    """
    from zmodel.data import measurements

    ids = list(dict.fromkeys(ids))
    rows = measurements(ids=ids).copy()
    kinds = dict(kinds or {})
    unknown = sorted(set(kinds) - set(ids))
    if unknown:
        raise ValueError(f"kinds must name rows of the fit; not among its ids: {', '.join(unknown)}")
    hit = rows["id"].isin(list(kinds))
    rows.loc[hit, "kind"] = rows.loc[hit, "id"].map(kinds)
    return rows

"""Result base class: frozen dataclasses with a tidy ``.to_frame()``.

A result's array fields share named leading dimensions (the batch, then classes and/or
stations). ``to_frame`` broadcasts every array field against the ``dims`` the result
declares and returns one row per cell, one column per dimension and per metric. Scalar
metadata (method, iterations, ...) become constant columns.
"""
from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np


@dataclasses.dataclass(frozen=True)
class Result:
    """Base for all queueing results; subclasses are ``@dataclass(frozen=True)``.

    Subclasses set ``trailing_dims`` to the names of their per-cell axes, e.g.
    ``("station",)`` or ``("class", "station")``; leading axes are the batch.
    """

    trailing_dims: ClassVar[tuple[str, ...]] = ()

    def _frame_dims(self) -> tuple[str, ...]:
        """Names of the dimensions of the widest array field (override if needed)."""
        widest = max((np.ndim(getattr(self, f.name)) for f in dataclasses.fields(self)
                      if isinstance(getattr(self, f.name), np.ndarray)), default=0)
        trailing = tuple(getattr(self, "trailing_dims", ()))
        lead = widest - len(trailing)
        return tuple(f"batch_{i}" if lead > 1 else "batch" for i in range(max(lead, 0))) + trailing

    def to_frame(self):
        """A tidy :class:`pandas.DataFrame`: one row per cell, one column per metric.

        When metric fields are pandas Series (a Series came in), the frame is indexed by
        that Series' index instead of a positional ``batch`` column.
        """
        import pandas as pd

        index, plain = None, {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if type(value).__name__ == "Series":
                index = value.index if index is None else index
                plain[f.name] = value.to_numpy()
        if plain:
            frame = Result.to_frame(dataclasses.replace(self, **plain))
            if len(frame) == len(index):
                dims = set(self.trailing_dims)
                frame = frame.drop(columns=[c for c in frame.columns if c.startswith("batch") or c in dims])
                frame.index = index
            return frame

        dims = self._frame_dims()
        nd = len(dims)
        arrays, constants = {}, {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if (hasattr(v, "__array__") or isinstance(v, (float, int, np.floating, np.integer))) \
                    and not isinstance(v, (bool, str)):
                a = np.asarray(v, dtype=float)
                arrays[f.name] = a
            elif isinstance(v, (str, bool)) or v is None:
                constants[f.name] = v
        if nd == 0:
            row = {k: float(a) for k, a in arrays.items()}
            row.update(constants)
            return pd.DataFrame([row])
        shape = np.broadcast_shapes(*(self._align(a, nd, dims).shape for a in arrays.values()))
        grids = np.meshgrid(*(np.arange(n) for n in shape), indexing="ij")
        data = {d: g.ravel() for d, g in zip(dims, grids)}
        for k, a in arrays.items():
            data[k] = np.broadcast_to(self._align(a, nd, dims), shape).ravel()
        for k, v in constants.items():
            data[k] = v
        return pd.DataFrame(data)

    def _align(self, a: np.ndarray, nd: int, dims) -> np.ndarray:
        """Pad a lower-dimensional field with trailing axes (batch metrics per station)."""
        trailing = len(getattr(self, "trailing_dims", ()))
        if a.ndim == nd:
            return a
        if a.ndim == nd - trailing:
            return a.reshape(a.shape + (1,) * trailing)
        return a.reshape(a.shape + (1,) * (nd - a.ndim))

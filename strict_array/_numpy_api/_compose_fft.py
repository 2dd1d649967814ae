"""NumPy's discrete Fourier transforms written with the namespace's own, for lazy
devices: ``np.fft.fft``, ``ifft``, ``rfft``, ``irfft``, ``hfft``, ``ihfft``, their
``2`` and ``n`` forms, ``fftshift`` and ``ifftshift`` of a strict array resolve to the
namespace's ``fft`` functions of the array's device, with NumPy's defaults (``norm=None``
is ``"backward"``; the ``2`` forms along the last two axes), dtypes and values.

Rows of the table (:mod:`._table`) name them with :class:`~._table.Compose` where
:func:`why_not_transform` finds no reason against (else NumPy's per lane, as before);
an eager host device runs NumPy's own function.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from .._array import Array
from .._backends._numpy_ways import bound

__all__ = ["transform", "why_not_transform"]

#: transforms of real input: a complex array is NumPy's error
_REAL_INPUT = ("rfft", "ihfft", "rfft2", "rfftn")


def _array_parameter(name: str) -> str:
    return "x" if name.endswith("shift") else "a"


def why_not_transform(name: str) -> Any:
    """A reason (for ``Unless``) to leave NumPy's ``fft.<name>`` to NumPy per lane: its
    array is not the device's, of a dtype outside the namespace's (float16), complex
    where the transform takes real input (NumPy's error), or ``out=`` is given."""
    array = _array_parameter(name)

    def why(b: dict[str, Any]) -> str:
        a: Any = b.get(array)
        if not hasattr(a, "ndim") or isinstance(a, (np.ndarray, np.generic)):
            return f"{array} not an array of the device"
        if a.dtype.kind not in "biufc" or a.dtype == np.float16:
            return f"dtype {a.dtype}"
        if name in _REAL_INPUT and a.dtype.kind == "c":
            return "complex input to a real transform"
        if b.get("out") is not None:
            return "out= given"
        if a.ndim == 0:
            return "a 0-d array"
        if any(_unknown(a.shape[i]) for i in _transformed_axes(name, b, a.ndim)):
            return "a transformed axis of size unknown until computed"
        return ""

    parts = [f"{array} not an array of the device", "float16", "a 0-d array",
             "a transformed axis of size unknown until computed"]  # fmt: skip
    if name in _REAL_INPUT:
        parts.append("complex input")
    if not name.endswith("shift"):
        parts.append("out=")
    why.description = ", or ".join(parts)  # type: ignore[attr-defined]
    return why


def _unknown(size: Any) -> bool:
    return size is None or size != size  # (None, or Dask's NaN)


def _transformed_axes(name: str, b: dict[str, Any], ndim: int) -> list[int]:
    """The axes NumPy's ``fft.<name>`` transforms (or shifts), by its defaults."""
    if "axis" in b:
        axes: Any = [b["axis"]]
    elif b.get("axes") is not None:
        axes = b["axes"]
    elif name.endswith("2"):
        axes = [-2, -1]
    elif b.get("s") is not None:
        axes = range(-len(b["s"]), 0)
    else:
        axes = range(ndim)
    axes = [axes] if isinstance(axes, (int, np.integer)) else axes
    return [int(a) % ndim for a in axes if -ndim <= int(a) < ndim]


@functools.cache
def transform(name: str) -> Any:
    """NumPy's ``fft.<name>`` of a strict array by the namespace's."""
    numpy = getattr(np.fft, name)

    def call(*args: Any, **kwargs: Any) -> Array:
        b = bound(numpy, args, kwargs)
        a: Array = b[_array_parameter(name)]
        fft = a.__array_namespace__().fft
        if name.endswith("shift"):
            return getattr(fft, name)(a, axes=b["axes"])
        norm = b["norm"] or "backward"
        if "axis" in b:
            return getattr(fft, name)(a, n=b["n"], axis=b["axis"], norm=norm)
        s = None if b["s"] is None else list(b["s"])
        axes = None if b["axes"] is None else list(b["axes"])
        return getattr(fft, name.rstrip("2n") + "n")(a, s=s, axes=axes, norm=norm)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"""NumPy's ``fft.{name}`` by the namespace's."""
    return call

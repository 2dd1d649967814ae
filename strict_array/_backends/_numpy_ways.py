"""How a lazy device gives NumPy's value for a NumPy function: the ways a row of the
NumPy table names (:mod:`strict_array._numpy_api._table`).

An eager device whose data is NumPy's calls NumPy's own function and needs none of this.
A lazy device cannot: it builds a graph. Each way below says how NumPy's own function
still computes the value, lazily and chunk by chunk where the function allows; each
lazy device interprets every way (DASK: :mod:`._backends.dask._numpy_calls`). A way is
data, not code: the table says *which* way a function takes, the device *how*.

Parameters are NumPy's own names (``"a"``, ``"axis"``), read from NumPy's signature.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = [
    "Blocks", "NoLazyValue", "Own", "Refuse", "Value", "Way", "Whole", "Writes", "bound",
    "dotted", "numpy_name", "signature",
]  # fmt: skip


class NoLazyValue(TypeError):
    """A lazy device cannot give NumPy's value for these arguments (the way ``Refuse``,
    or a size the value decides where the way needs it known): the caller names the
    operation and the fix."""


@dataclass(frozen=True)
class Own:
    """The backend library's function of NumPy's name gives NumPy's value (``name``, a
    dotted path such as ``"linalg.qr"``, where it differs), for every argument NumPy's
    function takes that it takes too; where it refuses an argument NumPy takes (a 0-d
    array with ``axis=0``), a device falls back to :class:`Whole`, NumPy's own."""

    name: str = ""


@dataclass(frozen=True)
class Blocks:
    """NumPy's function on each block of ``arrays`` (their other axes broadcast together
    from the end and chunked alike), the axes ``along`` names in one block:

    - ``None``: none, element-wise (``np.clip``, ``np.isclose``; ``"*condlist"``: each
      array of a list);
    - a parameter's name (``"axis"``, ``"axes"``) or an axis: those axes of the first
      array and of each other of its shape, lanes (``np.sort``, ``np.percentile`` and its
      ``weights``, ``np.fft.fft``); ``axis=None`` means every axis;
    - a tuple: the last ``along[i]`` axes of ``arrays[i]``, a stack of matrices
      (``np.linalg.inv``, ``np.linalg.solve``).

    A block's result may have any shape (``np.percentile``'s ``q`` axes first, ``np.diff``
    shorter); each other array among the arguments goes whole to every block
    (``np.interp``'s ``xp`` and ``fp``)."""

    arrays: tuple[str, ...]
    along: str | int | tuple[int, ...] | None = None


@dataclass(frozen=True)
class Whole:
    """NumPy's function on the whole of ``arrays`` in one task: lazy, not chunked
    (``np.unique``, ``np.convolve``, ``np.polyfit``). The result's sizes come from the
    arguments' shapes (NumPy's function on stand-ins of them; ``shape`` computes them
    instead where that would cost as much as the function), or, with
    ``sizes="values"``, are unknown until computed (``np.unique``'s)."""

    arrays: tuple[str, ...]
    sizes: Literal["shapes", "values"] = "shapes"
    shape: Callable[[dict[str, Any]], Any] | None = None


@dataclass(frozen=True)
class Value:
    """The result is not an array (``np.allclose``'s bool, ``np.shape``'s tuple):
    NumPy's function on the computed arrays (through the planner), or on stand-ins of
    their shapes alone when ``shapes_only`` (``np.einsum_path``: nothing computes)."""

    shapes_only: bool = False


@dataclass(frozen=True)
class Writes:
    """NumPy's function writes into ``target`` (``np.copyto``, ``np.put``): the new
    value is built lazily from ``how`` and becomes the target's data, as ``x[key] = v``
    does."""

    target: str
    how: Way


@dataclass(frozen=True)
class Refuse:
    """No lazy device gives NumPy's value: ``why``; the error names the fix (compute
    first: ``np.asarray(x)``, ``x.to_device(strict_array.CPU)``)."""

    why: str


Way: TypeAlias = Own | Blocks | Whole | Value | Writes | Refuse


@functools.cache
def signature(func: Any) -> inspect.Signature:
    """``inspect.signature(func)``, read once per function."""
    return inspect.signature(func)


def bound(func: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
    """The arguments of a call of NumPy's ``func`` by parameter name, defaults applied
    (``*args`` as a tuple, ``**kwargs`` as a dict, under their own names)."""
    b = signature(func).bind(*args, **kwargs)
    b.apply_defaults()
    return dict(b.arguments)


def dotted(module: Any, name: str) -> Any:
    """``module.a.b`` for ``name`` ``"a.b"`` (``"linalg.qr"``), or None."""
    for part in name.split("."):
        module = getattr(module, part, None)
    return module


def numpy_name(func: Any) -> str:
    """NumPy's name of ``func`` below ``numpy``: ``"linalg.norm"``, ``"mean"``."""
    module = (getattr(func, "__module__", "") or "").removeprefix("numpy").strip(".")
    prefix = next((p for p in ("linalg", "fft") if module.startswith(p)), "")
    return f"{prefix}.{func.__name__}" if prefix else func.__name__

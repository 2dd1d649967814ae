"""``compute`` and ``persist``: materialise several lazy arrays at once, sharing work.

Each device computes through its one entry point (``Device.compute`` and
``Device.persist``), where a lazy device plans its passes; eager arrays pass
through unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ._array import Array, expect_array, result
from ._backends import Device, host_device

__all__ = ["compute", "compute_plan", "persist"]


def _by_device(
    op: str, arrays: Sequence[Array], run: Callable[[Device, list[Any]], list[Any]]
) -> list[Any]:
    """Run ``run(device, datas)`` once per device; the results in the input order."""
    checked = [expect_array(op, a, f"argument {i}") for i, a in enumerate(arrays)]
    out: list[Any] = [None] * len(checked)
    groups: dict[Device, list[int]] = {}
    for i, a in enumerate(checked):
        groups.setdefault(a._device, []).append(i)
    for dev, positions in groups.items():
        for i, value in zip(positions, run(dev, [checked[i]._data for i in positions])):
            out[i] = value
    return out


def compute(*arrays: Array) -> tuple[Array, ...]:
    """Compute several arrays together, as arrays on the host (``CPU``).

    Work shared by the arrays (a common input, a common intermediate) is done
    once. On ``DASK``, large inputs that feed both a small reduction and other
    work are read in separate streaming passes (see the Dask guide), so the
    computation runs in bounded memory; the values are those of the one-graph
    computation.

    Parameters
    ----------
    *arrays : Array
        On any device; ``CPU`` arrays are returned as they are.

    Returns
    -------
    tuple of Array
        On ``CPU``, in the order given.

    Examples
    --------
    >>> import strict_array as xp
    >>> x = xp.asarray([[1.0, 2.0], [3.0, 4.0]], device=xp.DASK)
    >>> m = xp.mean(x, axis=0, keepdims=True)
    >>> mean, spread = xp.compute(m, xp.sum((x - m) ** 2, axis=0))
    >>> mean, spread
    (Array([[2., 3.]], dtype=float64), Array([2., 2.], dtype=float64))
    """
    host = host_device()

    def run(dev: Device, datas: list[Any]) -> list[Any]:
        return [host.from_numpy(v) for v in dev.compute(datas)]

    return tuple(result(data, host) for data in _by_device("compute", arrays, run))


def persist(*arrays: Array) -> tuple[Array, ...]:
    """Compute several arrays together and keep them on their device.

    On ``DASK`` the results stay chunked, in memory (or on the cluster's workers
    when a ``dask.distributed`` ``Client`` is active), so later expressions built
    on them start from the computed chunks. Eager arrays are returned as they are.

    Parameters
    ----------
    *arrays : Array

    Returns
    -------
    tuple of Array
        On the devices of the inputs, in the order given.
    """
    devices = {id(a): a._device for a in arrays if type(a) is Array}
    datas = _by_device("persist", arrays, lambda dev, datas: dev.persist(datas))
    return tuple(result(data, devices[id(a)]) for data, a in zip(datas, arrays))


def compute_plan(*arrays: Array) -> str:
    """The passes :func:`compute` would run for ``arrays``, as text (nothing computes).

    On ``DASK``, a computation whose large input feeds both a reduction and other
    work runs in several streaming passes: first the reductions, then the rest
    with their values in the graph (see :func:`planning`). Each pass names the
    layers it computes, their shapes and sizes, and the large input it reads.

    Parameters
    ----------
    *arrays : Array

    Returns
    -------
    str
        One block per device of the arrays.

    Examples
    --------
    >>> import strict_array as xp
    >>> x = xp.ones((1000, 4), device=xp.DASK, chunks=(100, 4))
    >>> m = xp.mean(x, axis=0)
    >>> s = xp.sum(xp.subtract(x, m, broadcast_dimensions=(1,)) ** 2, axis=0)
    >>> with xp.planning(threshold=8000):
    ...     print(xp.compute_plan(s))
    Plan: 2 passes (cut when >= 7.8 KiB of input waits for a result <= 500 B)
      pass 1/2: 1 reduction over full_like-... (31.2 KiB)
        mean_agg-aggregate-...  (4,) float64  32 B  1 chunk
      pass 2/2: 1 output (rewritten graph)
        sum-aggregate-...  (4,) float64  32 B  1 chunk
    """
    checked = [expect_array("compute_plan", a, f"argument {i}") for i, a in enumerate(arrays)]
    groups: dict[Device, list[Any]] = {}
    for a in checked:
        groups.setdefault(a._device, []).append(a._data)
    return "\n".join(dev.plan(datas) for dev, datas in groups.items())

"""Computing on Dask: the one place where the ``DASK`` device turns graphs into values.

Every entry point that needs values (``np.asarray``, ``float``, ``to_device``,
DLPack, writes to disk, ``strict_array.compute`` and ``persist``) ends here.
Dask does the scheduling: the active ``dask.distributed`` ``Client`` when there
is one, else Dask's default scheduler.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np

from ..._progress import show_progress


def active_client() -> Any:
    """The active ``dask.distributed`` Client, or None (without importing distributed)."""
    if "distributed" not in sys.modules:
        return None
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        return None


def _run(collections: Sequence[Any], persist: bool) -> list[Any]:
    """Compute (or persist) Dask collections in one go, with a progress bar if wanted."""
    client = active_client()
    if client is not None:
        futures = (
            client.persist(list(collections)) if persist else client.compute(list(collections))
        )
        if show_progress():
            from distributed import progress

            progress(futures)
        return list(futures) if persist else client.gather(futures)
    run = dask.persist if persist else dask.compute
    if show_progress():
        from dask.diagnostics import ProgressBar

        with ProgressBar(minimum=1.0):
            return list(run(*collections))
    return list(run(*collections))


def compute(datas: Sequence[da.Array]) -> list[np.ndarray]:
    """Compute Dask arrays together (shared work is done once) as NumPy arrays."""
    return [np.asarray(r) for r in _run(datas, persist=False)]


def persist(datas: Sequence[da.Array]) -> list[da.Array]:
    """Compute Dask arrays together and keep them in memory (or on the cluster)."""
    return _run(datas, persist=True)


def store(datas: Sequence[da.Array], targets: Sequence[Any]) -> None:
    """Write arrays chunk by chunk into array-like targets (Zarr arrays, files)."""
    _run([da.store(list(datas), list(targets), lock=False, compute=False)], persist=False)


def known_sizes(data: da.Array) -> da.Array:
    """``data`` with its unknown (data-dependent) chunk sizes computed."""
    if any(c != c for axis in data.chunks for c in axis):  # NaN marks an unknown size
        return data.compute_chunk_sizes()
    return data

"""The ``DASK`` backend: lazy, chunked ``dask.array`` arrays.

- ``_device``: the device and its hooks;
- ``_namespace``: ``array_api_compat.dask.array`` plus what it lacks;
- ``_linalg``: per-matrix ``linalg`` through generalized ufuncs;
- ``_indexing``: keys and assignments Dask's own indexing gets wrong or refuses;
- ``_compute``: the one place where graphs become values;
- ``_io``: Zarr and ``.npy`` files, streamed.
"""

try:
    import dask.array  # noqa: F401
except ImportError as e:  # xp.DASK, device="dask", ... all load the backend here
    raise ModuleNotFoundError(
        f"strict_array.DASK needs Dask, which is not installed ({e}); install it with "
        'pip install "strict_array[dask]" (Dask, distributed and Zarr), or use '
        "strict_array.CPU.",
        name="dask",
    ) from e

from ._graph import require_graph_arrays

require_graph_arrays()  # (Dask's expression arrays: refused here, at the first DASK use)

from ._device import DASK, DaskDevice  # noqa: E402

__all__ = ["DASK", "DaskDevice"]

"""The ``DASK`` backend: lazy, chunked ``dask.array`` arrays.

- ``_device``: the device and its hooks;
- ``_namespace``: ``array_api_compat.dask.array`` plus what it lacks;
- ``_linalg``: per-matrix ``linalg`` through generalized ufuncs;
- ``_indexing``: keys and assignments Dask's own indexing gets wrong or refuses;
- ``_compute``: the one place where graphs become values;
- ``_io``: Zarr and ``.npy`` files, streamed.
"""

from ._device import DASK, DaskDevice

__all__ = ["DASK", "DaskDevice"]

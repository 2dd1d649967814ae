"""The ``DASK`` device: lazy, chunked arrays on ``dask.array``, out of core and on a
cluster.

Glossary (one word per concept, in the code as here):

block
    One piece of an array, one task's output (Dask's "chunk"); *blocks* or *chunks*
    are the sizes of the pieces along each axis.
graph, layer
    What an array is computed from: layers (one per operation, named as the array it
    makes) and their dependencies. Only :mod:`._graph` touches them.
declared
    Vouched for by strict_array: every array the device returns has its shape,
    blocks and dtype recorded for its layer (:func:`._graph.declare`), and only
    declared layers are planned for.
facts
    What the device knows of an array beyond Dask: its origin (data, made from
    nothing, a constant, a slice of another), its blocks' value ranges, how it was
    sorted or written. One record per array, in :mod:`._facts`, never on Dask's
    objects.
made from nothing
    Computed from its blocks' places alone (``zeros``, ``arange``, ``eye``): made again
    in other blocks rather than rechunked (:func:`._basics.rechunk`).
plan, pass, cut point
    A compute runs in passes: a *cut point* is a small result (a reduction) that a large
    input waits for; each pass computes a level of them, streaming the input, and puts
    their values into the graph; the last pass computes what was asked
    (dask/dask#874; :mod:`._plan`).
kept value
    A small result computed once and reused by later computations (:mod:`._keep`).
held
    An array the program still holds (:func:`._keep.held`), and nothing else: blocks
    in memory *wait* there.
resident
    Values already in this process's memory (a consumer's NumPy array, data
    persisted here): :func:`._graph.resident_bytes` of a layer,
    :func:`._basics.bytes_in_memory` of what an array reads.
unknown size
    A size Dask knows only when computed (NaN), as after a selection by a mask.
    The data-dependent-size rule (:func:`._compute.sizes_asked`) says when such a size
    is computed at once (a block's ``known_sizes`` setting, else the packages the
    rank-promotion policy names): the only computation while an array is built.
computing
    Turning graphs into values: in :mod:`._compute` alone, which plans, runs and
    keeps.

Modules:

- ``_device``: the device and its hooks (operators, creation, indexing, compute);
- ``_namespace``: ``array_api_compat.dask.array`` plus what it lacks; every result
  is declared (:func:`._namespace.declared`);
- ``_basics``: unknown sizes, blocks, rechunking, and what is made from nothing;
- ``_facts``: the record of facts per array and per layer;
- ``_graph``: the graph adapter, the one module that touches Dask's graph (layers,
  tasks, the ``Array`` constructor); ``_graph.fusion`` is its optimisation hook;
- ``_plan``: the planner of passes;
- ``_keep``: values kept between computations;
- ``_compute``: the one place where graphs become values;
- ``_indexing``: keys and assignments Dask's own indexing gets wrong or refuses;
- ``_sorting``: a sample sort of long 1-D arrays;
- ``_set``: the ``unique_*`` functions, block by block;
- ``_reductions``: reductions where Dask's are wrong or refuse;
- ``_linalg``: per-matrix ``linalg`` as generalized ufuncs' calls, and tall-matrix paths;
- ``_numpy_calls``: NumPy's functions and ufuncs on Dask data, with NumPy's value;
- ``_per_block``: the one engine of per-block calls (:func:`._per_block.per_block`: a
  function on each block, the axes it names in one block, one ``blockwise`` call), for
  ``_numpy_calls`` and ``_linalg``'s per-matrix calls;
- ``_io``: Zarr and ``.npy`` files, streamed.

One compute, ``float(x)`` for ``x = xp.sum((a - xp.mean(a, axis=0)) ** 2)``:
``Array.__float__`` asks the device for the value (``DaskDevice.compute``), which is
:func:`._compute.compute`. It puts the kept values in place of their layers
(:func:`._keep.substitute`), finds the small layers and held arrays worth keeping
(:func:`._keep.candidates`, :func:`._keep.held`, :func:`._keep.pending`), plans the
passes once for them all (:func:`._plan.plan`: the mean is a cut point, ``a`` waits
for it; the arrays worth keeping are taken along where they add no pass), and runs
the plan (:func:`._plan.execute`): pass 1 computes the mean,
streaming ``a``, its blocks are kept (:func:`._keep.keep_pass`) and put in the graph
(:func:`._graph.substitute`); pass 2 computes the sum from the rewritten graph. Each
pass is one ``dask.compute`` (or a ``Client``'s), with :func:`._graph.fusion.optimize`
as Dask's ``array_optimize`` hook; Dask schedules the tasks.

The device runs on Dask's graph arrays; Dask's expression arrays
(``array.query-planning``) are refused when it loads
(:func:`._graph.require_graph_arrays`).
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

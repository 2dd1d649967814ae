"""The graph adapter: the one module of the ``DASK`` device that touches Dask's graph.

Everything the device knows of how Dask represents a computation lives here: the
:class:`~dask.highlevelgraph.HighLevelGraph` and its layers, layer annotations,
``dask._task_spec``'s tasks, the ``array_optimize`` hook and the
``dask.array.Array(graph, name, chunks)`` constructor. The planner (``_plan``), the
kept values (``_keep``), fusion (``_fusion``), indexing and the namespace speak only
this module's vocabulary:

graph
    The layers a set of arrays is computed from, with their dependencies
    (:func:`merged_graph`, :func:`own_graph`); one array's is its ``graph``.
layer
    One node of a graph, named as the array it makes (``a.name``); its metadata is a
    :class:`LayerInfo` (:func:`layer_info`), vouched for by :func:`declare`.
block
    One task's output of a layer, keyed ``(name, i, j, ...)`` (:func:`block_keys`).
substitute
    Put computed blocks in place of a layer's tasks (:func:`substitute`); a layer is
    *substitutable* when its tasks are exactly its blocks (:func:`substitutable`).
rename
    The same layers under new keys (:func:`clone`, :func:`renamed_graph`), so that a
    cluster never sees one key with two tasks.

Dask's expression arrays (the ``array.query-planning`` setting, dask/dask#11941) have
no such graph until they are lowered, and their optimiser replaces the one the
planner relies on: :func:`require_graph_arrays` refuses them when the device loads.
"""

from __future__ import annotations

import dask.array as da

#: the ``dask.config`` key of Dask's expression arrays, and its environment variable
QUERY_PLANNING_KEY = "array.query-planning"
QUERY_PLANNING_ENV = "DASK_ARRAY__QUERY_PLANNING"


class ExpressionArraysError(ImportError):
    """The ``DASK`` device cannot run: Dask's expression arrays are on.

    An :class:`ImportError`, as for a missing Dask: the device is not available here
    (``strict_array.CPU`` and the device list still are)."""


def require_graph_arrays() -> None:
    """Refuse to load the ``DASK`` device where ``dask.array`` makes expression arrays.

    The device's planner of passes, its kept values and its fusion work on the graph
    of layers (dask/dask#874 is solved there); with ``array.query-planning`` on, Dask
    builds expressions and optimises them itself, and the device would run with its
    planning silently off. Dask reads the setting once, when ``dask.array`` is first
    imported (``dask.array.array_expr_enabled``).

    Raises
    ------
    ExpressionArraysError
        ``array.query-planning`` is on: the message names the setting and how to turn
        it off.
    """
    if not da.array_expr_enabled():
        return
    raise ExpressionArraysError(
        "strict_array.DASK runs on Dask's graph arrays, and Dask's expression arrays are "
        f"on here (the dask.config setting {QUERY_PLANNING_KEY!r}, or the environment "
        f"variable {QUERY_PLANNING_ENV}=True): the device's plan of passes, kept values "
        "and fusion would be silently off. Turn it off before dask.array is first "
        f"imported: unset {QUERY_PLANNING_ENV} (or set it to False), or call "
        f"dask.config.set({{{QUERY_PLANNING_KEY!r}: False}}); or use strict_array.CPU.",
        name="dask.array",
    )

"""Computing on Dask: the one place where the ``DASK`` device turns graphs into values.

Every entry point that needs values (``np.asarray``, ``float``, ``to_device``, DLPack,
writes to disk, ``strict_array.compute`` and ``persist``) ends here, and goes through
the plan of passes (:mod:`._plan`: a reduction that a large shared input waits for is
computed first, dask/dask#874). Dask does the scheduling: the active
``dask.distributed`` ``Client`` when there is one, else Dask's default scheduler; each
pass gets its own progress bar. The settings: :func:`planning_threshold`.

Nothing else computes. One rule computes while an array is being built, the
*data-dependent-size rule*, stated in :func:`sizes_asked`.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import dask
import dask.array as da
import numpy as np
from dask.utils import parse_bytes

from ..._settings import (
    current_known_sizes,
    current_planning,
    show_progress,
    sizes_known_by_policy,
)
from . import _keep, _plan
from ._basics import (
    bytes_in_memory,
    cost_of_blocks,
    noted_block_ranges,
    ranges_of_blocks,
    rechunk,
    refines,
    remade,
    unknown,
    with_block_ranges,
)
from ._graph import optimising
from ._graph.fusion import optimize

_LOG = logging.getLogger(__name__)

#: the dask.config keys of the plan of passes, and their defaults
PLANNING_KEY, THRESHOLD_KEY = "strict_array.planning", "strict_array.planning-threshold"
DEFAULT_THRESHOLD = "256 MiB"


def active_client() -> Any:
    """The active ``dask.distributed`` Client, or None (without importing distributed)."""
    if "distributed" not in sys.modules:
        return None
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        return None


def _run(collections: Sequence[Any], persist: bool = False, title: str | None = None) -> list[Any]:
    """Compute (or persist) Dask collections in one go, with a progress bar if wanted;
    Dask optimises their graph after element-wise layers are made once per user
    (:mod:`._graph.fusion`)."""
    show = show_progress()
    if show and title:
        print(f"[strict_array] {title}", file=sys.stderr, flush=True)
    with contextlib.ExitStack() as stack:
        stack.enter_context(optimising(optimize))
        client = active_client()
        if client is not None:
            futures = (client.persist if persist else client.compute)(list(collections))
            if show:
                from distributed import progress

                progress(futures)
            return list(futures) if persist else client.gather(futures)
        # Dask's threads each call BLAS, whose threads then oversubscribe the cores (block
        # products many times slower: docs/dev/scikit-learn-log.md): one BLAS thread per
        # Dask thread, as dask.distributed's nanny sets (OMP_NUM_THREADS=1 and friends)
        threads = dask.config.get("scheduler", None) in (None, "threads", "threading")
        controller = _blas_controller() if threads else None
        if controller is not None:
            stack.enter_context(controller.limit(limits=1, user_api="blas"))
        if show:
            from dask.diagnostics import ProgressBar

            stack.enter_context(ProgressBar(minimum=1.0))
        return list((dask.persist if persist else dask.compute)(*collections))


@functools.cache
def _blas_controller() -> Any:
    # made once (not at every computation): NumPy's BLAS is loaded by then. The dask
    # extra installs threadpoolctl; a Dask installed without it computes unlimited
    try:
        from threadpoolctl import ThreadpoolController  # type: ignore[import-untyped]
    except ImportError:
        return None
    return ThreadpoolController()


def _keeping(p: _plan.Plan) -> Any:
    """A pass's computation (:func:`_run`, with a progress title where there are several),
    keeping what each reduction pass computed (:mod:`._keep`)."""

    def run(step: _plan.Pass, collections: Sequence[Any]) -> list[Any]:
        out = _run(collections, title=step.title if step.total > 1 else None)
        if not step.final:
            _keep.keep_pass(p.arrays, step, out)
        return out

    return run


def planning_threshold() -> int:
    """The bytes of one input waiting for a reduction that make the planner cut: the
    block's ``strict_array.planning(...)`` setting, else the ``dask.config`` keys
    ``strict_array.planning`` (default True) and ``strict_array.planning-threshold``
    (default ``"256 MiB"``); the largest int when planning is off."""
    setting = current_planning()
    enabled = dask.config.get(PLANNING_KEY, True) if setting.enabled is None else setting.enabled
    if not enabled:  # one pass: no array is large enough to plan for
        return sys.maxsize
    threshold = setting.threshold
    if threshold is None:
        threshold = dask.config.get(THRESHOLD_KEY, DEFAULT_THRESHOLD)
    return parse_bytes(threshold) if isinstance(threshold, str) else int(threshold)


def plan(datas: Sequence[da.Array], optional: Sequence[Sequence[da.Array]] = ()) -> _plan.Plan:
    """The plan of passes that computing ``datas`` together would run (nothing computes),
    with the groups of ``optional`` arrays that add no pass taken along (:func:`._plan.plan`).

    Computed from values in memory alone (data persisted here, NumPy's arrays, arrays made
    from nothing below the threshold), they are one pass: what waits for a reduction of
    data in memory is the data itself, or what NumPy would hold too; planned, an iterative
    algorithm on persisted data would spend its time building passes that bound nothing."""
    threshold = planning_threshold()
    small = _plan.default_small_bytes(threshold)
    if threshold < sys.maxsize and bytes_in_memory(*datas, made_below=threshold) is not None:
        threshold = sys.maxsize
    return _plan.plan(list(datas), threshold_bytes=threshold, small_bytes=small, optional=optional)


def compute(datas: Sequence[da.Array]) -> list[np.ndarray]:
    """Compute Dask arrays together (shared work is done once) as NumPy arrays, with what
    to compute and keep with them where that adds no pass (:func:`_with_extras`)."""
    return _with_extras(datas, persist=False)


def persist(datas: Sequence[da.Array]) -> list[da.Array]:
    """Compute Dask arrays together and keep them in memory (or on the cluster), with what
    to compute and keep with them as :func:`compute` does: two selections by masks, each
    persisted to count it, would otherwise compute what they select from twice."""
    return _with_extras(datas, persist=True)


def _with_extras(datas: Sequence[da.Array], persist: bool) -> list:
    """``datas`` computed (or persisted) with, where it adds no pass, in one plan: the small
    layers of their graph and the arrays of it the program holds (``_keep.candidates``,
    ``_keep.held``), together or not at all; then the held small arrays not in their graph
    (``_keep.pending``: an iterative algorithm's next parameters, which its next step
    would read the data again for), all, else each one that fits. Where computing the
    pending arrays fails, it is theirs: the rest runs again without them."""
    if not datas:
        return []
    datas = _keep.substitute(datas)
    threshold = planning_threshold()
    extra = [*_keep.candidates(datas), *_keep.held(datas, threshold)]
    pending = _keep.pending(datas, threshold)
    groups = [[e.array for e in extra], [e.array for e in pending]]
    if len(pending) > 1:  # (an iterative algorithm's parameters usually all fit)
        groups.extend([e.array] for e in pending)
    p = plan(datas, groups)
    by_id = {id(e.array): e for e in (*extra, *pending)}
    taken = [by_id[id(a)] for a in p.taken]
    of_pending = {id(e.array) for e in pending}
    more = [e for e in taken if id(e.array) in of_pending]
    try:
        return _run_keeping(datas, taken, p, persist)
    except Exception as error:  # (any type: the held arrays' computations are the program's)
        if not more:
            raise
        # An error of the held arrays not asked for is theirs: they are not tried again
        # (each would run the computation twice), and raise it when they are asked for.
        # The arrays asked for run alone; an error of theirs is raised, this one chained.
        _keep.forget_pending([m.array for m in more])
        _LOG.debug("computed again without held arrays that failed: %r", error)
        extra = [e for e in taken if id(e.array) not in of_pending]
        return _run_keeping(datas, extra, plan(datas, [[e.array for e in extra]]), persist)


def _run_keeping(
    datas: Sequence[da.Array],
    extra: Sequence[_keep.Candidate],
    p: _plan.Plan,
    persist: bool,
) -> list:
    """``datas`` computed as NumPy arrays (or persisted), with the ``extra`` arrays,
    whose values are kept (``p``: the plan of them all)."""
    if persist:
        final = _plan.rewrite(p, compute=_keeping(p))
        out = _run(final, persist=True, title=p.passes[-1].title if p.reductions else None)
        # (the extra arrays' blocks are in memory, or on the workers: gathered, not computed)
        values = [np.asarray(v) for v in _run(out[len(datas) :])] if extra else []
    else:
        out = [np.asarray(r) for r in _plan.execute(p, compute=_keeping(p))]
        values = out[len(datas) :]
    _keep.keep(extra, values)
    return out[: len(datas)]


def store(datas: Sequence[da.Array], targets: Sequence[Any]) -> None:
    """Write arrays chunk by chunk into array-like targets (Zarr arrays, files)."""
    p = plan(datas)
    final = _plan.rewrite(p, compute=_keeping(p))
    title = p.passes[-1].title if p.reductions else None
    _run([da.store(list(final), list(targets), lock=False, compute=False)], title=title)


KNOWN_SIZES_KEY = "strict_array.known-sizes"
#: a deprecated alias of the rank-promotion policy's ``known_sizes`` packages
KNOWN_SIZES_PACKAGES_KEY = "strict_array.known-sizes-packages"


def unknown_chunks(data: da.Array) -> bool:
    """Whether some size of ``data`` is unknown until computed."""
    return any(map(unknown, data.shape))


def known_sizes(data: da.Array) -> da.Array:
    """``data`` with its unknown (data-dependent) chunk sizes computed."""
    return data.compute_chunk_sizes() if unknown_chunks(data) else data


def sizes_asked() -> bool:
    """The *data-dependent-size rule*, the one computation while an array is built.

    Where an operation makes a size that depends on the data (a selection by a mask,
    ``nonzero``, ``unique_values``, the buckets of a sort, the blocks a take routes by)
    and this says sizes are asked for, what fixes the size is computed at once, through
    this module; otherwise the size stays unknown and the array lazy. Asked for: by a
    block's ``strict_array.known_sizes`` setting, else the ``strict_array.known-sizes``
    dask.config key, else by the rank-promotion policy, whose ``known_sizes`` names the
    packages whose calls get them (:func:`strict_array._policy.sizes_known_here`; the
    key ``strict_array.known-sizes-packages`` is a deprecated alias). Called only where
    such a size arises, so the caller is looked for only then."""
    asked = current_known_sizes()
    if asked is not None:
        return asked
    if dask.config.get(KNOWN_SIZES_KEY, False):
        return True
    return sizes_known_by_policy(_packages_of_the_alias())


def _packages_of_the_alias() -> list[str] | None:
    """The packages of the deprecated dask.config key ``strict_array.known-sizes-packages``
    where it is set (a list, or a comma-separated one from the environment)."""
    packages = dask.config.get(KNOWN_SIZES_PACKAGES_KEY, None)
    if packages is None:
        return None
    warnings.warn(
        f"the dask.config key {KNOWN_SIZES_PACKAGES_KEY!r} is deprecated: name the packages "
        "in the rank-promotion policy, strict_array.set_rank_promotion_policy({}, "
        "known_sizes=[...]) or strict_array.rank_promotion_policy({}, known_sizes=[...])",
        DeprecationWarning,
        stacklevel=3,
    )
    if isinstance(packages, str):
        return [p.strip() for p in packages.split(",") if p.strip()]
    return list(packages)


def persisted_with_sizes(datas: Sequence[da.Array]) -> list[da.Array]:
    """``datas`` computed together and kept (the work is not done again when their values
    are needed), with their sizes known."""
    return [known_sizes(d) for d in persist(datas)]


def sized(value: Any) -> Any:
    """``value`` (an array, or a tuple, named tuple or list of values) with its arrays of
    unknown sizes persisted together with their sizes where :func:`sizes_asked`. The
    others stay lazy (``unique_inverse``'s inverse indices, as large as its input)."""
    arrays = [v for v in (value if isinstance(value, (tuple, list)) else (value,))
              if isinstance(v, da.Array) and unknown_chunks(v)]  # fmt: skip
    if not arrays or not sizes_asked():
        return value
    known = dict(zip(map(id, arrays), persisted_with_sizes(arrays)))
    if isinstance(value, da.Array):
        return known[id(value)]
    items = [known.get(id(v), v) for v in value]
    return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)


def counted(mask: da.Array) -> tuple[da.Array, tuple[int, ...]]:
    """``mask`` persisted, with the number of ``True`` in each of its blocks: one pass over
    it. A selection by it reads its blocks as data (a mask left lazy, compared with a
    lazy label, lets Dask's scheduler read and hold all of the array before the mask)."""
    counts = da.map_blocks(
        lambda block: np.array([np.count_nonzero(block)]),
        mask, chunks=((1,) * mask.numblocks[0],), dtype=np.intp,
    )  # fmt: skip
    kept, counts = persist([mask, counts])
    (values,) = compute([counts])
    return kept, tuple(int(c) for c in values)


def computed_block_ranges(index: da.Array) -> np.ndarray:
    """Each block's least and greatest value of a 1-D integer ``index``, computed now in
    one pass over it, and noted on it (:func:`._basics.with_block_ranges`) for a take to
    route by; the index itself is not kept."""
    (ranges,) = compute([ranges_of_blocks(index)])
    return with_block_ranges(index, np.asarray(ranges, dtype=np.int64))


# --- an operand in its partner's blocks ---------------------------------------------
def made_alike(a: da.Array, b: da.Array) -> tuple[da.Array, da.Array]:
    """Operands of one rank: the one cheaper in other blocks (:func:`cost_of_blocks`) given
    the other's blocks (:func:`in_partner_blocks`) along the axes of equal length where
    their blocks differ. Dask splits both to a common refinement: ``ones(n)`` met with an
    input's rows is made whole then cut in pieces that wait together for their rows; a
    consumer's NumPy labels are cut in pieces all made first, waiting in memory."""
    differ = [
        i for i, (ca, cb) in enumerate(zip(a.chunks, b.chunks)) if ca != cb and sum(ca) == sum(cb)
    ]
    if not differ:  # (every element-wise operation passes here: the costs only if needed)
        return a, b
    cost_a, cost_b = cost_of_blocks(a), cost_of_blocks(b)
    if cost_a == cost_b:
        # where one's blocks refine the other's, Dask's common refinement is the finer
        # blocks: the coarser rechunked to them here, as a slice's source (rechunk)
        for x, other in ((a, b), (b, a)):
            if all(refines(other.chunks[i], x.chunks[i]) for i in differ):
                again = rechunk(x, {i: other.chunks[i] for i in differ})
                return (again, b) if x is a else (a, again)
        return a, b
    x, other = (a, b) if cost_a < cost_b else (b, a)
    chunks = {i: other.chunks[i] for i in differ if len(other.chunks[i]) > 1}
    if not chunks:
        return a, b
    again = in_partner_blocks(x, chunks)
    return (again, b) if x is a else (a, again)


def block_ranges(x: Any) -> np.ndarray | None:
    """Each block's least and greatest value, ``(nblocks, 2)`` (``(0, -1)`` where empty),
    of a 1-D integer array whose ranges are noted (:func:`._basics.with_block_ranges`),
    or computed now from values in this process no larger than it (``concat`` of a
    ``nonzero`` and a few more indices); None for any other array."""
    if not isinstance(x, da.Array) or x.ndim != 1 or x.dtype.kind not in "iu":
        return None
    known = noted_block_ranges(x)  # (a take checks its indices, then routes by them)
    if known is not None:
        return known  # type: ignore[no-any-return]
    resident = bytes_in_memory(x, made_below=0)
    if resident is None or resident > 2 * x.nbytes + 2**20:  # (more than the index: real work)
        return None
    return with_block_ranges(x, computed_in_this_process(ranges_of_blocks(x)))


def computed_in_this_process(x: da.Array) -> np.ndarray:
    """``x``'s value computed now in this thread, for an array computed from values in
    this process alone: reading nothing, it needs neither a plan nor a cluster. Only the
    data-dependent-size rule calls it (see the module)."""
    return np.asarray(x.compute(scheduler="sync"))


def in_partner_blocks(x: da.Array, chunks: dict[int, tuple]) -> da.Array:
    """``x`` in its partner's blocks along the axes of ``chunks``.

    Rechunked, an operand computed from values in this process (a consumer's NumPy
    labels, weights from ``ones(n)``) gets its pieces from tasks of their own, which Dask
    runs before or after the large operand's blocks, and one side waits in memory for the
    other (``X.T @ Y`` with ``Y`` from NumPy: all of ``X``). Where sizes are asked for,
    such an operand no larger than twice the values it is computed from, or than the
    planning threshold, is computed now and cut in the new blocks. An array made from
    nothing is made again; any other is rechunked."""
    resident = None if remade(x) else bytes_in_memory(x)
    if (
        resident is not None
        and sizes_asked()
        and x.nbytes <= max(2 * resident, planning_threshold())
    ):
        values = computed_in_this_process(x)
        return da.from_array(values, chunks=tuple(chunks.get(a, c) for a, c in enumerate(x.chunks)))
    return rechunk(x, chunks)

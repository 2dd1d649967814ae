"""strict_array: the array API standard with XLA-style explicit broadcasting.

``import strict_array as xp`` is a complete array API namespace (2025.12, with
the ``linalg`` and ``fft`` extensions) whose arrays live on NumPy (``xp.CPU``,
eager) or Dask (``xp.DASK``, lazy and chunked). Operations between arrays of
different ranks are refused unless ``broadcast_dimensions=`` says how the
lower-rank operand maps into the higher-rank one; scalars and same-rank size-1
broadcasting work as usual. ``broadcast_in_dim`` and ``sum_to`` (its exact
adjoint, the gradient of broadcasting) make broadcasts explicit.
"""

from __future__ import annotations

import sys
import types
from typing import Any

from . import _backends, _flags, _numpy_api, _operators, _public, fft, lib, linalg
from ._array import Array
from ._audit_report import AuditReport, RankPromotionBaseline
from ._backends import Device
from ._compute import compute, compute_plan, persist
from ._creation import (
    arange,
    asarray,
    empty,
    empty_like,
    eye,
    from_dlpack,
    full,
    full_like,
    linspace,
    meshgrid,
    ones,
    ones_like,
    tril,
    triu,
    zeros,
    zeros_like,
)
from ._devices import default_device, get_default_device, set_default_device
from ._dtypes import (
    astype,
    bool,
    can_cast,
    complex64,
    complex128,
    finfo,
    float32,
    float64,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    isdtype,
    result_type,
    uint8,
    uint16,
    uint32,
    uint64,
)
from ._elementwise import FUNCTIONS as _ELEMENTWISE
from ._elementwise import clip
from ._errors import RankPromotionError, RankPromotionWarning
from ._explicit import broadcast_in_dim, sum_to
from ._extensions import (
    einsum,
    nanargmax,
    nanargmin,
    nancumprod,
    nancumsum,
    nanmax,
    nanmean,
    nanmin,
    nanprod,
    nanstd,
    nansum,
    nanvar,
    pad,
    sliding_window_view,
)
from ._flags import (
    ArrayAPIStrictFlags,
    get_array_api_strict_flags,
    reset_array_api_strict_flags,
    set_array_api_strict_flags,
)
from ._indexing import take, take_along_axis
from ._info import __array_namespace_info__
from ._io import from_npy, from_zarr, to_npy, to_zarr
from ._linear_algebra import matmul, matrix_transpose, tensordot, vecdot
from ._manipulation import (
    broadcast_arrays,
    broadcast_shapes,
    broadcast_to,
    concat,
    expand_dims,
    flip,
    moveaxis,
    permute_dims,
    repeat,
    reshape,
    roll,
    squeeze,
    stack,
    tile,
    unstack,
)
from ._policy import (
    RankPromotionPolicy,
    audit,
    get_rank_promotion,
    get_rank_promotion_policy,
    rank_promotion,
    rank_promotion_policy,
    set_rank_promotion,
    set_rank_promotion_policy,
)
from ._searching import argmax, argmin, count_nonzero, nonzero, searchsorted, where
from ._set import isin, unique_all, unique_counts, unique_inverse, unique_values
from ._settings import known_sizes, planning, progress
from ._sorting import argsort, sort
from ._statistical import (
    all,
    any,
    cumulative_prod,
    cumulative_sum,
    diff,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)

__version__ = "0.1.0"

e = 2.718281828459045
inf = float("inf")
nan = float("nan")
pi = 3.141592653589793
newaxis = None

globals().update(_ELEMENTWISE)
# the functions a later version of the standard added refuse calls under an older
# api_version flag (as array-api-strict's do); the package's own code calls them
# from their modules, unchecked
for _name, _version in _flags.versioned_functions():
    globals()[_name] = _flags.requires_version(_name, _version, globals()[_name])
for _name, _version in _flags.versioned_functions("linalg."):
    setattr(
        linalg, _name, _flags.requires_version(f"linalg.{_name}", _version, getattr(linalg, _name))
    )


class _Namespace(types.ModuleType):
    """The module's type: the attributes that follow the flags in force, read when asked
    (``__array_api_version__``, and the extensions, absent when disabled)."""

    @property
    def __array_api_version__(self) -> str:
        return _flags.current().api_version

    def _extension(name: str) -> property:  # type: ignore[misc]
        def get(self: types.ModuleType) -> types.ModuleType:
            if name not in _flags.current().enabled_extensions:
                raise AttributeError(
                    f"strict_array.{name}: the {name} extension is disabled (the "
                    f"enabled_extensions flag is {_flags.current().enabled_extensions}); "
                    "enable it with set_array_api_strict_flags(enabled_extensions=...)."
                )
            return _EXTENSIONS[name]

        def put(self: types.ModuleType, module: types.ModuleType) -> None:
            _EXTENSIONS[name] = module  # (the import system sets a submodule's attribute)

        return property(get, put)

    linalg = _extension("linalg")
    fft = _extension("fft")
    del _extension


_EXTENSIONS = {"linalg": linalg, "fft": fft}
del globals()["linalg"], globals()["fft"]
sys.modules[__name__].__class__ = _Namespace
_operators.install(sys.modules[__name__])


def __getattr__(name: str) -> Any:
    # the devices (strict_array.CPU, strict_array.DASK, ...) come from the backend
    # registry, each loaded on first use: `import strict_array` imports no backend
    # it does not need
    if name.isupper() and name.lower() in _backends.registered_names():
        return _backends.device(name.lower())
    if name in _EXTENSIONS:  # (a disabled extension: its property's error, not NumPy's)
        return getattr(_Namespace, name).fget(sys.modules[__name__])
    if name.startswith("_"):  # private names (also asked for while the package imports)
        raise AttributeError(f"module 'strict_array' has no attribute {name!r}")
    raise _numpy_api.missing_attribute(__name__, name)


__all__ = sorted(
    [*_public.NAMES, *(n.upper() for n in _backends.registered_names()), *_ELEMENTWISE]
)

_numpy_api.install()
_flags.ready(Array)

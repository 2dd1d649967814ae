"""The flags array-api-strict simulates, under its names: what the namespace lets code do.

array-api-strict (the reference namespace consumers test against) has four flags
(``api_version``, ``boolean_indexing``, ``data_dependent_shapes``,
``enabled_extensions``), set by :func:`set_array_api_strict_flags`, read by
:func:`get_array_api_strict_flags`, undone by :func:`reset_array_api_strict_flags`,
held for a block by :class:`ArrayAPIStrictFlags` and read from ``ARRAY_API_STRICT_*``
environment variables: the same names here, with the same meanings, so that a
consumer's tests switch by changing the module's name. One more flag,
``writeable``, simulates backends whose arrays cannot be written in place (JAX); it
bears the name array-api-extra's tests already give it for array-api-strict
(``tests/main/conftest.py``: ``writeable=False  # TODO implement in array-api-strict``).

Scope, as the rank-promotion modes (:mod:`strict_array._policy`): process-wide from
the environment (read at import) and :func:`set_array_api_strict_flags`; in one thread
or asyncio task inside :class:`ArrayAPIStrictFlags` (a :class:`contextvars.ContextVar`).

A flag's check sits where the refused operation is decided (the boolean-mask branch of
indexing, the set functions, ``nonzero``, ``repeat``), never on the operators' fast
path; the write checks are attached to the array type only once the flag is first
turned off (:func:`_arm_write_checks`), so a process that never turns it off pays
nothing.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable, Collection, Iterable
from contextvars import ContextVar, Token
from dataclasses import dataclass, replace
from types import FrameType, TracebackType
from typing import Any, TypeVar

from ._caller import called_from, ours

__all__ = [
    "SUPPORTED_VERSIONS", "ArrayAPIStrictFlags", "Flags", "current", "get_array_api_strict_flags",
    "refuse_boolean_index", "refuse_data_dependent", "requires_version",
    "reset_array_api_strict_flags", "set_array_api_strict_flags",
]  # fmt: skip

#: every version of the standard published, oldest first
SUPPORTED_VERSIONS = ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12")
LATEST_VERSION = SUPPORTED_VERSIONS[-1]
#: the extensions, each with the version that introduced it
EXTENSIONS = {"linalg": "2021.12", "fft": "2022.12"}

#: the functions a version of the standard added after 2022.12, by name (the
#: ``strict_array`` name, or ``linalg.NAME``), as array-api-strict 2.6 dates them
INTRODUCED = {
    "2023.12": (
        "clip", "copysign", "cumulative_sum", "hypot", "maximum", "minimum", "moveaxis",
        "repeat", "searchsorted", "signbit", "tile", "unstack", "__array_namespace_info__",
    ),
    "2024.12": (
        "count_nonzero", "cumulative_prod", "diff", "nextafter", "reciprocal",
        "take_along_axis",
    ),
    "2025.12": ("broadcast_shapes", "isin", "linalg.eig", "linalg.eigvals"),
}  # fmt: skip

_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off", "")


@dataclass(frozen=True)
class Flags:
    """The flags in force in a block of code (one immutable record).

    Attributes
    ----------
    api_version : str
        The version of the standard the namespace behaves as (one of
        ``SUPPORTED_VERSIONS``; default the latest).
    boolean_indexing : bool
        Indexing by a boolean array (``x[mask]``, ``x[mask] = v``) is allowed.
    data_dependent_shapes : bool
        Functions whose result's shape depends on the data (``unique_*``, ``nonzero``,
        ``repeat`` with an array of repeats) are allowed.
    enabled_extensions : tuple of str
        The extensions ``strict_array.linalg`` and ``strict_array.fft`` that exist.
    writeable : bool
        Arrays can be written in place (``x[i] = v``, ``x += y``, NumPy's ``out=``);
        ``False`` simulates JAX, whose arrays are immutable: writes are refused and
        ``x += y`` makes a new array, as ``x = x + y``.
    packages : tuple of str
        The packages whose code the three flags above refuse (the code calling
        strict_array, as the rank-promotion policy finds it); empty: all code.
    """

    api_version: str = LATEST_VERSION
    boolean_indexing: bool = True
    data_dependent_shapes: bool = True
    enabled_extensions: tuple[str, ...] = tuple(EXTENSIONS)
    writeable: bool = True
    packages: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """The flags by name, as :func:`get_array_api_strict_flags` returns them."""
        return {
            "api_version": self.api_version,
            "boolean_indexing": self.boolean_indexing,
            "data_dependent_shapes": self.data_dependent_shapes,
            "enabled_extensions": self.enabled_extensions,
            "writeable": self.writeable,
            "packages": self.packages,
        }

    def allows(self, flag: str) -> bool:
        """Whether the boolean ``flag`` allows what it names to the code calling here
        (off: refused, unless :attr:`packages` names others than the caller's)."""
        if getattr(self, flag):
            return True
        return bool(self.packages) and not called_from(self.packages)


DEFAULT = Flags()


def _changed(
    base: Flags,
    where: str,
    api_version: str | None,
    boolean_indexing: bool | None,
    data_dependent_shapes: bool | None,
    enabled_extensions: Collection[str] | None,
    writeable: bool | None,
    packages: Collection[str] | None = None,
) -> Flags:
    """``base`` with the flags given (not None) changed, each checked."""
    changes: dict[str, Any] = {}
    if api_version is not None:
        if api_version not in SUPPORTED_VERSIONS:
            raise ValueError(
                f"{where}: api_version {api_version!r} is not a version of the standard; "
                f"use one of {', '.join(SUPPORTED_VERSIONS)}."
            )
        changes["api_version"] = api_version
    for name, value in (
        ("boolean_indexing", boolean_indexing),
        ("data_dependent_shapes", data_dependent_shapes),
        ("writeable", writeable),
    ):
        if value is not None:
            if not isinstance(value, bool):
                raise TypeError(f"{where}: {name} must be True or False, got {value!r}.")
            changes[name] = value
    version = changes.get("api_version", base.api_version)
    if enabled_extensions is not None:
        if isinstance(enabled_extensions, str):
            raise TypeError(
                f"{where}: enabled_extensions must be a collection of names, such as "
                f"['linalg'], got the string {enabled_extensions!r}."
            )
        for ext in enabled_extensions:
            if ext not in EXTENSIONS:
                raise ValueError(
                    f"{where}: unknown extension {ext!r}; the extensions are "
                    f"{', '.join(EXTENSIONS)}."
                )
            if EXTENSIONS[ext] > version:
                raise ValueError(
                    f"{where}: the {ext} extension requires version {EXTENSIONS[ext]} of the "
                    f"standard or later, not {version}."
                )
        changes["enabled_extensions"] = tuple(enabled_extensions)
    else:  # as array-api-strict: an extension the version lacks is dropped
        changes["enabled_extensions"] = tuple(
            e for e in base.enabled_extensions if EXTENSIONS[e] <= version
        )
    if packages is not None:
        if isinstance(packages, str) or not all(isinstance(p, str) and p for p in packages):
            raise TypeError(
                f"{where}: packages must be a collection of package names, such as "
                f"['mypackage'], got {packages!r}."
            )
        changes["packages"] = tuple(packages)
    flags = replace(base, **changes)
    if not flags.boolean_indexing:
        MASKS_CHECKED[0] = True
    if not flags.writeable:
        _arm_write_checks()
    return flags


#: True once the boolean_indexing flag has been off anywhere in the process: the fast
#: paths of boolean indexing then leave masks to the general path, which checks the flag
MASKS_CHECKED = [False]


# --- the environment -----------------------------------------------------------------
def _env(name: str) -> str | None:
    """``STRICT_ARRAY_NAME`` or else ``ARRAY_API_STRICT_NAME`` (array-api-strict's own,
    so a consumer's CI configuration carries over unchanged)."""
    for prefix in ("STRICT_ARRAY_", "ARRAY_API_STRICT_"):
        value = os.environ.get(prefix + name)
        if value is not None:
            return value
    return None


def _env_bool(name: str) -> bool | None:
    value = _env(name)
    if value is None:
        return None
    text = value.strip().lower()
    if text in _TRUE or text in _FALSE:
        return text in _TRUE
    raise ValueError(
        f"environment variable {name}: {value!r} is not a truth value; use true or false."
    )


def flags_from_environment() -> Flags:
    """The flags the environment variables set (``STRICT_ARRAY_*`` or array-api-strict's
    ``ARRAY_API_STRICT_*``: ``API_VERSION``, ``BOOLEAN_INDEXING``, ``DATA_DEPENDENT_SHAPES``,
    ``ENABLED_EXTENSIONS`` (comma-separated), ``WRITEABLE``; and ``STRICT_ARRAY_FLAGS_PACKAGES``
    (comma-separated))."""
    extensions = _env("ENABLED_EXTENSIONS")
    packages = os.environ.get("STRICT_ARRAY_FLAGS_PACKAGES")
    return _changed(
        DEFAULT, "environment", _env("API_VERSION") or None, _env_bool("BOOLEAN_INDEXING"),
        _env_bool("DATA_DEPENDENT_SHAPES"),
        None if extensions is None else [e.strip() for e in extensions.split(",") if e.strip()],
        _env_bool("WRITEABLE"),
        None if packages is None else [p.strip() for p in packages.split(",") if p.strip()],
    )  # fmt: skip


#: the process's flags (read from the environment at the end of this module)
_process: list[Flags] = [DEFAULT]
_local: ContextVar[Flags | None] = ContextVar("strict_array_flags", default=None)


def current() -> Flags:
    """The flags in force here (this thread or task's, else the process's)."""
    return _local.get() or _process[0]


# --- the public functions -------------------------------------------------------------
def set_array_api_strict_flags(
    *,
    api_version: str | None = None,
    boolean_indexing: bool | None = None,
    data_dependent_shapes: bool | None = None,
    enabled_extensions: Collection[str] | None = None,
    writeable: bool | None = None,
    packages: Collection[str] | None = None,
) -> None:
    """Set flags for the whole process (those not given keep their value).

    The same function as array-api-strict's, with one more flag. Inside an
    :class:`ArrayAPIStrictFlags` block, the block's flags hold in its thread or task.

    Parameters
    ----------
    api_version : str, optional
        The version of the standard: ``"2021.12"``, ``"2022.12"``, ``"2023.12"``,
        ``"2024.12"`` or ``"2025.12"`` (the default). Functions a later version added
        raise ``RuntimeError`` (as in array-api-strict), ``__array_api_version__`` and
        ``__array_namespace_info__()`` report it, and extensions newer than it are
        disabled.
    boolean_indexing : bool, optional
        ``False`` refuses indexing by a boolean array (``RuntimeError``).
    data_dependent_shapes : bool, optional
        ``False`` refuses ``unique_all``, ``unique_counts``, ``unique_inverse``,
        ``unique_values``, ``nonzero`` and ``repeat`` with an array of repeats
        (``RuntimeError``), as a backend that compiles shapes ahead (JAX under ``jit``)
        would. Boolean indexing has its own flag.
    enabled_extensions : collection of str, optional
        The extensions that exist (``"linalg"``, ``"fft"``); a disabled one is absent
        (``AttributeError``).
    writeable : bool, optional
        ``False`` makes arrays immutable as JAX's are, on every device: a write into an
        existing array (``x[key] = v``, NumPy's ``out=``, ``np.copyto``...) raises
        ``RuntimeError`` pointing to ``array_api_extra.at``, and an in-place operator
        (``x += y``) makes a new array, as ``x = x + y`` (JAX's arrays have none: Python
        falls back to that), so that code relying on the old array changing shows it.
    packages : collection of str, optional
        strict_array's own: the packages (``["mypackage"]``) whose code
        ``boolean_indexing``, ``data_dependent_shapes`` and ``writeable`` refuse, the
        code calling strict_array as the rank-promotion policy finds it (so that a test
        suite's own fixtures may mask and write while the package under test may not);
        ``[]`` for all code, the default.

    Examples
    --------
    >>> import strict_array as xp
    >>> xp.set_array_api_strict_flags(data_dependent_shapes=False)
    >>> xp.__array_namespace_info__().capabilities()["data-dependent shapes"]
    False
    >>> xp.reset_array_api_strict_flags()
    """
    _process[0] = _changed(
        _process[0], "set_array_api_strict_flags", api_version, boolean_indexing,
        data_dependent_shapes, enabled_extensions, writeable, packages,
    )  # fmt: skip


def get_array_api_strict_flags() -> dict[str, Any]:
    """The flags in force here, by name.

    Returns
    -------
    dict
        ``api_version``, ``boolean_indexing``, ``data_dependent_shapes``,
        ``enabled_extensions`` (as array-api-strict returns them), ``writeable`` and
        ``packages``.

    Examples
    --------
    >>> import strict_array as xp
    >>> xp.get_array_api_strict_flags()["api_version"]
    '2025.12'
    """
    return current().as_dict()


def reset_array_api_strict_flags() -> None:
    """Set every flag of the process to its default (the environment is not read again).

    Examples
    --------
    >>> import strict_array as xp
    >>> xp.reset_array_api_strict_flags()
    >>> xp.get_array_api_strict_flags()["data_dependent_shapes"]
    True
    """
    _process[0] = DEFAULT


class ArrayAPIStrictFlags:
    """Context manager: set flags inside the block, in this thread or asyncio task only.

    Takes the arguments of :func:`set_array_api_strict_flags`; the flags not given
    keep the values in force where the block starts. Usable as a decorator.

    Examples
    --------
    >>> import strict_array as xp
    >>> x = xp.asarray([1, 2, 2])
    >>> with xp.ArrayAPIStrictFlags(data_dependent_shapes=False):
    ...     xp.unique_values(x)
    Traceback (most recent call last):
    RuntimeError: unique_values: its result's shape depends on the data, and the data_dependent_shapes flag is off ...
    """

    __slots__ = ("_flags", "_tokens")

    def __init__(
        self,
        *,
        api_version: str | None = None,
        boolean_indexing: bool | None = None,
        data_dependent_shapes: bool | None = None,
        enabled_extensions: Collection[str] | None = None,
        writeable: bool | None = None,
        packages: Collection[str] | None = None,
    ) -> None:
        # checked now (a wrong value fails where it is written), applied at entry over
        # the flags in force there
        self._flags = (api_version, boolean_indexing, data_dependent_shapes,
                       enabled_extensions if enabled_extensions is None
                       or isinstance(enabled_extensions, str) else tuple(enabled_extensions),
                       writeable,
                       packages if packages is None or isinstance(packages, str)
                       else tuple(packages))  # fmt: skip
        _changed(current(), "ArrayAPIStrictFlags", *self._flags)
        self._tokens: list[Token[Flags | None]] = []

    def __enter__(self) -> Flags:
        flags = _changed(current(), "ArrayAPIStrictFlags", *self._flags)
        self._tokens.append(_local.set(flags))
        return flags

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _local.reset(self._tokens.pop())

    def __call__(self, func: _F) -> _F:
        @functools.wraps(func)
        def inside(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return inside  # type: ignore[return-value]


_F = TypeVar("_F", bound=Callable[..., Any])


# --- the checks -----------------------------------------------------------------------
def requires_version(name: str, version: str, func: _F) -> _F:
    """``func`` refusing calls while the API version in force is older than ``version``."""

    @functools.wraps(func)
    def versioned(*args: Any, **kwargs: Any) -> Any:
        flags = _local.get() or _process[0]
        if flags.api_version < version:
            raise RuntimeError(
                f"{name}: added in version {version} of the array API standard, but the "
                f"api_version flag is {flags.api_version}; raise it with "
                f"set_array_api_strict_flags(api_version={version!r}) or do without {name}."
            )
        return func(*args, **kwargs)

    return versioned  # type: ignore[return-value]


#: what a later version of the standard added to functions an older one already had, as
#: array-api-strict dates and refuses it: (version, exception, what, the fix)
BEHAVIOURS: dict[str, tuple[str, type[Exception], str, str]] = {
    "scalar operand": (
        "2024.12", TypeError, "a Python scalar as an operand of an element-wise function",
        "pass an array (xp.asarray(value, dtype=x.dtype, device=x.device)) or use the "
        "operator (x + 1 took a scalar in every version)",
    ),
    "scalar result_type": (
        "2024.12", TypeError, "Python scalars among result_type's arguments",
        "pass arrays or dtypes only",
    ),
    "complex mean": (
        "2024.12", TypeError, "the mean of a complex array",
        "take the means of xp.real(x) and xp.imag(x)",
    ),
    "dlpack keywords": (
        "2023.12", ValueError, "the device= and copy= arguments of from_dlpack",
        "leave them out (then copy with xp.asarray(..., copy=True), move with to_device)",
    ),
    # a TypeError, as a producer without these keywords raises: NumPy's from_dlpack then
    # retries with stream= alone, as for any older producer, so importing still works
    "__dlpack__ keywords": (
        "2023.12", TypeError, "the max_version=, dl_device= and copy= arguments of __dlpack__",
        "call __dlpack__(stream=...) alone",
    ),
}  # fmt: skip


def require_behaviour(behaviour: str, op: str) -> None:
    """Raise if the API version in force is older than the one that added ``behaviour``
    (a key of :data:`BEHAVIOURS`) to ``op``."""
    version, error, what, fix = BEHAVIOURS[behaviour]
    api = current().api_version
    if api < version:
        raise error(
            f"{op}: {what} came in version {version} of the array API standard, but the "
            f"api_version flag is {api}; {fix}, or "
            f"set_array_api_strict_flags(api_version={version!r})."
        )


def versioned_functions(prefix: str = "") -> Iterable[tuple[str, str]]:
    """``(name, version)`` of each function a later version added, in ``prefix``'s
    namespace (``""`` for the main one, ``"linalg."``)."""
    for version, names in INTRODUCED.items():
        for name in names:
            if name.startswith(prefix) and "." not in name[len(prefix) :]:
                yield name[len(prefix) :], version


def arrays_of_version(arrays: Iterable[Any]) -> Any:
    """The arrays ``meshgrid`` and ``broadcast_arrays`` return: a tuple, or a list under an
    api_version before 2025.12, as the standard had them (and array-api-strict has)."""
    return tuple(arrays) if current().api_version >= "2025.12" else list(arrays)


#: what each flag refuses, and the fix: the text of its error
_REFUSALS = {
    "data_dependent_shapes": (
        "its result's shape depends on the data",
        " (as on a backend that compiles shapes ahead, JAX under jit); use a function of "
        "fixed shape (where, a size= argument of array_api_extra) or "
        "set_array_api_strict_flags(data_dependent_shapes=True).",
    ),
    "boolean_indexing": (
        "indexing by a boolean array",
        "; use where(mask, x, y) (or take with the mask's nonzero() where shapes may "
        "depend on the data), or set_array_api_strict_flags(boolean_indexing=True).",
    ),
    "writeable": (
        "writes into an existing array",
        " (as on JAX, whose arrays are immutable); make a new array instead: "
        "array_api_extra.at(x, idx).set(v) (or .add, .multiply...) for x[idx] = v "
        "and x[idx] op= v, the function's result for out=.",
    ),
}


def _refuse_unless(flag: str, op: str) -> None:
    """Raise the RuntimeError of ``op`` if the boolean ``flag`` is off here (for the
    calling code's package)."""
    if not current().allows(flag):
        what, fix = _REFUSALS[flag]
        raise RuntimeError(f"{op}: {what}, and the {flag} flag is off{fix}")


def refuse_data_dependent(op: str) -> None:
    """Raise if the data_dependent_shapes flag is off (``op``'s result depends on the data)."""
    _refuse_unless("data_dependent_shapes", op)


def refuse_boolean_index(op: str) -> None:
    """Raise if the boolean_indexing flag is off (``op`` indexes by a boolean array)."""
    _refuse_unless("boolean_indexing", op)


#: the modules whose writes the writeable flag lets through: array_api_extra's ``at``,
#: the fix the error names, which writes into its input where it cannot tell that the
#: backend refuses (array_api_compat.is_writeable_array: True for unknown array types)
#: and whose callers take its result as a new array
_WRITERS_ALLOWED = ("array_api_extra._at",)


def _write_allowed(writer: FrameType | None) -> bool:
    """Whether a write by the code of frame ``writer`` (None: unknown) may happen here."""
    if writer is not None and (
        writer.f_globals.get("__name__") in _WRITERS_ALLOWED or ours(writer)
    ):
        return True  # (array_api_extra.at's, or strict_array's own into arrays it made)
    return current().allows("writeable")


def _refuse_write(op: str, writer: FrameType | None = None) -> None:
    if not _write_allowed(writer):
        _refuse_unless("writeable", op)


# --- the write checks, attached to the array type on first need ---------------------------
_ARMED = [False]
#: the package has attached its operators and NumPy's entry points (before, there is
#: nothing to wrap: :func:`ready` arms the checks then, if the environment asks)
#: the array type, once complete (given by ``ready``: this module is imported by it)
_ARRAY_TYPE: list[type] = []
#: NumPy's functions that write into one of their arguments
_NUMPY_WRITERS = ("copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal")


def _arm_write_checks() -> None:
    """Wrap ``Array.__setitem__`` and NumPy's entry points with the writeable check, and
    make the in-place operators compute out of place when it is off (once per process:
    before, the writes pay nothing)."""
    if _ARMED[0] or not _ARRAY_TYPE:
        return
    _ARMED[0] = True
    Array: Any = _ARRAY_TYPE[0]

    def checked(name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def write(self: Any, *args: Any) -> Any:
            _refuse_write(f"Array.{name}", sys._getframe(1))
            return method(self, *args)

        return write

    def rebinding(method: Callable[..., Any], out_of_place: Callable[..., Any]) -> Any:
        # as on JAX, whose arrays have no in-place operators: Python falls back to
        # x = x op y, a new array; whoever else holds x keeps the old values
        @functools.wraps(method)
        def operator(self: Any, other: Any) -> Any:
            if _write_allowed(sys._getframe(1)):
                return method(self, other)
            return out_of_place(self, other)

        return operator

    Array.__setitem__ = checked("__setitem__", Array.__setitem__)  # type: ignore[method-assign]
    for name, method in list(vars(Array).items()):
        if name.startswith("__i") and name.endswith("__") and name not in _NOT_WRITES:
            setattr(Array, name, rebinding(method, getattr(Array, "__" + name[3:])))

    ufunc = Array.__array_ufunc__
    function = Array.__array_function__

    @functools.wraps(ufunc)
    def array_ufunc(self: Any, uf: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if _writes_into_array(kwargs.get("out"), Array) or method == "at":
            _refuse_write(f"numpy.{uf.__name__}" + ("" if method == "__call__" else f".{method}"))
        return ufunc(self, uf, method, *inputs, **kwargs)

    @functools.wraps(function)
    def array_function(self: Any, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if _writes_into_array(kwargs.get("out"), Array) or (
            func.__name__ in _NUMPY_WRITERS and args and type(args[0]) is Array
        ):
            _refuse_write(f"numpy.{func.__name__}")
        return function(self, func, types, args, kwargs)

    Array.__array_ufunc__ = array_ufunc  # type: ignore[method-assign,assignment]
    Array.__array_function__ = array_function  # type: ignore[method-assign,assignment]


def ready(array_type: type) -> None:
    """Called once the array type is complete: arm the write checks if the flags in
    force (the environment's) turn writes off."""
    _ARRAY_TYPE[:] = [array_type]
    if not current().writeable:
        _arm_write_checks()


#: dunder methods starting with ``__i`` that do not write
_NOT_WRITES = ("__init__", "__int__", "__index__", "__iter__", "__invert__")


def _writes_into_array(out: Any, array_type: type) -> bool:
    targets = out if isinstance(out, tuple) else (out,)
    return any(type(t) is array_type for t in targets)


_process[0] = flags_from_environment()

"""The ``fft`` extension of the array API standard."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from . import _public
from ._array import Array, expect_array, result
from ._creation import _device
from ._dtypes import as_dtype

__all__ = list(_public.FFT)

Norm = Literal["backward", "ortho", "forward"]


# The transforms pass their arguments on by position to one of these (not as
# ``**kwargs``, whose dictionary costs more than the rest of the wrapper) and the
# backend's function takes them by keyword.
def _transform(op: str, x: Array, n: int | None, axis: int, norm: Norm) -> Array:
    if type(x) is not Array:  # (the name is formatted for the error alone)
        expect_array(f"fft.{op}", x)
    dev = x._device
    return result(getattr(dev.ns.fft, op)(x._data, n=n, axis=axis, norm=norm), dev)


def _transform_n(
    op: str, x: Array, s: Sequence[int] | None, axes: Sequence[int] | None, norm: Norm
) -> Array:
    if type(x) is not Array:
        expect_array(f"fft.{op}", x)
    dev = x._device
    return result(getattr(dev.ns.fft, op)(x._data, s=s, axes=axes, norm=norm), dev)


def _shift(op: str, x: Array, axes: int | Sequence[int] | None) -> Array:
    if type(x) is not Array:
        expect_array(f"fft.{op}", x)
    dev = x._device
    return result(getattr(dev.ns.fft, op)(x._data, axes=axes), dev)


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """One-dimensional discrete Fourier transform along ``axis``."""
    return _transform("fft", x, n, axis, norm)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform along ``axis``."""
    return _transform("ifft", x, n, axis, norm)


def fftn(
    x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> Array:  # fmt: skip
    """N-dimensional discrete Fourier transform over ``axes``."""
    return _transform_n("fftn", x, s, axes, norm)


def ifftn(
    x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> Array:  # fmt: skip
    """N-dimensional inverse discrete Fourier transform over ``axes``."""
    return _transform_n("ifftn", x, s, axes, norm)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Discrete Fourier transform of real input (non-negative frequencies)."""
    return _transform("rfft", x, n, axis, norm)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Inverse of :func:`rfft` (real output of length ``n``)."""
    return _transform("irfft", x, n, axis, norm)


def rfftn(
    x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> Array:  # fmt: skip
    """N-dimensional discrete Fourier transform of real input."""
    return _transform_n("rfftn", x, s, axes, norm)


def irfftn(
    x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
    norm: Norm = "backward",
) -> Array:  # fmt: skip
    """Inverse of :func:`rfftn`."""
    return _transform_n("irfftn", x, s, axes, norm)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Discrete Fourier transform of a Hermitian-symmetric signal (real output)."""
    return _transform("hfft", x, n, axis, norm)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: Norm = "backward") -> Array:
    """Inverse of :func:`hfft`."""
    return _transform("ihfft", x, n, axis, norm)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Array:
    """Sample frequencies of :func:`fft` for window length ``n`` and spacing ``d``."""
    dev = _device(device, "fft.fftfreq")
    dtype = as_dtype(dtype, "fft.fftfreq")
    if dtype is None:  # (the device's default floating dtype)
        dtype = dev.profile.default_for((0.0,))
    return result(dev.ns.fft.fftfreq(n, d=d, dtype=dtype), dev)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: Any = None, device: Any = None) -> Array:
    """Sample frequencies of :func:`rfft` for window length ``n`` and spacing ``d``."""
    dev = _device(device, "fft.rfftfreq")
    dtype = as_dtype(dtype, "fft.rfftfreq")
    if dtype is None:  # (the device's default floating dtype)
        dtype = dev.profile.default_for((0.0,))
    return result(dev.ns.fft.rfftfreq(n, d=d, dtype=dtype), dev)


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Shift the zero-frequency term to the centre along ``axes``."""
    return _shift("fftshift", x, axes)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of :func:`fftshift`."""
    return _shift("ifftshift", x, axes)


def __getattr__(name: str) -> Any:
    # NumPy's spellings (norm, fft2, ...) get the standard's in the error, from the
    # table of strict_array._numpy_api
    from ._numpy_api import missing_attribute

    raise missing_attribute(__name__, name)

"""Dtype categories: each function takes the dtypes the standard gives it, on every
device, and refuses the others with the fix (never NumPy's float16 or a result that
differs between devices)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import on, to_numpy

import strict_array as xp
from strict_array._dtypes import CATEGORY_KINDS, FUNCTION_CATEGORIES
from strict_array._elementwise import UNARY as UNARY_FUNCTIONS

SAMPLES = {
    "b": np.array([True, False, True]),
    "i": np.array([1, -2, 3], dtype=np.int64),
    "u": np.array([1, 2, 3], dtype=np.uint8),
    "f": np.array([0.5, -1.5, 2.0]),
    "c": np.array([0.5 + 1j, -1.5, 2.0 - 2j]),
}
UNARY = sorted(n for n in UNARY_FUNCTIONS if n in FUNCTION_CATEGORIES)


@pytest.mark.parametrize("kind", list(SAMPLES))
@pytest.mark.parametrize("name", UNARY)
def test_unary_functions_take_their_category_only(device, name, kind):
    x = on(device, SAMPLES[kind])
    kinds = CATEGORY_KINDS[FUNCTION_CATEGORIES[name]][0]
    if kind in kinds:
        with np.errstate(all="ignore"):
            out = getattr(xp, name)(x)
        assert out.dtype in xp.__array_namespace_info__().dtypes().values()
        assert out.device is device
        return
    with pytest.raises(TypeError, match=rf"^{name}: x has dtype {x.dtype}, but {name} takes "):
        getattr(xp, name)(x)


@pytest.mark.parametrize(
    ("name", "kind"),
    [("atan2", "b"), ("hypot", "i"), ("copysign", "c"), ("logaddexp", "b"),
     ("nextafter", "i"), ("bitwise_and", "f"), ("bitwise_left_shift", "b"),
     ("logical_or", "i"), ("maximum", "c"), ("greater", "c"), ("floor_divide", "c")],
)  # fmt: skip
def test_binary_functions_and_operators_refuse_other_categories(device, name, kind):
    x = on(device, SAMPLES[kind])
    for call in (
        lambda: getattr(xp, name)(x, x),
        lambda: getattr(xp, name)(xp.reshape(x, (1, 3)), x, broadcast_dimensions=(1,)),
    ):
        with pytest.raises(TypeError, match=rf"^{name}: x1 has dtype {x.dtype}, but {name}"):
            call()
    if name == "greater":
        with pytest.raises(TypeError, match=r"^greater: x1 has dtype complex128"):
            _ = x > x


@pytest.mark.parametrize("name", ["max", "min", "argmax", "argmin", "sort", "argsort"])
def test_orderings_refuse_complex_numbers(device, name):
    with pytest.raises(TypeError, match=rf"^{name}: x has dtype complex128, but {name} takes"):
        getattr(xp, name)(on(device, SAMPLES["c"]))


# (not on the array_api_strict test backend, which refuses what the standard leaves open)
NUMPY_BASED = pytest.mark.parametrize("device", [xp.CPU, xp.DASK], ids=["cpu", "dask"])


@NUMPY_BASED
def test_booleans_count_in_sums_and_orderings_as_in_numpy(device):
    # xarray's rolling windows sum boolean masks; NumPy and Dask agree on these
    b = on(device, SAMPLES["b"])
    assert to_numpy(xp.sum(b)) == 2 and xp.sum(b).dtype == xp.int64
    assert to_numpy(xp.cumulative_sum(b)).tolist() == [1, 1, 2]
    assert bool(to_numpy(xp.max(b))) and int(to_numpy(xp.argmin(b))) == 1


@NUMPY_BASED
def test_arithmetic_follows_numpy_for_every_dtype(device):
    b, i = on(device, SAMPLES["b"]), on(device, SAMPLES["i"])
    assert (b + b).dtype == xp.bool and (i / i).dtype == xp.float64
    assert to_numpy(i / 2).tolist() == [0.5, -1.0, 1.5]


def test_the_message_names_the_fix():
    with pytest.raises(TypeError) as info:
        xp.sqrt(xp.asarray([1, 4]))
    assert str(info.value) == (
        "sqrt: x has dtype int64, but sqrt takes floating-point arrays (float32, float64, "
        "complex64, complex128); convert first, e.g. strict_array.astype(x, "
        "strict_array.float64)."
    )

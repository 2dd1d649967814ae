"""The CPU device's own spellings of NumPy functions give what NumPy's functions give."""

from __future__ import annotations

import numpy as np
import pytest

from strict_array._backends.numpy import CPU

BASE = np.arange(24.0).reshape(2, 3, 4)


def _layouts() -> list[tuple[str, np.ndarray]]:
    readonly = BASE.copy()
    readonly.flags.writeable = False
    return [
        ("c-contiguous", BASE.copy()),
        ("fortran", np.asfortranarray(BASE)),
        ("strided", BASE[:, ::2]),
        ("reversed", BASE[::-1]),
        ("read-only", readonly),
        ("broadcast view", np.broadcast_to(BASE[:, :1], (2, 3, 4))),
        ("size-1 axes", BASE[:1, 1:2]),
        ("0-d", np.asarray(5.0)),
        ("empty", np.zeros((0, 4))),
        ("int32", BASE.astype(np.int32)),
    ]


def _targets(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Shapes ``shape`` broadcasts to: itself, new leading axes, size-1 axes stretched."""
    stretched = tuple(5 if s == 1 else s for s in shape)
    return [shape, (3, *shape), (2, 1, *stretched), stretched]


@pytest.mark.parametrize("name, data", _layouts(), ids=[n for n, _ in _layouts()])
def test_broadcast_to_is_numpys_view(name, data):
    for shape in _targets(data.shape):
        ours, numpys = CPU.broadcast_to(data, shape), np.broadcast_to(data, shape)
        assert type(ours) is np.ndarray
        assert ours.shape == numpys.shape and ours.dtype == numpys.dtype
        np.testing.assert_array_equal(ours, numpys)
        assert not ours.flags.writeable
        if ours.size:
            assert np.shares_memory(ours, data)
        assert ours.strides == numpys.strides
        with pytest.raises(ValueError, match="read-only"):
            ours[...] = 0


def test_broadcast_to_sees_writes_to_its_data():
    data = np.zeros(3)
    view = CPU.broadcast_to(data, (2, 3))
    data[1] = 7.0
    np.testing.assert_array_equal(view, [[0, 7, 0], [0, 7, 0]])
    del data
    assert view.sum() == 14.0  # the view keeps the memory alive


@pytest.mark.parametrize(
    "sizes, shape", [((2, 3), (2, 4)), ((2, 3), (3,)), ((3,), ()), ((3,), (-1, 3)), ((1,), (2, -3))]
)
def test_broadcast_to_errors_are_numpys(sizes, shape):
    data = np.ones(sizes)
    with pytest.raises(ValueError) as expected:
        np.broadcast_to(data, shape)
    with pytest.raises(ValueError) as ours:
        CPU.broadcast_to(data, shape)
    assert str(ours.value) == str(expected.value)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(), (3,), (3, 4), (2, 0), (2, 3, 4), (1, 2, 3, 2)])
def test_meshgrid_is_numpys(indexing, sizes):
    arrays = [np.arange(n, dtype=np.int32 if i % 2 else np.float64) for i, n in enumerate(sizes)]
    arrays[1:2] = [arrays[1][::-1]] if len(arrays) > 1 else []  # a strided input
    ours = CPU.ns.meshgrid(*arrays, indexing=indexing)
    numpys = np.meshgrid(*arrays, indexing=indexing)
    assert type(ours) is tuple and len(ours) == len(numpys)
    for a, b in zip(ours, numpys):
        assert type(a) is np.ndarray and a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        assert a.flags.c_contiguous and a.flags.writeable and a.flags.owndata
        assert not any(np.shares_memory(a, x) for x in arrays)


def test_meshgrid_errors_are_numpys():
    with pytest.raises(ValueError, match=r"Valid values for `indexing` are 'xy' and 'ij'\."):
        CPU.ns.meshgrid(np.ones(2), indexing="yx")
    np.testing.assert_array_equal(
        CPU.ns.meshgrid(np.ones((2, 2)))[0], np.meshgrid(np.ones((2, 2)))[0]
    )

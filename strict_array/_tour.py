"""The tour shown by ``python -m strict_array``: the library's main job on embedded data."""

from __future__ import annotations

import numpy as np

import strict_array as xp


def tour() -> None:
    rng = np.random.default_rng(0)
    data = rng.standard_normal((5, 3)) * [1.0, 10.0, 100.0] + [0.0, 5.0, 50.0]
    x = xp.asarray(data)
    print(f"x: a (5, 3) array of 5 samples with 3 features on {x.device!r}\n")

    print("1. The silent outer-product bug NumPy lets through:")
    col, row = data[:, :1], data[:, 0]
    print(f"   numpy: (5, 1) - (5,) -> {np.subtract(col, row).shape}, no error")
    try:
        x[:, :1] - x[:, 0]
    except xp.RankPromotionError as e:
        print(f"   strict_array: RankPromotionError\n   {e}\n")

    print("2. Centre the columns: the column means have shape (3,), x has (5, 3).")
    mean = xp.mean(x, axis=0)
    centred = xp.subtract(x, mean, broadcast_dimensions=(1,))
    print("   xp.subtract(x, mean, broadcast_dimensions=(1,)) ->", centred.shape)
    print("   column means now:", np.round(np.asarray(xp.mean(centred, axis=0)), 12), "\n")

    print(
        "3. Scale each row by a per-sample weight (shape (5,)): axis 0, not NumPy's trailing axis."
    )
    w = xp.asarray([1.0, 2.0, 3.0, 4.0, 5.0])
    scaled = xp.multiply(x, w, broadcast_dimensions=(0,))
    print("   xp.multiply(x, w, broadcast_dimensions=(0,)) ->", scaled.shape, "\n")

    print("4. Its gradient: sum_to sends d(sum)/d(scaled) back to w's shape, exactly.")
    grad_w = xp.sum_to(xp.ones_like(scaled) * x, (5,), broadcast_dimensions=(0,))
    print(
        "   xp.sum_to(g * x, (5,), broadcast_dimensions=(0,)) ->", np.asarray(grad_w).round(3), "\n"
    )

    print("5. The same code, lazy and chunked on Dask:")
    try:
        xd = x.to_device(xp.DASK, chunks=(2, 3))
    except ImportError:
        print("   (install strict_array[dask] for the DASK device)")
        return
    lazy = xp.subtract(xd, xp.mean(xd, axis=0), broadcast_dimensions=(1,))
    print(f"   {lazy!r}")
    print("   equal to the NumPy result:", bool(np.allclose(np.asarray(lazy), np.asarray(centred))))

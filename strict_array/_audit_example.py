"""The program ``python -m strict_array audit`` runs when given no target.

A small NumPy-style model fit written without broadcast_dimensions, as code
written for NumPy usually is: standardise, then a few steps of gradient
descent for a linear model. Every rank promotion in it shows up in the audit.
"""

from __future__ import annotations

import numpy as np

import strict_array as xp


def standardise(x: xp.Array) -> xp.Array:
    mean = xp.mean(x, axis=0)
    std = xp.std(x, axis=0)
    return (x - mean) / std  # two rank promotions: (n, d) with (d,)


def fit_linear(x: xp.Array, y: xp.Array, steps: int = 50, lr: float = 0.1) -> xp.Array:
    w = xp.zeros_like(x[0, :])
    for _ in range(steps):
        residual = x @ w - y
        grad = xp.mean(x * residual[:, None], axis=0)  # (n, d) with (n, 1): same rank, fine
        w = w - lr * grad
    return w


def main() -> None:
    rng = np.random.default_rng(0)
    x = xp.asarray(rng.standard_normal((200, 3)) * [1.0, 5.0, 20.0])
    y = xp.asarray(rng.standard_normal(200))
    z = standardise(x)
    w = fit_linear(z, y)
    print("fitted weights:", np.round(np.asarray(w), 4))


if __name__ == "__main__":
    main()

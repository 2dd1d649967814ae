"""Reverse-mode automatic differentiation over strict_array, in a few dozen lines.

Broadcasting is explicit (``broadcast_dimensions``), so its gradient is too: the
adjoint of broadcasting an operand into the result's shape is
``xp.sum_to(grad, operand.shape, broadcast_dimensions)`` (see docs/gradients.md).

Run ``python examples/reverse_mode.py`` to compare the gradients with central
finite differences on the CPU and the Dask device.
"""

from __future__ import annotations

import numpy as np

import strict_array as xp


class Var:
    """A node of the computation graph: a value, its gradient, and its parents.

    ``parents`` holds ``(var, vjp)`` pairs: ``vjp`` maps the gradient of this
    node to the gradient contribution of ``var``.
    """

    def __init__(self, value: xp.Array, parents: tuple = ()) -> None:
        self.value = value
        self.parents = parents
        self.grad: xp.Array | None = None

    def backward(self) -> None:
        """Fill in ``grad`` of every Var this one depends on (self must be 0-d)."""
        order: list[Var] = []
        seen: set[int] = set()

        def visit(node: Var) -> None:  # depth-first: parents before children
            if id(node) not in seen:
                seen.add(id(node))
                for parent, _ in node.parents:
                    visit(parent)
                order.append(node)

        visit(self)
        self.grad = xp.ones_like(self.value)
        for node in reversed(order):  # children before parents
            for parent, vjp in node.parents:
                g = vjp(node.grad)
                parent.grad = g if parent.grad is None else parent.grad + g


def _dims(operand: xp.Array, out: xp.Array, broadcast_dimensions):
    """The broadcast_dimensions of ``operand`` against ``out``: None at equal rank."""
    return broadcast_dimensions if operand.ndim < out.ndim else None


def _unbroadcast(g: xp.Array, operand: xp.Array, broadcast_dimensions) -> xp.Array:
    """Adjoint of broadcasting ``operand`` to ``g.shape``: sum ``g`` back to its shape."""
    return xp.sum_to(g, operand.shape, _dims(operand, g, broadcast_dimensions))


def add(a: Var, b: Var, *, broadcast_dimensions=None) -> Var:
    out = xp.add(a.value, b.value, broadcast_dimensions=broadcast_dimensions)
    return Var(out, (
        (a, lambda g: _unbroadcast(g, a.value, broadcast_dimensions)),
        (b, lambda g: _unbroadcast(g, b.value, broadcast_dimensions)),
    ))  # fmt: skip


def multiply(a: Var, b: Var, *, broadcast_dimensions=None) -> Var:
    out = xp.multiply(a.value, b.value, broadcast_dimensions=broadcast_dimensions)

    def times(g: xp.Array, other: xp.Array) -> xp.Array:  # g * other, other broadcast like out
        return xp.multiply(g, other, broadcast_dimensions=_dims(other, g, broadcast_dimensions))

    return Var(out, (
        (a, lambda g: _unbroadcast(times(g, b.value), a.value, broadcast_dimensions)),
        (b, lambda g: _unbroadcast(times(g, a.value), b.value, broadcast_dimensions)),
    ))  # fmt: skip


def sum(a: Var) -> Var:  # shadows the builtin in this module, like xp.sum
    out = xp.sum(a.value)
    return Var(out, ((a, lambda g: xp.broadcast_in_dim(g, a.value.shape, ())),))


# --- the check: f(X, v, w) = sum((X + v[:, None]) * w[None, :]) -------------------
def f(X: Var, v: Var, w: Var) -> Var:
    return sum(multiply(add(X, v, broadcast_dimensions=(0,)), w, broadcast_dimensions=(1,)))


def gradients(X: xp.Array, v: xp.Array, w: xp.Array) -> tuple[xp.Array | None, ...]:
    """Gradients of ``f`` with respect to X (3, 4), v (3,) and w (4,), by reverse mode."""
    inputs = [Var(X), Var(v), Var(w)]
    f(*inputs).backward()
    return tuple(var.grad for var in inputs)


def check(device=xp.CPU, *, seed: int = 0, h: float = 1e-6) -> float:
    """Max abs difference between reverse-mode and central finite-difference gradients.

    The inputs live on ``device`` (``xp.CPU`` or ``xp.DASK``); on ``DASK`` the
    gradients stay lazy until they are compared.
    """
    rng = np.random.default_rng(seed)
    values = [rng.standard_normal(s) for s in ((3, 4), (3,), (4,))]
    chunks = 2 if device == xp.DASK else None  # several chunks per axis on Dask

    def put(a: np.ndarray) -> xp.Array:
        return xp.asarray(a, device=device, chunks=chunks)

    grads = gradients(*(put(a) for a in values))

    def f_at(vals) -> float:
        return float(f(*(Var(put(a)) for a in vals)).value)

    error = 0.0
    for k, (value, grad) in enumerate(zip(values, grads)):
        assert grad is not None and grad.device == device and grad.shape == value.shape
        numeric = np.empty_like(value)
        for i in np.ndindex(value.shape):
            plus, minus = [a.copy() for a in values], [a.copy() for a in values]
            plus[k][i] += h
            minus[k][i] -= h
            numeric[i] = (f_at(plus) - f_at(minus)) / (2 * h)
        error = max(error, float(np.max(np.abs(np.asarray(grad) - numeric))))
    return error


if __name__ == "__main__":
    for device in (xp.CPU, xp.DASK):
        print(f"{device!r}: max |reverse mode - finite differences| = {check(device):.2e}")

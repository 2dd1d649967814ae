"""``strict_array.lib.stride_tricks``: NumPy's location of :func:`sliding_window_view`."""

from .._extensions import sliding_window_view

__all__ = ["sliding_window_view"]

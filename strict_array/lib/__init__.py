"""NumPy's ``lib`` location for the extensions consumers look for there.

xarray's ``rolling`` calls ``xp.lib.stride_tricks.sliding_window_view`` on the
namespace of the arrays it wraps; this is that path (the function itself is
:func:`strict_array.sliding_window_view`).
"""

from . import stride_tricks

__all__ = ["stride_tricks"]

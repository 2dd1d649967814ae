"""The public names of the namespace beyond its element-wise functions, and of its
``linalg`` and ``fft`` extensions: ``strict_array.__all__`` is made of :data:`NAMES` (with
the element-wise functions and the devices), and the messages that name a standard
spelling read these lists (:mod:`._numpy_api._hints`)."""

from __future__ import annotations

NAMES: tuple[str, ...] = (
    "Array", "Device",
    "RankPromotionError", "RankPromotionWarning",
    "get_rank_promotion", "set_rank_promotion", "rank_promotion",
    "RankPromotionPolicy", "get_rank_promotion_policy", "set_rank_promotion_policy",
    "rank_promotion_policy", "compute", "compute_plan", "persist", "planning",
    "known_sizes", "einsum", "pad", "nansum", "nanprod", "nanmean", "nanvar", "nanstd",
    "nanmax", "nanmin", "nanargmax", "nanargmin", "nancumsum", "nancumprod",
    "sliding_window_view",
    "get_default_device", "set_default_device", "default_device",
    "set_array_api_strict_flags", "get_array_api_strict_flags", "reset_array_api_strict_flags",
    "ArrayAPIStrictFlags",
    "broadcast_in_dim", "sum_to", "fft", "linalg", "progress",
    "from_zarr", "to_zarr", "from_npy", "to_npy", "audit", "AuditReport", "RankPromotionBaseline",
    "__array_api_version__", "__array_namespace_info__",
    "e", "inf", "nan", "pi", "newaxis",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
    "arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
    "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros",
    "zeros_like",
    "astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type",
    "clip", "take", "take_along_axis",
    "matmul", "matrix_transpose", "tensordot", "vecdot",
    "broadcast_arrays", "broadcast_shapes", "broadcast_to", "concat", "expand_dims",
    "flip", "moveaxis", "permute_dims", "repeat", "reshape", "roll", "squeeze",
    "stack", "tile", "unstack",
    "argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where",
    "isin", "unique_all", "unique_counts", "unique_inverse", "unique_values",
    "argsort", "sort",
    "all", "any", "cumulative_prod", "cumulative_sum", "diff", "max", "mean", "min",
    "prod", "std", "sum", "var",
    )  # fmt: skip

#: the public names of ``strict_array.linalg``
LINALG: tuple[str, ...] = (
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
)  # fmt: skip

#: the public names of ``strict_array.fft``
FFT: tuple[str, ...] = (
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
)  # fmt: skip

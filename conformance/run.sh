#!/usr/bin/env bash
# Run the official array API test suite (data-apis/array-api-tests) against strict_array.
#
# usage: conformance/run.sh MODE DEVICE [extra pytest args...]
#   MODE    allow | raise   -> STRICT_ARRAY_RANK_PROMOTION
#   DEVICE  cpu | dask      -> STRICT_ARRAY_DEVICE
# environment:
#   ARRAY_API_TESTS_DIR  checkout of data-apis/array-api-tests (with its array-api submodule)
#   PYTHON               interpreter that has strict_array, pytest, hypothesis, pytest-xdist
#                        (default: python3)
#   MAX_EXAMPLES         hypothesis max examples (default 100)
#   JOBS                 pytest-xdist workers (default 2; 0 disables xdist)
# Extra arguments are passed to pytest unchanged, e.g. `-k test_add` or `--tb=line`.
set -euo pipefail

usage() {
    echo "usage: $0 {allow|raise} {cpu|dask} [extra pytest args...]" >&2
    exit 2
}

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if [[ -z "${ARRAY_API_TESTS_DIR:-}" ]]; then
    echo "error: ARRAY_API_TESTS_DIR is not set." >&2
    echo "       Point it at a checkout of https://github.com/data-apis/array-api-tests" >&2
    echo "       (cloned with --recurse-submodules); see $here/README.md." >&2
    exit 2
fi
if [[ ! -d "$ARRAY_API_TESTS_DIR/array_api_tests" ]]; then
    echo "error: ARRAY_API_TESTS_DIR=$ARRAY_API_TESTS_DIR has no array_api_tests/ directory;" >&2
    echo "       it is not a checkout of data-apis/array-api-tests. See $here/README.md." >&2
    exit 2
fi

[[ $# -ge 2 ]] || usage
mode="$1"
device="$2"
shift 2
case "$mode" in allow|raise) ;; *) echo "error: mode must be allow or raise, got '$mode'" >&2; usage ;; esac
case "$device" in cpu|dask) ;; *) echo "error: device must be cpu or dask, got '$device'" >&2; usage ;; esac

xfails="$here/xfails-$device-$mode.txt"
python="${PYTHON:-python3}"

args=(-m pytest array_api_tests
      -p no:cacheprovider
      --max-examples "${MAX_EXAMPLES:-100}")
if [[ "${JOBS:-2}" != 0 ]]; then
    args+=(-n "${JOBS:-2}")
fi
if [[ -f "$xfails" ]]; then
    args+=(--xfails-file "$xfails")
else
    echo "note: $xfails does not exist; running without an xfails file" >&2
fi
if [[ "$device" == dask ]]; then
    # dask builds a graph and computes per example: too slow for hypothesis' 200 ms deadline
    args+=(--hypothesis-disable-deadline)
fi

export ARRAY_API_TESTS_MODULE=strict_array
export STRICT_ARRAY_RANK_PROMOTION="$mode"
export STRICT_ARRAY_DEVICE="$device"

cd "$ARRAY_API_TESTS_DIR"
echo "+ (cd $PWD && STRICT_ARRAY_RANK_PROMOTION=$mode STRICT_ARRAY_DEVICE=$device" \
     "ARRAY_API_TESTS_MODULE=strict_array $python ${args[*]} $*)" >&2
exec "$python" "${args[@]}" "$@"

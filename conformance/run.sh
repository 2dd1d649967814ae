#!/usr/bin/env bash
# Run the official array API test suite (data-apis/array-api-tests) against strict_array.
#
# usage: conformance/run.sh MODE DEVICE [extra pytest args...]
#   MODE    allow | raise   -> STRICT_ARRAY_RANK_PROMOTION
#   DEVICE  cpu | dask, or a simulated device (cpu1, cpu_float32, cpu_no_float64,
#           cpu_no_x64, dask1, ...)  -> STRICT_ARRAY_DEVICE; the dtypes the device lacks
#           are skipped (ARRAY_API_TESTS_SKIP_DTYPES)
# environment:
#   API_VERSION          the api_version flag and the version the suite tests
#                        (STRICT_ARRAY_API_VERSION, ARRAY_API_TESTS_VERSION; default 2025.12)
#   NO_DDS=1             the data_dependent_shapes flag off, and the suite's tests of those
#                        functions skipped (--disable-data-dependent-shapes)
#   ARRAY_API_TESTS_DIR  checkout of data-apis/array-api-tests (with its array-api submodule)
#   PYTHON               interpreter that has strict_array, pytest, hypothesis, pytest-xdist
#                        (default: python3)
#   MAX_EXAMPLES         hypothesis max examples (default 100)
#   JOBS                 pytest-xdist workers (default 2; 0 disables xdist)
#   RESULTS              where the run's summary goes (default: conformance/results/RUN.json,
#                        RUN being DEVICE-MODE[-apiVERSION][-no-dds]; written only for a
#                        whole run, one without extra pytest args, unless RESULTS is set)
# Extra arguments are passed to pytest unchanged, e.g. `-k test_add` or `--tb=line`.
set -euo pipefail

usage() {
    echo "usage: $0 {allow|raise} DEVICE [extra pytest args...]  (DEVICE: cpu, dask, cpu_no_x64, ...)" >&2
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
python="${PYTHON:-python3}"
# the device's backend (its xfails) and the dtypes it lacks, from strict_array itself
read -r family lacks < <("$python" -c "
import sys, strict_array as xp
d = getattr(xp, sys.argv[1].upper(), None)
if not isinstance(d, xp.Device):
    sys.exit(f'error: unknown device {sys.argv[1]!r}; use one of '
             + ', '.join(x.name for x in xp.__array_namespace_info__().devices()))
info = xp.__array_namespace_info__()
lacks = [n for n in info.dtypes(device=xp.CPU) if n not in info.dtypes(device=d)]
print('dask' if d.lazy else 'cpu', ','.join(lacks) or '-')
" "$device") || usage

# the backend's list, then the device's own and the flags' (when they exist), in one file
xfails="$(mktemp "${TMPDIR:-/tmp}/xfails-$device-$mode.XXXXXX")"
report="$(mktemp "${TMPDIR:-/tmp}/report-$device-$mode.XXXXXX")"
trap 'rm -f "$xfails" "$report"' EXIT
lists=("$here/xfails-$family-$mode.txt")
[[ "$device" != "$family" ]] && lists+=("$here/xfails-$device.txt")
[[ -n "${API_VERSION:-}" ]] && lists+=("$here/xfails-api-$API_VERSION.txt")
[[ -n "${NO_DDS:-}" ]] && lists+=("$here/xfails-no-dds.txt")
for list in "${lists[@]}"; do
    [[ -f "$list" ]] && cat "$list" >> "$xfails"
done

args=(-m pytest array_api_tests
      -p no:cacheprovider
      --max-examples "${MAX_EXAMPLES:-100}"
      --json-report --json-report-file="$report"
      --json-report-omit collectors log traceback streams warnings keywords)
if [[ "${JOBS:-2}" != 0 ]]; then
    args+=(-n "${JOBS:-2}")
fi
args+=(--xfails-file "$xfails")
if [[ -n "${NO_DDS:-}" ]]; then
    args+=(--disable-data-dependent-shapes)
    export STRICT_ARRAY_DATA_DEPENDENT_SHAPES=false
fi
if [[ -n "${API_VERSION:-}" ]]; then
    export STRICT_ARRAY_API_VERSION="$API_VERSION" ARRAY_API_TESTS_VERSION="$API_VERSION"
    if [[ "$API_VERSION" < 2023.12 ]]; then
        # (the suite calls __array_namespace_info__, which 2023.12 added, while it collects
        # test_inspection_functions.py: a collection error, which no xfail covers)
        args+=(--ignore=array_api_tests/test_inspection_functions.py)
    fi
fi
if [[ "$lacks" != - ]]; then
    export ARRAY_API_TESTS_SKIP_DTYPES="$lacks"
fi
if [[ "$family" == dask ]]; then
    # dask builds a graph and computes per example: too slow for hypothesis' 200 ms deadline
    args+=(--hypothesis-disable-deadline)
fi

# the run's name, and its summary's file (the documentation's conformance table reads it)
run="$device-$mode${API_VERSION:+-api$API_VERSION}${NO_DDS:+-no-dds}"
if [[ -z "${RESULTS:-}" && $# -eq 0 ]]; then
    RESULTS="$here/results/$run.json"
fi
[[ -n "${RESULTS:-}" ]] && RESULTS="$(realpath -m "$RESULTS")"  # before the cd below
export RUN_NAME="$run" XFAILS="$xfails" MAX_EXAMPLES="${MAX_EXAMPLES:-100}" JOBS="${JOBS:-2}"
# the code under test, read before the run (the checkout may move on while it runs)
SOURCE_COMMIT="$("$python" "$here/summary.py" --commit)"
export SOURCE_COMMIT
export ARRAY_API_TESTS_MODULE=strict_array
export STRICT_ARRAY_RANK_PROMOTION="$mode"
export STRICT_ARRAY_DEVICE="$device"

cd "$ARRAY_API_TESTS_DIR"
echo "+ (cd $PWD && STRICT_ARRAY_RANK_PROMOTION=$mode STRICT_ARRAY_DEVICE=$device" \
     "${API_VERSION:+API_VERSION=$API_VERSION }${NO_DDS:+NO_DDS=1 }" \
     "ARRAY_API_TESTS_SKIP_DTYPES=${ARRAY_API_TESTS_SKIP_DTYPES:-}" \
     "ARRAY_API_TESTS_MODULE=strict_array $python ${args[*]} $*)  # xfails: ${lists[*]}" >&2
status=0
"$python" "${args[@]}" "$@" || status=$?
if [[ -n "${RESULTS:-}" && -s "$report" ]]; then
    "$python" "$here/summary.py" "$report" "$RESULTS"
fi
exit "$status"

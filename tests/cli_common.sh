# SPDX-License-Identifier: Apache-2.0
# cli_common.sh — what the shell tests of the commands share; sourced
# (`. "$(dirname "$0")/cli_common.sh"`) after `set -u` by tests/llm_cli.sh,
# llm_scale.sh, replay_cli.sh, plot_long.sh, special_paths.sh,
# sweep_merge_bad.sh, sweep_slurm.sh, sweep_mpi.sh, sweep_realpath.sh, cli_options.sh,
# fleetcost_cli.sh, tiresias_engine.sh, tiresias_gittins.sh,
# tiresias_replay.sh, admission.sh and exit_codes.sh (the last two define an
# expect of their own):
#   BIN      the tarmac binary (TARMAC_BIN, required)
#   PY       the Python with h5py (TARMAC_PY, default /usr/bin/python3)
#   W        a scratch folder named after the test, removed on exit
#   fail MSG              prints "FAIL: MSG" and counts it in $fails
#   expect CODE REGEX ARGS...
#                         runs tarmac ARGS (stdout to $W/out, stderr to
#                         $W/err): a failure unless it exits CODE and its
#                         stderr matches REGEX (grep -E)
# The test ends with `[ "$fails" -eq 0 ] || exit 1`.
BIN=${TARMAC_BIN:?}
PY=${TARMAC_PY:-/usr/bin/python3}
W=$(mktemp -d "${TMPDIR:-/tmp}/tarmac-${0##*/}.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
expect() {
    code=$1 re=$2
    shift 2
    "$BIN" "$@" >"$W/out" 2>"$W/err"
    rc=$?
    [ "$rc" -eq "$code" ] || fail "$* exited $rc, want $code: $(cat "$W/err")"
    grep -Eq -- "$re" "$W/err" || fail "$* stderr lacks /$re/: $(cat "$W/err")"
}

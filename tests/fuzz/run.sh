#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/CMakeLists.txt, clang-14, in build-fuzz/) and runs each for SECONDS
# seconds, or for RUNS executions with FUZZ_RUNS=RUNS, from its seed corpus in tests/fuzz/corpus/<target>/ (for
# fuzz_pysource also tests/data/corpus/ and tests/data/hostile/, read in place rather than copied; new inputs go to
# build-fuzz/corpus/<target>/, crashes to build-fuzz/artifacts/<target>/). Prints each target's executions and
# executions per second; exits 1 on the first crash, leak or timeout.
#   tests/fuzz/run.sh [SECONDS] [TARGET ...]      (default 15 s each, all six targets)
# FUZZ_SEED=N (default 1) fixes libFuzzer's seed, so a run is reproducible: CI meets the same inputs on every
# clone, and a crash it reports is met again here by the same command. FUZZ_SEED=0 picks a new seed each run (the
# long run in README.md).
# FUZZ_FORK=N runs N worker processes in libFuzzer's fork mode, each for a job of a few minutes at most: the long
# runs of fuzz_archive use it, whose resident memory grows in one process by about 2 KB an archive, memory libtorch
# keeps from each load and still reachable at exit (LeakSanitizer reports none): one process would pass the 2 GB
# RSS limit before a million archives.
# JITSCOPE_BUILD_LOCK=FILE runs the build and each target under flock FILE (machines that share cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
SECONDS_EACH=${1:-15}
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_inputset fuzz_pysource fuzz_picklecheck fuzz_sessionfile fuzz_pt2 fuzz_archive)
BUILD=${FUZZ_BUILD:-build-fuzz}
locked() {
  if [ -n "${JITSCOPE_BUILD_LOCK:-}" ]; then flock "$JITSCOPE_BUILD_LOCK" "$@"; else "$@"; fi
}

# fuzz_archive links the engine's libtorch: the project's .venv (make deps), or TORCH_PYTHON.
TORCH_PYTHON=${TORCH_PYTHON:-$PWD/.venv/bin/python}
if [ ! -f "$BUILD/build.ninja" ]; then
  cmake -S . -B "$BUILD" -G Ninja -DJITSCOPE_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER=clang++-14 -DJITSCOPE_TORCH_PYTHON="$TORCH_PYTHON" >/dev/null
fi
locked cmake --build "$BUILD" -j "$(nproc)" --target "${TARGETS[@]}" >"$BUILD/build.log" 2>&1 || { tail -30 "$BUILD/build.log"; exit 1; }

for t in "${TARGETS[@]}"; do
  mkdir -p "$BUILD/corpus/$t" "$BUILD/artifacts/$t"
  limit=(-max_total_time="$SECONDS_EACH")
  [ -z "${FUZZ_RUNS:-}" ] || limit=(-runs="$FUZZ_RUNS")
  [ -z "${FUZZ_FORK:-}" ] || limit+=(-fork="$FUZZ_FORK")
  log="$BUILD/artifacts/$t/run.log"
  # fuzz_archive runs libtorch, which is not instrumented and keeps its registries to the end: no leak check there.
  leaks=1
  [ "$t" != fuzz_archive ] || leaks=0
  # Seeds: the target's own corpus, and for the .py front end the test corpus and the hostile files themselves.
  seeds=("tests/fuzz/corpus/${t#fuzz_}")
  [ "$t" != fuzz_pysource ] || seeds+=(tests/data/corpus tests/data/hostile)
  # The .py inputs at most 16 KB: past every guard's threshold (201 brackets, 1001 prefix operators, a tree 2000
  # deep is 12 KB); with the largest seed (80 KB) as the limit, libFuzzer grew its inputs to that and ran 2.7x
  # slower.
  [ "$t" != fuzz_pysource ] || limit+=(-max_len=16384)
  status=0
  # ASan's leak check runs at exit; -timeout: an input taking more than 10 s is a hang.
  ASAN_OPTIONS="detect_leaks=$leaks" locked "$BUILD/bin/$t" "${limit[@]}" -seed="${FUZZ_SEED:-1}" -detect_leaks="$leaks" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$BUILD/artifacts/$t/" "$BUILD/corpus/$t" "${seeds[@]}" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ -n "${FUZZ_FORK:-}" ]; then
    # Fork mode: the parent's last status line counts every job's executions ("#N: ... time: Ts job: J").
    last=$(grep -E '^#[0-9]+: ' "$log" | tail -1)
    runs=$(sed -E 's/^#([0-9]+):.*/\1/' <<<"$last")
    secs=$(sed -E 's/.* time: ([0-9]+)s.*/\1/' <<<"$last")
    [ -z "$secs" ] || [ "$secs" -eq 0 ] || rate=$((runs / secs))
  fi
  printf '%-18s %10s executions, %8s per second, exit %s\n' "$t" "${runs:-?}" "${rate:-?}" "$status"
  if [ "$status" -ne 0 ]; then
    tail -40 "$log"
    echo "run.sh: $t failed; the input is in $BUILD/artifacts/$t/ (make it a regression test)" >&2
    exit 1
  fi
done

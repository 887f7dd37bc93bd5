# The library's targets (issue 32; docs/api.md): the Python package's per-call overhead
# over the C API for one short sentence, and the throughput of two Python threads sharing
# one Translator (one decoding thread each) over one thread. The model is bench/decode.sh's
# (made once by decode_models), the sentences test2016's BPE'd source, the options the
# library's defaults (beam 5, one decoding thread, subwords in). Reps interleaved (C then
# Python, one thread then two, the order swapped each rep); medians. Not part of `make
# test`. Sourced by bench/run, or alone: bash bench/api.sh (API_REPS, API_CALLS, API_LINES).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

# The C side of the per-call figure: MODEL N LINE, N calls after 10 to warm up; prints
# microseconds per call.
api_c_source() {
  cat <<'C'
#include <nmt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(int argc, char **argv) {
  nmt_translator *t;
  const char *line = argv[3];
  int n = atoi(argv[2]);
  if (nmt_translator_new(&t, (const char *const *)&argv[1], 1, NULL)) return fprintf(stderr, "%s\n", nmt_last_error()), 1;
  double t0 = 0;
  for (int i = -10; i < n; i++) {
    if (!i) t0 = now();
    nmt_result *r;
    if (nmt_translator_translate(t, &line, 1, &r)) return fprintf(stderr, "%s\n", nmt_last_error()), 1;
    nmt_result_free(r);
  }
  printf("%.1f\n", (now() - t0) / n * 1e6);
  nmt_translator_free(t);
  return 0;
}
C
}

# The Python side: `calls MODEL N LINE` as the C side; `threads MODEL T FILE CHUNK`: FILE's
# lines in calls of CHUNK lines, each of T threads taking the next call when it is free, all
# with one Translator; prints lines per second.
api_py_source() {
  cat <<'PY'
import sys, threading, time
import nmt
mode, model = sys.argv[1], sys.argv[2]
t = nmt.Translator(model)
if mode == "calls":
    n, line = int(sys.argv[3]), sys.argv[4]
    for _ in range(10):
        t.translate([line])
    t0 = time.perf_counter()
    for _ in range(n):
        t.translate([line])
    print("%.1f" % ((time.perf_counter() - t0) / n * 1e6))
else:
    threads, chunk = int(sys.argv[3]), int(sys.argv[5])
    lines = open(sys.argv[4], encoding="utf-8").read().splitlines()
    calls = [lines[i:i + chunk] for i in range(0, len(lines), chunk)]
    t.translate(calls[0])
    todo, lock = iter(calls), threading.Lock()
    def run():
        while True:
            with lock:
                c = next(todo, None)
            if c is None:
                return
            t.translate(c)
    ts = [threading.Thread(target=run) for k in range(threads)]
    t0 = time.perf_counter()
    for x in ts:
        x.start()
    for x in ts:
        x.join()
    print("%.2f" % (len(lines) / (time.perf_counter() - t0)))
PY
}

api_bench() {
  local out=$BENCH_DIR/api reps=${API_REPS:-7} n=${API_CALLS:-300} nl=${API_LINES:-1000} chunk=${API_CHUNK:-32}
  local m=$BENCH_DIR/decode/m.bin
  local py="env PYTHONPATH=$PWD/python NMT_LIBRARY=$PWD/build/libnmt.so.0 OPENBLAS_NUM_THREADS=1 /usr/bin/python3"
  multi30k_bpe || return 1
  mkdir -p "$out" "$BENCH_DIR/decode"
  NMT_PEER=0 decode_models "$BENCH_DIR/decode" 2 || return 1
  make -s --no-print-directory shared || return 1
  api_c_source >"$out/calls.c" && api_py_source >"$out/bench.py"
  cc -O2 -Iinclude "$out/calls.c" -Lbuild -lnmt -Wl,-rpath,"$PWD/build" -o "$out/calls" || return 1
  # a short sentence: the first of test2016's with 6 subwords
  local line
  line=$(awk 'NF == 6 { print; exit }' "$M30K/test.bpe.fr")
  head -n "$nl" "$M30K/test.bpe.fr" >"$out/src"
  local load0 r
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  : >"$out/c" && : >"$out/py" && : >"$out/t1" && : >"$out/t2" && : >"$out/c0" && : >"$out/py0"
  for r in $(seq "$reps"); do # an empty line: no decoding, the calls' own cost
    OPENBLAS_NUM_THREADS=1 "$out/calls" "$m" 20000 "" >>"$out/c0" && $py "$out/bench.py" calls "$m" 20000 "" >>"$out/py0" ||
      return 1
    if ((r % 2)); then
      OPENBLAS_NUM_THREADS=1 "$out/calls" "$m" "$n" "$line" >>"$out/c" && $py "$out/bench.py" calls "$m" "$n" "$line" >>"$out/py"
      $py "$out/bench.py" threads "$m" 1 "$out/src" "$chunk" >>"$out/t1" &&
        $py "$out/bench.py" threads "$m" 2 "$out/src" "$chunk" >>"$out/t2"
    else
      $py "$out/bench.py" calls "$m" "$n" "$line" >>"$out/py" && OPENBLAS_NUM_THREADS=1 "$out/calls" "$m" "$n" "$line" >>"$out/c"
      $py "$out/bench.py" threads "$m" 2 "$out/src" "$chunk" >>"$out/t2" &&
        $py "$out/bench.py" threads "$m" 1 "$out/src" "$chunk" >>"$out/t1"
    fi || return 1
  done
  local c p t1 t2 d c0 p0
  c0=$(median <"$out/c0") p0=$(median <"$out/py0")
  c=$(median <"$out/c") p=$(median <"$out/py") t1=$(median <"$out/t1") t2=$(median <"$out/t2")
  # the rep-by-rep overhead (each rep's C and Python runs back to back), its median
  d=$(paste "$out/c" "$out/py" | awk '{ printf "%.2f\n", ($2 - $1) / $1 * 100 }' | median)
  echo
  echo "The library (issue 32): '$line' translated $n times a run (µs/call), and test2016's first $nl lines in" \
    "calls of $chunk (lines/s), beam 5, one decoding thread per call; $(nproc) cores; medians of $reps interleaved reps;" \
    "load $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
  echo "| C µs/call | Python µs/call | Python overhead (medians; rep by rep) | 1 Python thread lines/s | 2 threads, one Translator | speed-up |"
  echo "| --- | --- | --- | --- | --- | --- |"
  awk -v c="$c" -v p="$p" -v d="$d" -v a="$t1" -v b="$t2" 'BEGIN {
    printf "| %.1f | %.1f | %+.2f%%; %+.2f%% | %.1f | %.1f | %.2fx |\n", c, p, (p - c) / c * 100, d, a, b, b / a }'
  echo "An empty line (no decoding: the call's own cost): C $c0 µs, Python $p0 µs a call;" \
    "Python's extra $(awk -v a="$c0" -v b="$p0" -v c="$c" 'BEGIN { printf "%.1f µs = %.2f%% of the C call above", b - a, (b - a) / c * 100 }')"
  echo "(each rep: C $(paste -sd/ "$out/c"), Python $(paste -sd/ "$out/py"); 1 thread $(paste -sd/ "$out/t1"), 2 threads $(paste -sd/ "$out/t2"))"
}
api_bench

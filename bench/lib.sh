# Shared by bench/*.sh (sourced by bench/run). Times whole commands: median wall
# of $BENCH_REPS runs, peak RSS of the slowest-memory run, and the speed-up over
# the reference tool's wall time measured on the same machine kind
# (../shared/refs/README.md).
BENCH_REPS=${BENCH_REPS:-3}

# median: the median of the numbers on stdin, one a line (the whole line of the
# middle one when a line holds more fields: sorted by its first)
median() { sort -g | awk '{a[NR] = $0} END {print a[int((NR + 1) / 2)]}'; }

# bench LABEL REF_LABEL REF_WALL_S LINES 'shell command'
bench() {
  local label=$1 ref=$2 refwall=$3 lines=$4 cmd=$5 walls=() rss=0 i t0 t1 m
  for ((i = 0; i < BENCH_REPS; i++)); do
    t0=$(date +%s%N)
    /usr/bin/time -f '%M' -o "$BENCH_DIR/time.out" bash -c "$cmd" >/dev/null 2>"$BENCH_DIR/err.out" ||
      { echo "bench: '$label' failed: $(tail -n1 "$BENCH_DIR/err.out")" >&2; return 1; }
    t1=$(date +%s%N)
    read -r m <"$BENCH_DIR/time.out"
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')"); ((m > rss)) && rss=$m
  done
  local med
  med=$(printf '%s\n' "${walls[@]}" | median)
  awk -v l="$label" -v r="$ref" -v w="$med" -v rw="$refwall" -v n="$lines" -v m="$rss" 'BEGIN {
    gsub(/\|/, "\\|", r)
    up = (rw + 0 > 0 && w > 0) ? sprintf("%.1fx", rw / w) : "-"
    printf "| %s | %.3f | %d | %.0f | %s | %s | %s |\n", l, w, (w > 0 ? n / w : 0), m / 1024, r, rw, up }'
}

bench_header() {
  echo "| command | wall s (median of $BENCH_REPS) | lines/s | peak MiB | reference | ref wall s | speed-up |"
  echo "| --- | --- | --- | --- | --- | --- | --- |"
}

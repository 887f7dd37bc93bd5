# Data-parallel training across processes (issue 15): target tokens/s of `mpirun -np N
# nmt-train` on the peer's config (Multi30k Fr→En BPE 8000, 9.7 M parameters: a 39 MB
# gradient), against one process with the same cores, and the reduction's own cost per step
# (the "reduction … ms/step" of rank 0's log: the gradient shards' alltoallv and allgatherv,
# not the wait for a slower rank).
#   - loopback: Open MPI's TCP transport over lo (shared memory off, so every byte crosses
#     the kernel's network stack);
#   - as root, rank 1 in a network namespace of its own, joined to rank 0's by a veth pair
#     that tc shapes to each rate of NMT_LINKS (default "10gbit 1gbit"): a two-machine job
#     on one machine.
# Medians of NMT_SCALE_REPS runs (3), NMT_SCALE_STEPS timed steps (60) after 10 of warm-up.
# Sourced by bench/run, or alone: bash bench/scaleout.sh.
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

# Launchers, each given the command: mpirun with TCP only; N ranks over lo; rank 0 here
# and rank 1 in namespace nmtB, where launcher and ranks talk over the veth pair too
# (PMIx's server listens on it: its usual loopback is another one in nmtB).
scale_mpirun() { mpirun --allow-run-as-root --oversubscribe --mca pml ob1 --mca btl tcp,self "$@"; }
scale_lo2() { scale_mpirun --mca btl_tcp_if_include lo -np 2 "$@"; }
scale_lo4() { scale_mpirun --mca btl_tcp_if_include lo -np 4 "$@"; }
scale_veth() {
  PMIX_MCA_ptl_tcp_if_include=10.99.0.0/24 PMIX_MCA_ptl_tcp_remote_connections=1 \
    scale_mpirun --mca btl_tcp_if_include 10.99.0.0/24 -np 1 "$@" : -np 1 ip netns exec nmtB "$@"
}

# scale_run OUT LAUNCHER: one timed run of the peer config; prints "tok/s reduction-ms"
scale_run() {
  local out=$1 launch=$2 warm=10 steps=${NMT_SCALE_STEPS:-60} d=$M30K
  rm -f "$out/m.bin" "$out/m.bin.ckpt" "$out/metrics.csv"
  $launch "$(command -v nmt-train)" --train-sets "$d/train.bpe.fr" "$d/train.bpe.en" -m "$out/m.bin" --overwrite \
    --dim-emb 256 --dim-rnn 512 --enc-type bidirectional --attention general --dropout 0.3 \
    --mini-batch 64 --clip-norm 5 --max-length 80 --after-batches $((warm + steps)) \
    --log-freq "$warm" --valid-freq 0 --save-freq 0 --metrics "$out/metrics.csv" \
    --cpu-threads "$SCALE_THREADS" >"$out/log" 2>&1 || { echo "nmt-train failed: $(tail -n1 "$out/log")" >&2; return 1; }
  local red
  red=$(sed -n 's/.*reduction \([0-9.]*\) ms\/step.*/\1/p' "$out/log" | tail -n1)
  awk -F, -v w="$warm" -v n=$((warm + steps)) -v red="${red:--}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["step"] == w { t0 = $c["tokens"]; e0 = $c["elapsed_s"] }
    $c["step"] == n { printf "%.1f %s\n", ($c["tokens"] - t0) / ($c["elapsed_s"] - e0), red }' "$out/metrics.csv"
}

# scale_row LABEL RANKS THREADS LAUNCHER: the median of NMT_SCALE_REPS runs, as a table row
scale_row() {
  local label=$1 ranks=$2 launch=$4 i runs=()
  SCALE_THREADS=$3
  for ((i = 0; i < ${NMT_SCALE_REPS:-3}; i++)); do runs+=("$(scale_run "$SCALE_OUT" "$launch")") || return 1; done
  printf '%s\n' "${runs[@]}" | sort -g | awk -v l="$label" -v r="$ranks" -v t="$SCALE_THREADS" -v base="$SCALE_BASE" '
    { tok[NR] = $1; red[NR] = $2 } END { m = int((NR + 1) / 2)
      printf "| %s | %d × %d | %.0f | %s | %s |\n", l, r, t, tok[m], red[m],
        (base > 0 ? sprintf("%.2f", tok[m] / base) : "1.00") }'
}

# scale_link RATE: namespace nmtB, joined to this one by veth at RATE each way
scale_link() {
  local rate=$1
  ip netns add nmtB && ip link add nmtva type veth peer name nmtvb netns nmtB || return 1
  ip addr add 10.99.0.1/24 dev nmtva && ip -n nmtB addr add 10.99.0.2/24 dev nmtvb &&
    ip link set nmtva up && ip -n nmtB link set nmtvb up && ip -n nmtB link set lo up &&
    tc qdisc add dev nmtva root tbf rate "$rate" burst 4mb latency 100ms &&
    tc -n nmtB qdisc add dev nmtvb root tbf rate "$rate" burst 4mb latency 100ms
}
scale_unlink() { ip link del nmtva 2>/dev/null; ip netns del nmtB 2>/dev/null; true; }

scaleout_bench() {
  SCALE_OUT=$BENCH_DIR/scaleout
  mkdir -p "$SCALE_OUT"
  command -v mpirun >/dev/null || { echo "scaleout: no mpirun (make deps installs openmpi-bin)"; return 0; }
  multi30k_bpe || return 1
  echo
  echo "Training across processes, peer config, Multi30k Fr→En BPE 8000 (39 MB gradient), $(nproc) cores;" \
    "medians of ${NMT_SCALE_REPS:-3} runs of ${NMT_SCALE_STEPS:-60} steps; load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "| transport | ranks × threads | target tok/s | reduction ms/step | efficiency |"
  echo "| --- | --- | --- | --- | --- |"
  SCALE_BASE=0
  local row
  row=$(scale_row "one process" 1 2 env) || return 1
  echo "$row"
  SCALE_BASE=$(echo "$row" | awk -F'|' '{ print $4 + 0 }')
  scale_row "loopback TCP" 2 1 scale_lo2 || return 1
  scale_row "loopback TCP" 4 1 scale_lo4 || return 1
  [ "$(id -u)" = 0 ] || { echo "(the shaped links need root)"; return 0; }
  local rate
  for rate in ${NMT_LINKS:-10gbit 1gbit}; do
    scale_unlink
    scale_link "$rate" || { scale_unlink; echo "(no network namespaces here)"; return 0; }
    scale_row "veth at $rate, 2 namespaces" 2 1 scale_veth || { scale_unlink; return 1; }
    scale_unlink
  done
}
scaleout_bench

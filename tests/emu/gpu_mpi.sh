#!/usr/bin/env bash
# mpirun -np N nmt-train --device cuda on the CUDA emulator ($BIN/emu/): each
# rank trains on its device and the gradients are summed across the ranks on
# the device (the host-staged path: the emulated build has no NCCL), on make
# demo's corpus (as gpu_tools.sh). Checked:
# - the loss curve (and validation perplexity) of -np 2 and -np 3 (shards of
#   unequal sizes) is the CPU build's with --cpu-threads 2 and 3 (the same
#   parts, masks and sum order; which mpirun -np N --cpu-threads 1 matches bit
#   for bit, tests/cli/mpi.cases) within 1e-4 relative, the emulated kernels'
#   tolerance of gpu_tools.sh;
# - exactly: --resume under mpirun on the device equals the run in one go; a
#   batch too small for two slots (rank 1 idles) equals one device process;
# - ranks on a GPU and on the CPU are refused together (exit 2).
# Skipped without mpirun (Debian's openmpi-bin) and under the sanitizers (Open
# MPI's own allocations are reports), as tests/cli/mpi.setup. Run by `make test-emu`.
#   tests/emu/gpu_mpi.sh BIN
set -euo pipefail
command -v mpirun > /dev/null || { echo "gpu_mpi: no mpirun (Debian's openmpi-bin): skipped"; exit 0; }
[ -z "${NMT_SANITIZED:-}" ] || { echo "gpu_mpi: Open MPI under the sanitizers: skipped"; exit 0; }
source "$(dirname "$0")/demo_corpus.sh" "${1:-}"
head -40 valid.fr > valid.f && head -40 valid.en > valid.e
mpi() { mpirun --allow-run-as-root --oversubscribe "$@"; }
fnv() { "$bin/nmt-model" info -t "$1" | grep fnv; }
O=(--train-sets train.fr train.en --dim-emb 16 --dim-rnn 32 --learn-rate 0.01 --dropout 0.2 --log-freq 10
   --exponential-smoothing 0.01)
# the loss (and validation perplexity, when logged) of every row, CPU beside GPU
same_curve() {
  paste -d, <(cut -d, -f1,4,11 "$1") <(cut -d, -f1,4,11 "$2") | awk -F, 'NR > 1 {
    n++
    for (i = 2; i <= 3; i++) { d = $i - $(i + 3); if (d < 0) d = -d; m = $i < 0 ? -$i : $i
      if ($1 != $4 || d > 1e-4 * m) { print "step " $1 ": " $i " on the CPU, " $(i + 3) " on the GPUs"; bad = 1 } } }
    END { if (!n) { print "no rows"; bad = 1 }; exit bad }'
}
for np in 2 3; do
  V=(--valid-sets valid.f valid.e --valid-freq 20 --mini-batch $((8 * np)) --after-batches 40 -q)
  "$bin/nmt-train" "${O[@]}" "${V[@]}" --cpu-threads $np -m cpu$np.bin --metrics cpu$np.csv
  mpi -np $np "$bin/emu/nmt-train" "${O[@]}" "${V[@]}" -m gpu$np.bin --metrics gpu$np.csv --device cuda 2> gpu$np.err
  same_curve cpu$np.csv gpu$np.csv || { echo "-np $np: the loss curves differ"; exit 1; }
done
# rank 0 says once how the gradients are summed
mpi -np 2 "$bin/emu/nmt-train" "${O[@]}" --mini-batch 16 --after-batches 1 -m say.bin --device cuda 2> say.err ||
  { cat say.err; exit 1; }
[ "$(grep -c 'summed through the host (Open MPI): this build has no NCCL' say.err)" = 1 ] ||
  { echo "no (or more than one) line naming the host-staged sum"; cat say.err; exit 1; }
# exact: --resume, 12 steps then on to 30, is the run of 30 in one go
R=("${O[@]}" --mini-batch 16 --save-freq 0 --device cuda -q)
mpi -np 2 "$bin/emu/nmt-train" "${R[@]}" -m one.bin --after-batches 30
mpi -np 2 "$bin/emu/nmt-train" "${R[@]}" -m two.bin --after-batches 12
mpi -np 2 "$bin/emu/nmt-train" "${R[@]}" -m two.bin --after-batches 30 --resume
[ "$(fnv one.bin)" = "$(fnv two.bin)" ] || { echo "--resume under mpirun on the device is not exact"; exit 1; }
# exact: 8 sentences make one part, so rank 1 idles and the sum is rank 0's gradient
S=("${O[@]}" --mini-batch 8 --after-batches 20 --device cuda -q)
mpi -np 2 "$bin/emu/nmt-train" "${S[@]}" -m idle2.bin 2> /dev/null
"$bin/emu/nmt-train" "${S[@]}" -m idle1.bin
[ "$(fnv idle1.bin)" = "$(fnv idle2.bin)" ] || { echo "an idle rank changed the device's sum"; exit 1; }
# a rank whose --device cuda fell back to the CPU (here: the CPU build's) stops every rank
status=0
mpi -np 1 "$bin/emu/nmt-train" "${O[@]}" -m mixed.bin --device cuda -q : \
  -np 1 "$bin/nmt-train" "${O[@]}" -m mixed.bin --device cuda -q > mixed.out 2>&1 || status=$?
[ "$status" = 2 ] && grep -q '^nmt-train: rank 1 trains on the CPU, rank 0 on the GPU' mixed.out ||
  { echo "ranks on a GPU and on the CPU: exit $status"; cat mixed.out; exit 1; }
echo "gpu_mpi: mpirun -np 2 and 3 nmt-train --device cuda on the emulator match the CPU; resume and an idle rank exact"

#!/usr/bin/env bash
# The first run of nmt on a machine with a GPU (docs/gpu.md, "First contact"): one command,
# one report. From the repository root:
#   bash bench/gpu/first-contact.sh [REPORT]        (default: build/first-contact/report.md)
# Steps, each timed and recorded in the report whatever happens to the others:
#   1. the machine: nvidia-smi, nvcc, the CPU, free memory
#   2. the runtime packages the image lacks, from .gpu-debs/ (made here by bench/gpu/bundle.sh)
#   3. build: `make all` and `make cuda` (nvcc, sm_90)
#   4. every CUDA test on the hardware, NMT_REQUIRE_GPU=1 (a skipped case is a failure)
#   5. compute-sanitizer memcheck, racecheck, synccheck and initcheck over the CUDA tests
#   6. the engine tests (`make test`) and the emulator's (`make test-emu`)
#   7. a short training on the demo corpus with --device cpu and --device cuda, the loss
#      curves side by side, then nmt-decode of the test set with each device on the CPU's model;
#      mpirun -np 2 --device cuda (NCCL with 2+ GPUs) against the staged sum, bit for bit
#   8. speed against the PyTorch peer with --device cuda: training tokens/s at batch 64, 128,
#      256 (bench/train.sh) and decoding test2016 greedy and beam 5 (bench/decode.sh), when the
#      peer (python3 with torch) and ../shared are there
# FC_QUICK=1 skips step 8. Exit status: 0 when every step that ran passed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 3
report=${1:-build/first-contact/report.md}
work=$(dirname "$report")
mkdir -p "$work"
report=$(cd "$work" && pwd)/$(basename "$report")
work=$(dirname "$report")
jobs=$(nproc)
failed=0

: >"$report"
say() { printf '%s\n' "$*" >>"$report"; }
# step NAME CMD...: run CMD with its output in $work/NAME.log; one report row with the
# status, the seconds and the log's last line.
step() {
  local name=$1 t0=$SECONDS st
  shift
  "$@" >"$work/$name.log" 2>&1
  st=$?
  local last
  last=$(grep -v '^\s*$' "$work/$name.log" | tail -n1 | cut -c1-160)
  if [ $st -eq 0 ]; then say "| $name | ok | $((SECONDS - t0)) s | ${last//|/\\|} |"
  else say "| $name | FAILED (exit $st) | $((SECONDS - t0)) s | ${last//|/\\|} |"; failed=1; fi
  return $st
}

say "# nmt on a GPU: first contact, $(date -u '+%Y-%m-%d %H:%M UTC')"
say ""
say "commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'); logs beside this file in $work"
say ""
say '```'
{ nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv 2>/dev/null || echo "no nvidia-smi"
  command -v nvcc >/dev/null && nvcc --version | tail -n2 || echo "no nvcc on PATH"
  grep -m1 'model name' /proc/cpuinfo; echo "cores $jobs; $(free -g | awk '/Mem:/{print $2}') GiB"; } >>"$report"
say '```'
say ""
say "| step | status | time | last line of its log |"
say "| --- | --- | --- | --- |"

# 2. Packages: unpacked over / (dpkg -x) only where one is missing, then ldconfig.
install_debs() {
  local d n=0
  [ -d .gpu-debs ] || { echo "no .gpu-debs/ (bench/gpu/bundle.sh makes it): using the image's packages"; return 0; }
  for d in .gpu-debs/*.deb; do
    dpkg -s "$(dpkg-deb -f "$d" Package)" >/dev/null 2>&1 || { echo "unpacking $d"; dpkg -x "$d" / && n=$((n + 1)); }
  done
  # dpkg -x runs no maintainer script: make the links update-alternatives would have made
  local a=/usr/lib/x86_64-linux-gnu
  if [ ! -e $a/libopenblas.so ] && [ -e $a/openblas-pthread/libopenblas.so.0 ]; then
    ln -s openblas-pthread/libopenblas.so.0 $a/libopenblas.so.0 && ln -s libopenblas.so.0 $a/libopenblas.so
  fi
  ldconfig
  echo "$n of $(ls .gpu-debs/*.deb | wc -l) packages from .gpu-debs/ unpacked (the others were installed)"
}
step packages install_debs

step build make -j"$jobs" all || { say ""; say "The CPU build failed; nothing else can run."; exit 1; }
step build-cuda make -j"$jobs" cuda
gpu=0
nvidia-smi -L >/dev/null 2>&1 && [ -x bin/nmt-tests-cuda ] && gpu=1
if [ $gpu = 1 ]; then
  step cuda-tests env NMT_REQUIRE_GPU=1 ./bin/nmt-tests-cuda cuda_
  step gpu-engine env NMT_REQUIRE_GPU=1 ./bin/nmt-tests-cuda gpu_
  if command -v compute-sanitizer >/dev/null; then
    for tool in memcheck racecheck synccheck initcheck; do
      step "sanitizer-$tool" compute-sanitizer --tool "$tool" --error-exitcode 9 ./bin/nmt-tests-cuda cuda_
    done
  else
    say "| compute-sanitizer | not found | | install the CUDA toolkit's sanitizer |"; failed=1
  fi
else
  say "| cuda-tests | not run | | no GPU visible (nvidia-smi -L) or no nmt-tests-cuda |"; failed=1
fi
step engine-tests make test
step emulator-tests make test-emu

# 7. The same short training on each device: the loss every 10 steps, side by side.
train_pair() {
  local d=$work/demo
  mkdir -p "$d"
  cc -std=c11 -O2 -o "$d/numbers" examples/demo/numbers.c && (cd "$d" && ./numbers . 2000 1) || return 1
  local dev
  # the GPU's tools are make cuda's (bin/cuda/), the CPU's make's
  for dev in cpu cuda; do
    "./bin/${dev/cpu/.}/nmt-train" --train-sets "$d/train.fr" "$d/train.en" -m "$d/$dev.bin" --overwrite --device "$dev" \
      --dim-emb 64 --dim-rnn 128 --mini-batch 32 --after-batches 200 --log-freq 10 --seed 1 \
      --metrics "$d/$dev.metrics" || return 1
  done
  # the metrics are CSV with a header: step is column 1, loss column 4
  paste -d, <(cut -d, -f1,4 "$d/cpu.metrics") <(cut -d, -f4 "$d/cuda.metrics") |
    awk -F, 'NR == 1 {print "step\tcpu loss\tcuda loss"; next} {print $1 "\t" $2 "\t" $3}' >"$d/loss-side-by-side.tsv"
  for dev in cpu cuda; do
    "./bin/${dev/cpu/.}/nmt-decode" -m "$d/cpu.bin" --device "$dev" -b 5 <"$d/test.fr" >"$d/test.$dev.out" || return 1
  done
  cmp "$d/test.cpu.out" "$d/test.cuda.out" && echo "decode: --device cuda gives the CPU's output"
}
step train-decode-cpu-vs-cuda train_pair
if [ -f "$work/demo/loss-side-by-side.tsv" ]; then
  say ""; say "Loss curves (cpu | cuda), every 10 steps:"; say '```'
  head -n 25 "$work/demo/loss-side-by-side.tsv" >>"$report"; say '```'; say ""
fi

# 7b. mpirun -np 2 --device cuda (docs/distributed.md, "GPUs"): NCCL when the ranks have a GPU
# each (two or more GPUs), else the host-staged sum; then the staged sum forced (NMT_NCCL=0).
# The two models must be the same bits, and the loss curve the CPU's with --cpu-threads 2
# (the same parts and masks) within the GPU's rounding.
mpi_pair() {
  local d=$work/demo-mpi
  mkdir -p "$d"
  command -v mpirun >/dev/null || { echo "no mpirun (openmpi-bin)"; return 1; }
  cc -std=c11 -O2 -o "$d/numbers" examples/demo/numbers.c && (cd "$d" && ./numbers . 2000 1) || return 1
  local o=(--train-sets "$d/train.fr" "$d/train.en" --overwrite --dim-emb 64 --dim-rnn 128 --mini-batch 64
           --after-batches 100 --log-freq 10 --seed 1 --dropout 0.2)
  local m=(mpirun --allow-run-as-root --oversubscribe -np 2 ./bin/cuda/nmt-train "${o[@]}" --device cuda)
  "${m[@]}" -m "$d/nccl.bin" --metrics "$d/nccl.metrics" 2>"$d/nccl.err" || { cat "$d/nccl.err"; return 1; }
  NMT_NCCL=0 "${m[@]}" -m "$d/staged.bin" --metrics "$d/staged.metrics" 2>"$d/staged.err" || { cat "$d/staged.err"; return 1; }
  ./bin/nmt-train "${o[@]}" --cpu-threads 2 -m "$d/cpu.bin" --metrics "$d/cpu.metrics" -q || return 1
  grep -h 'gradients of 2 ranks are summed' "$d/nccl.err" "$d/staged.err"
  paste -d, <(cut -d, -f1,4 "$d/cpu.metrics") <(cut -d, -f4 "$d/nccl.metrics") <(cut -d, -f4 "$d/staged.metrics") |
    awk -F, 'NR == 1 {print "step\tcpu loss\tfirst\tstaged"; next} {print $1 "\t" $2 "\t" $3 "\t" $4}' >"$d/loss.tsv"
  cat "$d/loss.tsv"
  [ "$(./bin/nmt-model info -t "$d/nccl.bin" | grep fnv)" = "$(./bin/nmt-model info -t "$d/staged.bin" | grep fnv)" ] &&
    echo "mpirun -np 2: NCCL's (or the first run's) model is the staged sum's, bit for bit"
}
[ $gpu = 1 ] && step mpirun-np2-cuda mpi_pair
if [ -f "$work/demo-mpi/loss.tsv" ]; then
  say ""; say "mpirun -np 2 --device cuda (first: NCCL with 2+ GPUs, else staged) beside the CPU:"; say '```'
  grep -h 'summed' "$work/demo-mpi/nccl.err" >>"$report"; cat "$work/demo-mpi/loss.tsv" >>"$report"; say '```'; say ""
fi

# 8. Speed against the peer, the same scripts as the CPU benchmarks, on the device.
if [ "${FC_QUICK:-0}" != 1 ]; then
  if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null && [ -d ../shared/data ]; then
    for b in 64 128 256; do
      step "train-speed-batch-$b" env NMT_DEVICE=cuda NMT_BATCH=$b bash bench/train.sh
    done
    step decode-speed env NMT_DEVICE=cuda bash bench/decode.sh
    say ""; say "Speed tables:"; say '```'
    cat "$work"/train-speed-batch-*.log "$work/decode-speed.log" | grep '^|' >>"$report"; say '```'
  else
    say "| speed | not run | | needs python3 with CUDA torch (the peer) and ../shared |"
  fi
fi

say ""
say "Targets (issue 12): training >= 1.5x the peer's tokens/s, decoding >= 10x its sentences/s, the CPU's BLEU after the same steps."
echo "report: $report"
exit $failed

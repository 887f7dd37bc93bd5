# The decoder's GEMM kernels alone on one core, against the core's own rates for
# their instructions (bench/kernels.c): how far each kernel is from what the core
# can do. Sourced by bench/run, or alone: bash bench/kernels.sh (NMT_KERNELS as in
# bench/decode.sh: the int8 and float32 panels do not use OpenBLAS, so one table
# per kernel shows only the run-to-run spread).
cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1 2>/dev/null || exit 1
. bench/multi30k.bash

kernels_bench() {
  mkdir -p "$BENCH_DIR"
  cc -O2 -Ilib -o "$BENCH_DIR/kernels" bench/kernels.c build/libnmt.a -lopenblas -lm -lpthread || return 1
  echo
  echo "GEMM kernels alone, one core, the output layer's shape (K 512, N 5012), medians of 7," \
    "$(cores); load $(cut -d' ' -f1-3 /proc/loadavg)"
  "$BENCH_DIR/kernels"
}
for_kernels kernels_bench

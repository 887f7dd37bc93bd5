/* What the benches' figures ran on, as the environment selects it: nmt's GEMM
 * engine, its vector-math width, OpenBLAS's core type (OPENBLAS_CORETYPE or the
 * CPU's own) and the CPU (vendor, family, model, features); `cores cpu`: the
 * CPU alone. Built against build/libnmt.a by bench/multi30k.bash. */
#include "nn/gemm_path.h"
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
  puts(argc > 1 && !strcmp(argv[1], "cpu") ? nn_cpu_line() : nn_gemm_path_line());
  return 0;
}

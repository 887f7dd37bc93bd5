/* The OpenBLAS core type this environment selects (OPENBLAS_CORETYPE or the CPU's own):
 * the benches print it beside their figures. Built by bench/multi30k.bash. */
#include <cblas.h>
#include <stdio.h>

int main(void) {
  puts(openblas_get_corename());
  return 0;
}

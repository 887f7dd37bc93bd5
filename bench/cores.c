/* What the benches' figures ran on, as the environment selects it: the OpenBLAS core
 * type (OPENBLAS_CORETYPE or the CPU's own) and nmt's vector-math width (NMT_ISA or
 * the widest the core has). Built against build/libnmt.a by bench/multi30k.bash. */
#include "nn/vmath.h"
#include <cblas.h>
#include <stdio.h>

int main(void) {
  const nn_vmath *v = nn_vmath_used();
  printf("OpenBLAS core %s, vector math %s (%d lanes)\n", openblas_get_corename(), v->name, v->lanes);
  return 0;
}

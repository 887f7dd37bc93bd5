/* The beam search's candidates on the CPU (nn/kernels.def, topk_rows): an
 * insertion into a sorted list of k2, which keeps the earlier of equal scores. */
#include "nn/kernels.h"
#include <math.h>

void nn_topk_rows(float *score, int *index, const float *logp, const float *base, int n, int K, int V,
                  int skip, int k2) {
  for (int b = 0; b < n; b++) {
    float *s = score + (size_t)b * k2;
    int *ix = index + (size_t)b * k2, have = 0;
    for (int k = 0; k < K; k++) {
      size_t r = (size_t)b * K + k;
      if (base[r] == -INFINITY) continue;
      for (int v = 0; v < V; v++) {
        float c = base[r] + logp[r * V + v];
        if (v == skip || (have == k2 && c <= s[k2 - 1])) continue;
        int i = have < k2 ? have++ : k2 - 1;
        for (; i > 0 && s[i - 1] < c; i--) s[i] = s[i - 1], ix[i] = ix[i - 1];
        s[i] = c, ix[i] = k * V + v;
      }
    }
    for (int i = have; i < k2; i++) s[i] = -INFINITY, ix[i] = -1;
  }
}

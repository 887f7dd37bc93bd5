/* The beam search's candidates on the CPU (nn/kernels.def, topk_rows): an
 * insertion into a sorted list of k2, which keeps the earlier of equal scores. */
#include "nn/kernels.h"
#include <math.h>
#include <string.h>

typedef float f8 __attribute__((vector_size(32)));
typedef int i8 __attribute__((vector_size(32)));

/* Whether any of the 8 candidates base + l[0..8) could enter a full list whose
 * last score is `last`: the scalar test's `c <= last` failing (a NaN too). Most
 * groups cannot, and one vector test passes them (the scalar loop was 3% of
 * greedy decoding at batch 64). */
static int any_enters(const float *l, float base, float last) {
  f8 c;
  memcpy(&c, l, sizeof c);
  c += base;
  i8 in = ~(c <= last);
  long long w[4];
  memcpy(w, &in, sizeof w);
  return (w[0] | w[1] | w[2] | w[3]) != 0;
}

void nn_topk_rows(float *score, int *index, const float *logp, const float *base, int n, int K, int V,
                  int skip, int k2) {
  for (int b = 0; b < n; b++) {
    float *s = score + (size_t)b * k2;
    int *ix = index + (size_t)b * k2, have = 0;
    for (int k = 0; k < K; k++) {
      size_t r = (size_t)b * K + k;
      if (base[r] == -INFINITY) continue;
      const float *l = logp + r * V;
      for (int v0 = 0; v0 < V; v0 += 8) {
        int v1 = V - v0 < 8 ? V : v0 + 8;
        if (v1 - v0 == 8 && have == k2 && !any_enters(l + v0, base[r], s[k2 - 1])) continue;
        for (int v = v0; v < v1; v++) {
          float c = base[r] + l[v];
          if (v == skip || (have == k2 && c <= s[k2 - 1])) continue;
          int i = have < k2 ? have++ : k2 - 1;
          for (; i > 0 && s[i - 1] < c; i--) s[i] = s[i - 1], ix[i] = ix[i - 1];
          s[i] = c, ix[i] = k * V + v;
        }
      }
    }
    for (int i = have; i < k2; i++) s[i] = -INFINITY, ix[i] = -1;
  }
}

/* A lexical shortlist's output layer, gathered per batch (decode/out_cols.h). */
#include "decode/out_cols.h"
#include "base/err.h"
#include "nn/kernels.h"
#include "nn/pgemm.h"
#include <stdlib.h>
#include <string.h>

/* *a holds n floats (contents not kept), 64-byte aligned for the packed panels. */
static int room(float **a, size_t *cap, size_t n) {
  if (n <= *cap) return NMT_OK;
  free(*a);
  *a = nn_big_alloc((n ? n : 1) * sizeof(float));
  *cap = *a ? n : 0;
  return *a ? NMT_OK : NMT_EIO;
}

int nmt_out_cols_gather(nmt_out_cols *c, const nn_tensor *W, const nn_tensor *b, bool transposed,
                        const int *ids, int n) {
  int H = transposed ? W->cols : W->rows, V = transposed ? W->rows : W->cols;
  if (b && room(&c->b, &c->cap_b, (size_t)n)) return nmt_fail(NMT_EIO, "out of memory: the shortlist's output layer");
  c->n = n, c->bias = b != NULL;
  for (int j = 0; b && j < n; j++) c->b[j] = b->v[ids[j]];
  c->w.rows = transposed ? n : H, c->w.cols = transposed ? H : n;
  c->w.q = NULL, c->w.pk = NULL;
  nn_qmat_free(&c->q);
  if (W->q) { /* its columns' bytes and scales as they are: the same as quantizing them alone */
    if (nn_qmat_gather(&c->q, W->q, ids, n)) return NMT_EIO;
    c->w.q = &c->q;
    return NMT_OK;
  }
  if (room(&c->w.v, &c->cap_w, (size_t)H * n)) return nmt_fail(NMT_EIO, "out of memory: the shortlist's output layer");
  float *w = c->w.v;
  if (transposed)
    for (int j = 0; j < n; j++) memcpy(w + (size_t)j * H, W->v + (size_t)ids[j] * H, sizeof(float) * H);
  else
    for (int h = 0; h < H; h++)
      for (int j = 0; j < n; j++) w[(size_t)h * n + j] = W->v[(size_t)h * V + ids[j]];
  if (W->pk) {
    if (room(&c->pk, &c->cap_pk, nn_packed_floats(H, n)))
      return nmt_fail(NMT_EIO, "out of memory: the shortlist's output layer");
    c->w.pk = nn_cpu_backend.pack_weight(c->pk, w, H, n, false);
  }
  return NMT_OK;
}

void nmt_out_cols_free(nmt_out_cols *c) {
  free(c->w.v), free(c->b), free(c->pk);
  nn_qmat_free(&c->q);
  *c = (nmt_out_cols){0};
}

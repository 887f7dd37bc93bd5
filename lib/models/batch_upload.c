/* A batch in the graph's backend memory (models/batch.h). */
#include "models/batch.h"
#include <string.h>

bool nmt_batch_upload(nn_graph *g, const nmt_batch *b, nmt_batch *dev) {
  if (g->be->host) { /* the host's memory is the backend's: nothing to copy */
    *dev = *b;
    memset(&dev->own, 0, sizeof dev->own); /* b keeps owning its arrays */
    return !g->failed;
  }
  size_t S = (size_t)b->S * b->B, T = (size_t)b->T * b->B;
  *dev = (nmt_batch){.B = b->B, .S = b->S, .T = b->T, .words = b->words};
  dev->src = nn_ints(g, S, b->src);
  dev->src_len = nn_ints(g, (size_t)b->B, b->src_len);
  dev->tgt_in = nn_ints(g, T, b->tgt_in);
  dev->tgt_out = nn_ints(g, T, b->tgt_out);
  dev->tgt_len = nn_ints(g, (size_t)b->B, b->tgt_len);
  dev->src_mask = nn_floats(g, S, b->src_mask);
  dev->src_rows = nn_floats(g, S, b->src_rows);
  dev->tgt_mask = nn_floats(g, T, b->tgt_mask);
  dev->tgt_rows = nn_floats(g, T, b->tgt_rows);
  return !g->failed;
}

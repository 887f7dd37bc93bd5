/* What the families build from (models/luong.c, srnmt.c, ...): the check of their
 * cells, parameter views, the embeddings and the output layer, the rows of a loss, a
 * reversed source, and a decoder step's live rows. The interface they implement is
 * models/net.h. */
#ifndef NMT_MODELS_PARTS_H
#define NMT_MODELS_PARTS_H
#include "models/net.h"

/* NMT_OK, or NMT_EUSAGE when the encoder or decoder cell is not among `cells`, the
 * bit set of the enum nmt_cell values the family has (0: the LSTM alone). Which
 * options a family accepts is the option table's (models/options.def), checked
 * by nmt_net_layout. */
int nmt_net_cells(const nmt_net_cfg *c, unsigned cells);
/* Declare view `name` (rows, cols) into *index; a failure sets *status. */
void nmt_net_add(nn_params *p, int *status, int *index, const char *name, int rows, int cols);
/* The source and target embedding tables "enc.emb" (V_s, E) and "dec.emb"
 * (V_t, E), marked as lookup tables (no int8 copy, also when tied); with
 * --tied-embeddings-all one table "emb" for both (V_s = V_t). */
void nmt_net_add_embeddings(nn_params *p, int *status, int *src, int *tgt, const nmt_net_cfg *c);
/* The output layer over inputs of size `in`: "out.W" (in, Vt) into *out_w and
 * "out.b" (1, Vt); tied, *out_w is the target embedding tgt_emb, which needs
 * in = E (a failure sets *status with the message). */
void nmt_net_add_output(nn_params *p, int *status, int *out_w, int *out_b, int in, int tgt_emb,
                       const nmt_net_cfg *c);
/* logits (R, Vt) = x (R, in)·W + b, W the output view: out.W (in, Vt), or
 * when `tied` the target embedding (Vt, in) transposed. */
nn_tensor *nmt_net_logits(nn_graph *g, nn_tensor *x, nn_tensor *W, nn_tensor *b, bool tied);
/* The rows of a time-major (S*B) sequence with each sentence's first len[b]
 * steps reversed and its padding left in place (its own inverse): a backward
 * direction is a forward run over these rows. len and the result in host
 * memory (nn_alloc; nn_ints copies it for an op); NULL with the graph failed
 * on a length outside 1..S. */
int *nmt_net_reversal(nn_graph *g, const int *len, int S, int B);
/* The rows of a loss: where targets (n_all, host memory) is not m's pad, in
 * order, and their targets, both in the backend's memory for the ops. n 0
 * with the graph failed ("FAMILY: a batch without target tokens") when none. */
typedef struct {
  const int *rows, *ids;
  int n;
} nmt_targets;
nmt_targets nmt_net_targets(nn_graph *g, const nmt_net *m, const int *targets, int n_all);
/* Step inputs for the live rows: x (n, F) → (R, F) with the other rows zero,
 * and back (inference only: no gradient). */
nn_tensor *nmt_dec_scatter(nn_graph *g, const nmt_dec_ctx *ctx, nn_tensor *x);
nn_tensor *nmt_dec_gather(nn_graph *g, const nmt_dec_ctx *ctx, nn_tensor *x);

#endif

/* The batch every family reads: lengths and masks by one rule, the same the
 * decoder's start uses, and the shared encoder stack. */
#include "base/err.h"
#include "decode/net.h"
#include "models/encoder.h"
#include "test.h"
#include "models/model_case.h"

/* Masks from lengths: 1 before the length, time-major and sentence-major alike. */
TEST(batch_masks_one_rule) {
  int len[3] = {4, 1, 3};
  float steps[4 * 3], rows[3 * 4];
  nmt_seq_masks(len, 4, 3, steps, rows);
  for (int b = 0; b < 3; b++)
    for (int t = 0; t < 4; t++) {
      CHECK(steps[t * 3 + b] == (t < len[b]));
      CHECK(rows[b * 4 + t] == (t < len[b]));
    }
}

/* A batch of given ids gets its target lengths up to the first pad, and masks
 * that agree with the ids; the copy batch's sources are of lengths 4, 2, 3. */
TEST(batch_masks_from_ids) {
  nmt_batch b = {3, 4, 5, copy_src, copy_src_len, copy_tgt_in, copy_tgt_out};
  CHECK_INT(nmt_batch_masks(&b), NMT_OK);
  for (int i = 0; i < 3; i++) {
    int n = 0;
    while (n < 5 && copy_tgt_out[n * 3 + i] != NMT_PAD) n++;
    CHECK_INT(b.tgt_len[i], n);
  }
  for (int i = 0; i < 4 * 3; i++) CHECK(b.src_mask[i] == (copy_src[i] != NMT_PAD));
  for (int i = 0; i < 5 * 3; i++) CHECK(b.tgt_mask[i] == (copy_tgt_out[i] != NMT_PAD));
  nmt_batch_free(&b);
}

/* The encoder stack: a 2-layer bidirectional encoder runs each layer once per
 * direction, the backward one over each sentence's reversed rows. */
typedef struct {
  int calls[2][2]; /* [layer][direction] */
  float first_bw[3];
} stack_log;

static stack_log lg;

static nn_tensor *log_layer(nn_graph *g, const nmt_net *m, nn_params *p, int l, int dir, nn_tensor *X,
                            const float *mask, int S, nn_tensor **fin) {
  lg.calls[l][dir]++;
  if (l == 0 && dir == 1)
    for (int b = 0; b < 3; b++) lg.first_bw[b] = X->v[b * X->cols]; /* step 0 of each sentence */
  fin[0] = nn_rows(g, X, (S - 1) * (X->rows / S), X->rows / S);
  return X;
}

TEST(encoder_stack_directions) {
  nmt_net m = {.cfg = {.emb = 1, .enc_layers = 2, .enc_type = NMT_ENC_BI_UNI}};
  CHECK_INT(nmt_enc_bi_layers(&m.cfg), 1);
  m.cfg.enc_type = NMT_ENC_BI;
  CHECK_INT(nmt_enc_bi_layers(&m.cfg), 2);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  float table[7];
  for (int v = 0; v < 7; v++) table[v] = (float)v; /* the embedding of id v is v */
  nn_tensor *E = nn_input(&g, 7, 1, table);
  nn_tensor *fin0[2], **fin[NMT_ENC_MAX_FINALS] = {fin0};
  nn_tensor *top = nmt_encode_stack(&g, &m, NULL, E, copy_src, copy_src_len, 4, 3, NULL, log_layer, 1, fin);
  CHECK(top != NULL);
  CHECK(lg.calls[0][0] == 1 && lg.calls[0][1] == 1 && lg.calls[1][0] == 1 && lg.calls[1][1] == 1);
  for (int b = 0; b < 3; b++) /* the backward direction starts at each sentence's last token (</s>) */
    CHECK(lg.first_bw[b] == (float)copy_src[(copy_src_len[b] - 1) * 3 + b]);
  nn_graph_free(&g);
}

/* Forced scores: the log-probabilities the training loss is made of, the same
 * alone and in a batch, the word scores summing to the sentence's. */
#include "decode/score.h"
#include "decode/decode_case.h"
#include "base/err.h"
#include "models/model.h"
#include "test.h"

enum { NP = 3 };

static void tiny_model(nmt_model *m, const char *type) {
  nmt_model_opts o;
  nmt_model_opts_defaults(&o);
  o.type = type, o.dim_emb = 5, o.dim_rnn = 8, o.attention = type ? "mlp" : "general";
  decode_model(m, &o, 11); /* decode/decode_case.h: its vocabulary, U(±0.5) */
}

/* Three pairs (ids 4..8 are words), the third target empty. */
static const int s0[] = {4, 5, 6}, s1[] = {7}, s2[] = {8, 4};
static const int t0[] = {5, 6, 7, 8}, t1[] = {4}, t2[] = {0};
static const int *const src[NP] = {s0, s1, s2}, *const tgt[NP] = {t0, t1, t2};
static const int src_n[NP] = {3, 1, 2}, tgt_n[NP] = {4, 1, 0};

/* The training loss of the same pairs (no dropout, no smoothing): Σ -log p. */
static double training_nll(nmt_model *m) {
  int S = 4, T = 5, src_len[NP], x[4 * NP], in[5 * NP], out[5 * NP];
  for (int b = 0; b < NP; b++) {
    src_len[b] = src_n[b] + 1;
    for (int s = 0; s < S; s++) x[s * NP + b] = s < src_n[b] ? src[b][s] : s == src_n[b] ? NMT_EOS : NMT_PAD;
    for (int t = 0; t < T; t++) {
      in[t * NP + b] = !t ? NMT_BOS : t <= tgt_n[b] ? tgt[b][t - 1] : NMT_PAD;
      out[t * NP + b] = t < tgt_n[b] ? tgt[b][t] : t == tgt_n[b] ? NMT_EOS : NMT_PAD;
    }
  }
  nmt_batch b = {NP, S, T, x, src_len, in, out};
  int tgt_len[NP];
  float masks[2 * (4 + 5) * NP];
  nmt_batch_set_masks(&b, tgt_len, masks);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  long ntok;
  nn_tensor *loss = nmt_net_forward(&g, &m->net, &m->params, &b, &ntok);
  double l = loss ? loss->v[0] : NAN;
  nn_graph_free(&g);
  return l;
}

TEST(score_equals_training_loss) {
  const char *types[] = {NULL, "rnnsearch", "srnmt"};
  for (int k = 0; k < 3; k++) {
    nmt_model m;
    tiny_model(&m, types[k]);
    nmt_dec d = {0};
    double lp[NP], alone;
    float w0[5], w1[2], w2[1], *word[NP] = {w0, w1, w2};
    CHECK_INT(nmt_score(&d, NMT_ONE_MODEL(&m.net, &m.params), src, src_n, tgt, tgt_n, NP, lp, word), NMT_OK);
    CHECK_NEAR(-(lp[0] + lp[1] + lp[2]), training_nll(&m), 1e-4 * fabs(training_nll(&m)));
    for (int r = 0; r < NP; r++) {
      double sum = 0;
      for (int t = 0; t <= tgt_n[r]; t++) sum += word[r][t];
      CHECK_NEAR(sum, lp[r], 1e-5);
      CHECK(lp[r] < 0);
      CHECK_INT(nmt_score(&d, NMT_ONE_MODEL(&m.net, &m.params), src + r, src_n + r, tgt + r, tgt_n + r, 1, &alone, NULL), NMT_OK);
      CHECK_NEAR(alone, lp[r], 1e-5); /* the same alone as in the batch */
    }
    nmt_dec_free(&d);
    nmt_model_free(&m);
  }
}

/* Tied embeddings: the decoder multiplies by the target embedding transposed, as
 * training does, so forced scores still equal the training loss. */
TEST(score_equals_training_loss_tied) {
  for (int tie = 0; tie < 2; tie++) {
    nmt_model_opts o;
    nmt_model_opts_defaults(&o);
    o.dim_emb = o.dim_rnn = 8, o.tied_embeddings = !tie, o.tied_embeddings_all = tie;
    nmt_model m;
    decode_model(&m, &o, 11);
    nmt_dec d = {0};
    double lp[NP];
    CHECK_INT(nmt_score(&d, NMT_ONE_MODEL(&m.net, &m.params), src, src_n, tgt, tgt_n, NP, lp, NULL), NMT_OK);
    CHECK_NEAR(-(lp[0] + lp[1] + lp[2]), training_nll(&m), 1e-4 * fabs(training_nll(&m)));
    nmt_dec_free(&d);
    nmt_model_free(&m);
  }
}

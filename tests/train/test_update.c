/* The data-parallel gradient of an update (lib/train/update.c): each part of a batch draws its
 * own dropout masks. */
#include "base/err.h"
#include "models/model.h"
#include "nn/optim.h"
#include "test.h"
#include "train/update.h"
#include <stdlib.h>

enum { PAIRS = 8 }; /* one part's sentences: train_step's MIN_SENTENCES */

/* PAIRS pairs of 1..4 tokens over the words a b c (ids 4..6). */
static void tiny_corpus(nmt_corpus *c) {
  static int src[4 * PAIRS], tgt[4 * PAIRS];
  static long src_off[PAIRS + 1], tgt_off[PAIRS + 1];
  for (int i = 0; i < PAIRS; i++) {
    int ns = 1 + i % 4, nt = 1 + (i * 3) % 4;
    src_off[i + 1] = src_off[i] + ns, tgt_off[i + 1] = tgt_off[i] + nt;
    for (int k = 0; k < ns; k++) src[src_off[i] + k] = 4 + (i + k) % 3;
    for (int k = 0; k < nt; k++) tgt[tgt_off[i] + k] = 4 + (i * 2 + k) % 3;
  }
  *c = (nmt_corpus){.src = src, .tgt = tgt, .src_off = src_off, .tgt_off = tgt_off, .n = PAIRS};
}

static void tiny_model(nmt_model *m, float dropout) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  nmt_model_opts o = {.dim_emb = 6, .dim_rnn = 8, .enc_depth = 1, .dec_depth = 1,
                      .attention = "general", .input_feed = true, .dropout = dropout};
  CHECK_INT(nmt_model_create(m, &o, vs, vt, 3), NMT_OK);
}

/* The gradient of pairs[0..n) at step 5 on `workers` workers in `delay` passes into g (params.n). */
static double step_grad_delayed(nmt_model *m, const nmt_corpus *c, const long *pairs, int n, int workers,
                                int delay, float *g) {
  nmt_updater s;
  double loss;
  long ntok;
  CHECK_INT(nmt_updater_init(&s, workers, m->params.n), NMT_OK);
  s.delay = delay;
  CHECK_INT(nmt_update_gradient(&s, c, pairs, n, &m->net, &m->params, 11, 5, &loss, &ntok), NMT_OK);
  /* a sum of parts' buffers gives the norm its chunk sums: the bits of a pass over the sum */
  double norm;
  CHECK(s.summed == (workers > 1 && n / (delay * workers) >= NMT_MIN_PART));
  CHECK_INT(nmt_update_clip(&s, &m->params, loss, 0, &norm), NMT_OK);
  CHECK(norm > 0 && norm == nn_params_grad_norm(&m->params));
  memcpy(g, m->params.g, sizeof(float) * m->params.n);
  nmt_updater_free(&s);
  return loss;
}

static void step_grad(nmt_model *m, const nmt_corpus *c, const long *pairs, int n, int workers,
                      float *g) {
  step_grad_delayed(m, c, pairs, n, workers, 1, g);
}
/* |a - b| / |b| over n floats. */
static double rel_diff(const float *a, const float *b, size_t n) {
  double d = 0, z = 0;
  for (size_t i = 0; i < n; i++) d += (double)(a[i] - b[i]) * (a[i] - b[i]), z += (double)b[i] * b[i];
  return sqrt(d / z);
}

/* The batch A A on two workers: part 0 is A with the single-worker masks, part 1
 * the same sentences with masks of its own, so the mean gradient is A's alone
 * only without dropout. */
TEST(train_step_parts_draw_own_masks) {
  nmt_corpus c;
  tiny_corpus(&c);
  long pairs[2 * PAIRS];
  for (int i = 0; i < 2 * PAIRS; i++) pairs[i] = i % PAIRS;
  for (int drop = 0; drop < 2; drop++) {
    nmt_model m;
    tiny_model(&m, drop ? 0.3f : 0);
    float *one = malloc(sizeof(float) * m.params.n), *two = malloc(sizeof(float) * m.params.n);
    step_grad(&m, &c, pairs, PAIRS, 1, one);
    step_grad(&m, &c, pairs, 2 * PAIRS, 2, two);
    double d = rel_diff(two, one, m.params.n);
    if (drop) CHECK(d > 1e-3); /* 0 when part 1 repeated part 0's masks (about 6e-3 here) */
    else CHECK(d < 1e-6);
    free(one), free(two);
    nmt_model_free(&m);
  }
}

/* --optimizer-delay 2 on one worker runs the parts of two workers one after the
 * other (the same sentences, the same masks): the same gradient and loss but for
 * the order of the additions. */
TEST(train_step_delay_is_parts_in_sequence) {
  nmt_corpus c;
  tiny_corpus(&c);
  long pairs[2 * PAIRS];
  for (int i = 0; i < 2 * PAIRS; i++) pairs[i] = (i * 5) % PAIRS;
  nmt_model m;
  tiny_model(&m, 0.3f);
  float *two = malloc(sizeof(float) * m.params.n), *delayed = malloc(sizeof(float) * m.params.n);
  double l2 = step_grad_delayed(&m, &c, pairs, 2 * PAIRS, 2, 1, two);
  double ld = step_grad_delayed(&m, &c, pairs, 2 * PAIRS, 1, 2, delayed);
  CHECK(rel_diff(delayed, two, m.params.n) < 1e-6);
  CHECK_NEAR(ld, l2, 1e-9 * l2);
  free(two), free(delayed);
  nmt_model_free(&m);
}

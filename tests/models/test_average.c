/* Checkpoint averaging (models/average.h): a model averaged with itself is itself,
 * two give the element-wise mean, and models that differ are refused naming how. */
#include "base/err.h"
#include "models/average.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

/* A small model over a 5-word vocabulary on each side, saved to name. */
static const char *saved_model(const char *name, int dim_rnn, uint64_t seed) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\nx\n", *path = t_tmp(name);
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, text, strlen(text), "v");
  nmt_vocab_parse(&vt, text, strlen(text), "v");
  nmt_model_opts o;
  nmt_model_opts_defaults(&o);
  o.dim_emb = 6, o.dim_rnn = dim_rnn;
  nmt_model m;
  CHECK_INT(nmt_model_create(&m, &o, vs, vt, seed), NMT_OK);
  CHECK_INT(nmt_model_save(&m, path), NMT_OK);
  nmt_model_free(&m);
  return path;
}

static void average(nmt_average *avg, const char *a, const char *b) {
  *avg = (nmt_average){0};
  CHECK_INT(nmt_average_add(avg, a), NMT_OK);
  CHECK_INT(nmt_average_add(avg, b), NMT_OK);
  nmt_average_finish(avg);
}

TEST(model_average_mean_of_weights) {
  char a[512], b[512];
  snprintf(a, sizeof a, "%s", saved_model("a", 8, 1));
  snprintf(b, sizeof b, "%s", saved_model("b", 8, 2));
  nmt_model ma, mb;
  CHECK_INT(nmt_model_load(&ma, a), NMT_OK);
  CHECK_INT(nmt_model_load(&mb, b), NMT_OK);
  nmt_average self, two;
  average(&self, a, a);
  average(&two, a, b);
  CHECK(!memcmp(self.out.params.w, ma.params.w, sizeof(float) * ma.params.n));
  size_t wrong = 0;
  for (size_t i = 0; i < ma.params.n; i++)
    wrong += two.out.params.w[i] != (float)(((double)ma.params.w[i] + mb.params.w[i]) / 2);
  CHECK_INT(wrong, 0);
  CHECK(memcmp(two.out.params.w, ma.params.w, sizeof(float) * ma.params.n)); /* the seeds differ */
  nmt_average_free(&self);
  nmt_average_free(&two);
  nmt_model_free(&ma);
  nmt_model_free(&mb);
}

TEST(model_average_refuses_other_models) {
  char a[512], c[512];
  snprintf(a, sizeof a, "%s", saved_model("a", 8, 1));
  snprintf(c, sizeof c, "%s", saved_model("c", 16, 1));
  nmt_average avg = {0};
  CHECK_INT(nmt_average_add(&avg, a), NMT_OK);
  CHECK_INT(nmt_average_add(&avg, c), NMT_EINPUT);
  char want[2048];
  snprintf(want, sizeof want, "%s: differs from %s: dim-rnn=16 (%s: 8)", c, a, a);
  CHECK_STR(nmt_errmsg(), want);
  nmt_average_free(&avg);
}

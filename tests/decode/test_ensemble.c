/* Ensembles (decode/ensemble.h, decode/net.h): a model with itself is the
 * model, bit for bit; two models give the weighted sum of their
 * log-probabilities at every step, beam reordering included; a model with
 * another source vocabulary reads the same source; the loader's checks. */
#include "decode/decode_case.h"
#include "decode/ensemble.h"
#include "decode/score.h"
#include "decode/search.h"
#include "base/err.h"
#include "test.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { NS = 3 };
static const int s0[] = {4, 5, 6}, s1[] = {8}, s2[] = {7, 7, 4, 5};
static const int *const srcs[NS] = {s0, s1, s2}, lens[NS] = {3, 1, 4};

/* The models (nets[i], params[i]) weighted w[i]. */
static nmt_models ensemble(nmt_model *const *m, const float *w, int n) {
  nmt_models e = {.n = n};
  for (int i = 0; i < n; i++) e.net[i] = &m[i]->net, e.p[i] = &m[i]->params, e.weight[i] = w[i];
  return e;
}

/* Search (beam K) with e: out's hypotheses, their scores, their alignments. */
static void search(const nmt_models *e, int K, nmt_nbest *out) {
  nmt_dec d = {0};
  nmt_search_opts o = {K, 0.6f, 2.0f};
  CHECK_INT(nmt_search(&d, e, srcs, lens, NS, &o, out), NMT_OK);
  nmt_dec_free(&d);
}

TEST(decode_ensemble_of_a_model_with_itself_is_the_model) {
  for (int i = 0; i < DECODE_NVARIANTS; i++) {
    nmt_model m;
    decode_variant(&m, i, 70 + (uint64_t)i);
    nmt_model *twice[2] = {&m, &m};
    nmt_models e = ensemble(twice, (const float[]){0.5f, 0.5f}, 2);
    for (int K = 1; K <= 4; K += 3) {
      nmt_nbest one[NS], two[NS];
      search(NMT_ONE_MODEL(&m.net, &m.params), K, one);
      search(&e, K, two);
      for (int b = 0; b < NS; b++) {
        CHECK_INT(two[b].n, one[b].n);
        for (int h = 0; h < one[b].n && h < two[b].n; h++) {
          CHECK_INT(two[b].hyps[h].n, one[b].hyps[h].n);
          CHECK(!memcmp(two[b].hyps[h].ids, one[b].hyps[h].ids, sizeof(int) * (size_t)one[b].hyps[h].n));
          if (two[b].hyps[h].score != one[b].hyps[h].score)
            T_FAIL("variant %d beam %d: score %.9g, the model's %.9g", i, K, two[b].hyps[h].score,
                   one[b].hyps[h].score);
        }
        nmt_nbest_free(&one[b]), nmt_nbest_free(&two[b]);
      }
    }
    nmt_model_free(&m);
  }
}

/* Two models of other families and attention (one reading the source
 * reversed): each hypothesis's beam score is the ensemble's forced score of
 * it, so every step summed the right rows of both models' states. */
TEST(decode_ensemble_beam_scores_are_its_forced_scores) {
  nmt_model a, b;
  decode_variant(&a, 6, 81); /* luong, reversed source */
  decode_variant(&b, 12, 82); /* srnmt */
  nmt_model *ab[2] = {&a, &b};
  nmt_models e = ensemble(ab, (const float[]){0.25f, 0.75f}, 2);
  nmt_dec d = {0};
  nmt_nbest out[NS];
  nmt_search_opts o = {4, 0, 2.0f};
  CHECK_INT(nmt_search(&d, &e, srcs, lens, NS, &o, out), NMT_OK);
  int checked = 0;
  for (int s = 0; s < NS; s++)
    for (int h = 0; h < out[s].n; h++) {
      const nmt_hyp *y = &out[s].hyps[h];
      double lp;
      float word[16], *w = word;
      CHECK_INT(nmt_score(&d, &e, &srcs[s], &lens[s], (const int *const *)&y->ids, &y->n, 1, &lp, &w), NMT_OK);
      if (y->n >= 2 * (lens[s] + 1)) lp -= word[y->n]; /* cut at the limit: no </s> */
      if (fabs(lp - y->score) > 1e-4 * fabs(lp) + 1e-5) T_FAIL("sentence %d hyp %d: %.6f, forced %.6f", s, h, y->score, lp);
      checked++;
    }
  CHECK(checked >= 3 * NS);
  for (int s = 0; s < NS; s++) nmt_nbest_free(&out[s]);
  nmt_dec_free(&d);
  nmt_model_free(&a), nmt_model_free(&b);
}

/* One step: the ensemble's log-probabilities are Σ w_i log p_i, its attention
 * the models' mean in source order. */
TEST(decode_ensemble_step_mixes_the_models) {
  nmt_model a, b;
  decode_variant(&a, 6, 83); /* reversed source */
  decode_variant(&b, 1, 84);
  nmt_model *ab[2] = {&a, &b};
  nmt_models e = ensemble(ab, (const float[]){0.25f, 0.75f}, 2);
  const int src[4 * NS] = {4, 8, 7, 5, NMT_EOS, 7, 6, NMT_PAD, 4, NMT_EOS, NMT_PAD, 5}, len[NS] = {4, 2, 4};
  const int prev[NS] = {NMT_BOS, NMT_BOS, NMT_BOS};
  nmt_dec da = {0}, db = {0}, de = {0};
  nmt_step_args args = {.align = true};
  CHECK_INT(nmt_dec_start(&da, NMT_ONE_MODEL(&a.net, &a.params), src, len, NS, 4, 1), NMT_OK);
  CHECK_INT(nmt_dec_start(&db, NMT_ONE_MODEL(&b.net, &b.params), src, len, NS, 4, 1), NMT_OK);
  CHECK_INT(nmt_dec_start(&de, &e, src, len, NS, 4, 1), NMT_OK);
  CHECK_INT(nmt_dec_step(&da, prev, &args), NMT_OK);
  CHECK_INT(nmt_dec_step(&db, prev, &args), NMT_OK);
  CHECK_INT(nmt_dec_step(&de, prev, &args), NMT_OK);
  for (int i = 0; i < NS * de.V; i++) CHECK_NEAR(de.logp[i], 0.25 * da.logp[i] + 0.75 * db.logp[i], 1e-5);
  for (int i = 0; i < NS * 4; i++) CHECK_NEAR(de.align[i], 0.5 * (da.align[i] + db.align[i]), 1e-6);
  /* a model reading the source reversed attends in source order: a padded row is 0 past its </s> */
  CHECK(da.align[1 * 4 + 2] == 0 && da.align[1 * 4 + 3] == 0);
  nmt_dec_free(&da), nmt_dec_free(&db), nmt_dec_free(&de);
  nmt_model_free(&a), nmt_model_free(&b);
}

/* A copy of m whose source vocabulary lists the words backwards, its source
 * embeddings moved along: the same model under other source ids. */
static void other_source_ids(nmt_model *c, const nmt_model *m, const nmt_model_opts *o) {
  const char *fwd = "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\nd\ne\n", *back = "<pad>\n<unk>\n<s>\n</s>\ne\nd\nc\nb\na\n";
  nmt_vocab *vs, *vt;
  nmt_vocab_parse(&vs, back, strlen(back), "back");
  nmt_vocab_parse(&vt, fwd, strlen(fwd), "v");
  CHECK_INT(nmt_model_create(c, o, vs, vt, 1), NMT_OK);
  memcpy(c->params.w, m->params.w, sizeof(float) * m->params.n);
  const nn_view *emb = &c->params.views[nn_params_find(&c->params, "enc.emb")];
  for (int id = NMT_NSPECIALS; id < emb->rows; id++) /* word id → 12 - id */
    memcpy(c->params.w + emb->off + (size_t)id * emb->cols, m->params.w + emb->off + (size_t)(12 - id) * emb->cols,
           sizeof(float) * (size_t)emb->cols);
}

TEST(decode_ensemble_reads_the_source_in_each_models_ids) {
  nmt_model_opts o;
  nmt_model_opts_defaults(&o);
  o.dim_emb = 5, o.dim_rnn = 8;
  nmt_model m, c;
  decode_model(&m, &o, 85);
  other_source_ids(&c, &m, &o);
  char pm[512], pc[512];
  snprintf(pm, sizeof pm, "%s", t_tmp("m.bin"));
  snprintf(pc, sizeof pc, "%s", t_tmp("c.bin"));
  CHECK_INT(nmt_model_save(&m, pm), NMT_OK);
  CHECK_INT(nmt_model_save(&c, pc), NMT_OK);
  nmt_ensemble e;
  CHECK_INT(nmt_ensemble_load(&e, (const char *[]){pm, pc}, 2, NULL, 0), NMT_OK);
  CHECK(!e.dec.src_map[0] && e.dec.src_map[1] && e.dec.src_map[1][4] == 8 && e.dec.src_map[1][NMT_EOS] == NMT_EOS);
  nmt_nbest one[NS], two[NS];
  search(NMT_ONE_MODEL(&m.net, &m.params), 3, one);
  search(&e.dec, 3, two);
  for (int b = 0; b < NS; b++) {
    CHECK_INT(two[b].n, one[b].n);
    CHECK(two[b].hyps[0].score == one[b].hyps[0].score);
    nmt_nbest_free(&one[b]), nmt_nbest_free(&two[b]);
  }
  nmt_ensemble_free(&e);
  /* the loader's usage errors: one line each */
  CHECK_INT(nmt_ensemble_load(&e, (const char *[]){pm, pc}, 2, (const char *[]){"1"}, 1), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--weights gives 1 numbers for 2 models");
  CHECK_INT(nmt_ensemble_load(&e, (const char *[]){pm, pc}, 2, (const char *[]){"1", "-2"}, 2), NMT_EUSAGE);
  CHECK_STR(nmt_errmsg(), "--weights '-2': expected a positive number");
  CHECK_INT(nmt_ensemble_load(&e, (const char *[]){pm, pc}, 2, (const char *[]){"0.5x", "1"}, 2), NMT_EUSAGE);
  CHECK_INT(nmt_ensemble_load(&e, (const char *[]){pc, pm}, 2, (const char *[]){"3", "1"}, 2), NMT_OK);
  CHECK(e.dec.weight[0] == 0.75f && e.dec.weight[1] == 0.25f);
  nmt_ensemble_free(&e);
  /* the same size of target vocabulary, other tokens: the first that differs is named */
  nmt_model t;
  nmt_vocab *vs, *vt;
  const char *fwd = "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\nd\ne\n", *swapped = "<pad>\n<unk>\n<s>\n</s>\na\nb\nd\nc\ne\n";
  nmt_vocab_parse(&vs, fwd, strlen(fwd), "v");
  nmt_vocab_parse(&vt, swapped, strlen(swapped), "v");
  CHECK_INT(nmt_model_create(&t, &o, vs, vt, 1), NMT_OK);
  snprintf(pc, sizeof pc, "%s", t_tmp("t.bin"));
  CHECK_INT(nmt_model_save(&t, pc), NMT_OK);
  CHECK_INT(nmt_ensemble_load(&e, (const char *[]){pm, pc}, 2, NULL, 0), NMT_EUSAGE);
  CHECK(strstr(nmt_errmsg(), "t.bin: target token 6 is 'd', in ") && strstr(nmt_errmsg(), "m.bin 'c'"));
  nmt_model_free(&t);
  nmt_model_free(&m), nmt_model_free(&c);
}

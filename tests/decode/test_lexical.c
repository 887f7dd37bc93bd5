/* The lexical shortlist (decode/lexical.h): Marian's table read against a model's
 * vocabularies, a batch's target ids, and decoding with it: a table that lists every
 * word gives the unrestricted search's hypotheses and scores exactly, with float,
 * packed and int8 weights and a tied output layer. */
#include "decode/decode_case.h"
#include "decode/search.h"
#include "nn/backend.h"
#include "base/err.h"
#include "test.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { V = 9, B = 3 }; /* decode_case.h's vocabulary: the specials, then a..e (ids 4..8) */

static const char *table(const char *text) {
  const char *path = t_tmp("lex.s2t");
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static nmt_vocab *tiny_vocab(void) {
  const char *text = "<pad>\n<unk>\n<s>\n</s>\na\nb\nc\nd\ne\n";
  nmt_vocab *v;
  CHECK_INT(nmt_vocab_parse(&v, text, strlen(text), "v"), NMT_OK);
  return v;
}

/* The ids of B sentences' sources (nmt_lex_mark, nmt_lex_gather). */
static int select_ids(const nmt_lex *l, const int *const *src, const int *src_n, int nb, int at_least, int *ids) {
  memset(ids, 0, sizeof(int) * (size_t)l->ntgt);
  for (int b = 0; b < nb; b++) nmt_lex_mark(l, src[b], src_n[b], ids);
  return nmt_lex_gather(l, at_least, ids);
}

TEST(lexical_table_best_targets) {
  nmt_vocab *v = tiny_vocab();
  nmt_lex l;
  /* a: d and e tie above c (the lower id first), "x" is no word, b's one pair is pruned,
   * Marian's NULL is skipped on either side */
  const char *p = table("c a 0.5\nd a 0.9\n\ne a 0.9\nx a 1\nb b 0.2\nNULL c 0.3\nc NULL 1\na\tc  3e-1\n");
  CHECK_INT(nmt_lex_load(&l, p, v, v, 0, 2, 0.25), NMT_OK);
  int ids[V], a[] = {4}, b[] = {5}, c[] = {6, 4};
  const int *s[] = {a, b, c}, n[] = {1, 1, 2};
  CHECK_INT(select_ids(&l, s, n, 1, 0, ids), 6);
  CHECK(ids[0] == 0 && ids[3] == 3 && ids[4] == 7 && ids[5] == 8);
  CHECK_INT(select_ids(&l, s + 1, n + 1, 1, 0, ids), 4); /* the specials alone */
  CHECK_INT(select_ids(&l, s + 2, n + 2, 1, 0, ids), 7);  /* c: a; a: d, e */
  CHECK(ids[4] == 4 && ids[5] == 7 && ids[6] == 8);
  CHECK_INT(select_ids(&l, s, n, 3, 6, ids), 8);          /* at least ids 0..5 */
  nmt_lex_free(&l);
  CHECK_INT(nmt_lex_load(&l, p, v, v, 5, 1, 0), NMT_OK);   /* FIRST 5: ids 0..4 */
  CHECK_INT(select_ids(&l, s + 1, n + 1, 1, 0, ids), 6);  /* and b's c */
  CHECK(ids[4] == 4 && ids[5] == 5);
  nmt_lex_free(&l);
  nmt_vocab_free(v);
}

TEST(lexical_table_bad_lines) {
  nmt_vocab *v = tiny_vocab();
  nmt_lex l;
  const char *bad[] = {"a b 0.5\nc d\n", "a b -1\n", "a b 0.5 0.2\n", "a b nan\n", "a b 1x\n"};
  for (int i = 0; i < 5; i++) {
    const char *p = table(bad[i]);
    CHECK_INT(nmt_lex_load(&l, p, v, v, 10, 10, 0), NMT_EINPUT);
    char want[600];
    snprintf(want, sizeof want, "%s:%d: expected 'TARGET SOURCE PROBABILITY' (a number >= 0)", p, i ? 1 : 2);
    CHECK_STR(nmt_errmsg(), want);
  }
  CHECK_INT(nmt_lex_load(&l, table("a b 1\n"), v, v, 10, -1, 0), NMT_EUSAGE);
  nmt_vocab_free(v);
}

/* Every pair of words: no target left out. */
static const char *every_pair(void) {
  static char text[2048];
  int k = 0;
  for (const char *t = "abcde"; *t; t++)
    for (const char *s = "abcde"; *s; s++) k += snprintf(text + k, sizeof text - (size_t)k, "%c %c 0.5\n", *t, *s);
  return table(text);
}

/* The search's hypotheses and scores with and without the table, equal bit for bit. */
static void same_search(nmt_model *m, const nmt_lex *l, const char *what) {
  const int s0[] = {4, 5, 6}, s1[] = {8}, s2[] = {7, 7, 4, 5};
  const int *srcs[B] = {s0, s1, s2}, lens[B] = {3, 1, 4};
  nmt_nbest want[B], got[B];
  nmt_search_opts o = {3, 0.6f, 2.0f}, ol = o;
  ol.lex = l;
  nmt_dec d = {0};
  CHECK_INT(nmt_search(&d, NMT_ONE_MODEL(&m->net, &m->params), srcs, lens, B, &o, want), NMT_OK);
  CHECK_INT(nmt_search(&d, NMT_ONE_MODEL(&m->net, &m->params), srcs, lens, B, &ol, got), NMT_OK);
  for (int b = 0; b < B; b++) {
    bool same = want[b].n == got[b].n;
    for (int j = 0; same && j < want[b].n; j++)
      same = want[b].hyps[j].n == got[b].hyps[j].n && want[b].hyps[j].score == got[b].hyps[j].score &&
             !memcmp(want[b].hyps[j].ids, got[b].hyps[j].ids, sizeof(int) * (size_t)want[b].hyps[j].n);
    if (!same) T_FAIL("%s, sentence %d: the shortlist of every word changed the n-best list", what, b);
    nmt_nbest_free(&want[b]), nmt_nbest_free(&got[b]);
  }
  nmt_dec_free(&d);
}

TEST(lexical_every_word_equals_none) {
  nmt_vocab *v = tiny_vocab();
  nmt_lex l;
  CHECK_INT(nmt_lex_load(&l, every_pair(), v, v, 0, 5, 0), NMT_OK);
  for (int i = 0; i < DECODE_NVARIANTS; i += 4) {
    nmt_model m;
    decode_variant(&m, i, 90 + (uint64_t)i);
    same_search(&m, &l, "float");
    CHECK_INT(nn_params_pack(&m.params), NMT_OK);
    same_search(&m, &l, "packed");
    nmt_model_free(&m);
    decode_variant(&m, i, 90 + (uint64_t)i);
    CHECK_INT(nn_params_quantize(&m.params), NMT_OK);
    same_search(&m, &l, "int8");
    nmt_model_free(&m);
  }
  nmt_model m;
  decode_model(&m, &(nmt_model_opts){.dim_emb = 8, .dim_rnn = 8, .enc_depth = 1, .dec_depth = 1,
                                     .attention = "general", .tied_embeddings = true}, 3);
  same_search(&m, &l, "tied");
  nmt_model_free(&m);
  nmt_lex_free(&l);
  nmt_vocab_free(v);
}

/* A step restricted to some ids: the full log-probabilities renormalised over them, -inf
 * at the others. */
TEST(lexical_step_renormalises) {
  nmt_model m;
  decode_variant(&m, 1, 7);
  const int src[2 * B] = {4, 6, 8, NMT_EOS, NMT_EOS, NMT_EOS}, len[B] = {2, 2, 2}, prev[B] = {NMT_BOS, NMT_BOS, NMT_BOS};
  const int ids[] = {0, 1, 2, 3, 5, 8};
  nmt_dec full = {0}, part = {0};
  CHECK_INT(nmt_dec_start(&full, NMT_ONE_MODEL(&m.net, &m.params), src, len, B, 2, 1), NMT_OK);
  CHECK_INT(nmt_dec_step(&full, prev, NULL), NMT_OK);
  CHECK_INT(nmt_dec_start(&part, NMT_ONE_MODEL(&m.net, &m.params), src, len, B, 2, 1), NMT_OK);
  CHECK_INT(nmt_dec_restrict(&part, ids, 6), NMT_OK);
  CHECK_INT(nmt_dec_step(&part, prev, &(nmt_step_args){.shortlist = 2}), NMT_OK); /* ignored */
  for (int b = 0; b < B; b++) {
    const float *f = full.logp + b * V, *s = part.logp + b * V;
    double z = 0;
    for (int j = 0; j < 6; j++) z += exp(f[ids[j]]);
    for (int v = 0, j = 0; v < V; v++)
      if (j < 6 && ids[j] == v) {
        CHECK_NEAR(s[v], f[v] - log(z), 1e-5);
        j++;
      } else
        CHECK(s[v] == -INFINITY);
  }
  nmt_dec_free(&full), nmt_dec_free(&part);
  nmt_model_free(&m);
}

/* The search's candidates (nmt_dec_candidates) of a step that writes the shortlist's
 * columns alone (.candidates) are those of the full -inf-filled rows, for one model and
 * for an ensemble (mixed over the columns). */
static void same_candidates(const nmt_models *e) {
  enum { K = 2, R = B * K, K2 = 2 * K };
  const int src[2 * B] = {4, 6, 8, NMT_EOS, NMT_EOS, NMT_EOS}, len[B] = {2, 2, 2}, ids[] = {0, 1, 2, 3, 5, 8};
  const int prev[R] = {NMT_BOS, NMT_BOS, NMT_BOS, NMT_BOS, NMT_BOS, NMT_BOS};
  const float base[R] = {0, -INFINITY, 0, -INFINITY, -0.5f, -1.0f};
  float want_s[B * K2], got_s[B * K2];
  int want_i[B * K2], got_i[B * K2];
  nmt_dec full = {0}, part = {0};
  CHECK_INT(nmt_dec_start(&full, e, src, len, B, 2, K), NMT_OK);
  CHECK_INT(nmt_dec_restrict(&full, ids, 6), NMT_OK);
  CHECK_INT(nmt_dec_step(&full, prev, NULL), NMT_OK); /* the (R, V) rows, -inf past the shortlist */
  nn_cpu_backend.topk_rows(want_s, want_i, full.logp, base, B, K, V, NMT_PAD, K2);
  CHECK_INT(nmt_dec_start(&part, e, src, len, B, 2, K), NMT_OK);
  CHECK_INT(nmt_dec_restrict(&part, ids, 6), NMT_OK);
  CHECK_INT(nmt_dec_step(&part, prev, &(nmt_step_args){.candidates = true}), NMT_OK);
  CHECK_INT(nmt_dec_candidates(&part, base, K2, got_s, got_i), NMT_OK);
  for (int i = 0; i < B * K2; i++) {
    CHECK_INT(got_i[i], want_i[i]);
    if (want_i[i] >= 0) CHECK(got_s[i] == want_s[i]);
  }
  nmt_dec_free(&full), nmt_dec_free(&part);
}

TEST(lexical_candidates_from_the_columns_alone) {
  nmt_model a, b;
  decode_variant(&a, 1, 7);
  decode_variant(&b, 6, 8);
  same_candidates(NMT_ONE_MODEL(&a.net, &a.params));
  same_candidates(&(nmt_models){.n = 2, .net = {&a.net, &b.net}, .p = {&a.params, &b.params},
                                .weight = {0.25f, 0.75f}});
  nmt_model_free(&a), nmt_model_free(&b);
}

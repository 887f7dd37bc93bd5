/* Step-wise decoding against the training forward, beam search properties,
 * and an end-to-end train + decode run through the tools. */
#include "decode/decode_case.h"
#include "decode/search.h"
#include "base/err.h"
#include "models/model.h"
#include "test.h"
#include <stdio.h>
#include <stdlib.h>

enum { V = 9, B = 3 };

/* t_tmp recycles its answers after four calls: keep copies. */
typedef char path[512];
static void keep(path out, const char *name) { snprintf(out, sizeof(path), "%s", t_tmp(name)); }

static nmt_model_opts tiny_opts(const char *attention, bool local) {
  return (nmt_model_opts){.dim_emb = 5, .dim_rnn = 8, .enc_depth = 2, .dec_depth = 2,
                          .attention = attention, .local = local, .window = 2, .input_feed = true};
}

static void random_model(nmt_model *m, const char *attention, bool local, uint64_t seed) {
  nmt_model_opts o = tiny_opts(attention, local);
  decode_model(m, &o, seed);
}

/* -log p(tgt | src) summed over sentences, one step at a time. */
static double forced_score(nmt_model *m, const int *src, const int *src_len, int S,
                           const int *tgt_out, int T, int nb) {
  nmt_dec d = {0};
  CHECK_INT(nmt_dec_start(&d, NMT_ONE_MODEL(&m->net, &m->params), src, src_len, nb, S, 1), NMT_OK);
  int prev[B];
  double nll = 0;
  for (int b = 0; b < nb; b++) prev[b] = NMT_BOS;
  for (int t = 0; t < T; t++) {
    CHECK_INT(nmt_dec_step(&d, prev, NULL), NMT_OK);
    for (int b = 0; b < nb; b++) {
      int y = tgt_out[t * nb + b];
      if (y != NMT_PAD) nll -= d.logp[b * V + y];
      prev[b] = y == NMT_PAD ? NMT_EOS : y;
    }
  }
  nmt_dec_free(&d);
  return nll;
}

/* Three sentences, time-major: sources 4, 2, 3 tokens with </s>; targets. */
static const int fsrc[4 * B] = {4, 5, 6, 5, NMT_EOS, 7, 8, NMT_PAD, 4, 6, NMT_PAD, NMT_EOS};
static const int fsrc_len[B] = {4, 2, 4};
static const int tgt_in[4 * B] = {NMT_BOS, NMT_BOS, NMT_BOS, 5, 8, 4, 6, NMT_PAD, 7, NMT_PAD, NMT_PAD, 7};
static const int tgt_out[4 * B] = {5, 8, 4, 6, NMT_EOS, 7, NMT_EOS, NMT_PAD, 7, NMT_PAD, NMT_PAD, NMT_EOS};

/* The training loss of the forced batch. */
static double forward_loss(nmt_model *m) {
  nmt_batch batch = {B, 4, 4, fsrc, fsrc_len, tgt_in, tgt_out};
  int tgt_len[B];
  float masks[2 * (4 + 4) * B];
  nmt_batch_set_masks(&batch, tgt_len, masks);
  nn_graph g = {0};
  nn_graph_reset(&g, false, 0);
  long ntok;
  nn_tensor *loss = nmt_net_forward(&g, &m->net, &m->params, &batch, &ntok);
  CHECK(loss != NULL);
  double l = loss ? loss->v[0] : 0;
  nn_graph_free(&g);
  return l;
}

/* The Luong attention types, then the encoder and decoder variants of issue
 * 3, then the other families (docs/models.md): every decoding test runs on
 * each. A family's engineer adds its configurations at the end. */
TEST(decode_step_matches_training_forward) {
  for (int i = 0; i < DECODE_NVARIANTS; i++) {
    nmt_model m;
    decode_variant(&m, i, 11 + (uint64_t)i);
    double want = forward_loss(&m), got = forced_score(&m, fsrc, fsrc_len, 4, tgt_out, 4, B);
    if (fabs(got - want) > 1e-4 * want) T_FAIL("variant %d: step %.6f, forward %.6f", i, got, want);
    nmt_model_free(&m);
  }
}

/* int8 weights (nmt-decode --gemm-type int8) score the forced batch close to
 * float for every variant: every weight product goes through nn_gemm_weights;
 * the embedding tables get no int8 copy. */
TEST(decode_int8_tracks_float) {
  for (int i = 0; i < DECODE_NVARIANTS; i++) {
    nmt_model m;
    decode_variant(&m, i, 51 + (uint64_t)i);
    double want = forced_score(&m, fsrc, fsrc_len, 4, tgt_out, 4, B);
    CHECK_INT(nn_params_quantize(&m.params), NMT_OK);
    /* the embedding tables are only looked up: no int8 copy of them */
    CHECK(!m.params.q[nn_params_find(&m.params, "enc.emb")].w &&
          !m.params.q[nn_params_find(&m.params, "dec.emb")].w);
    double got = forced_score(&m, fsrc, fsrc_len, 4, tgt_out, 4, B);
    if (!(fabs(got - want) <= 0.003 * fabs(want)) || got == want)
      T_FAIL("variant %d: int8 %.6f, float %.6f", i, got, want);
    nmt_model_free(&m);
  }
}

/* A model saved with each variant loads with the same layout and scores the same. */
TEST(decode_variants_round_trip) {
  const char *file = t_tmp("variant.bin");
  for (int i = 0; i < DECODE_NVARIANTS; i++) {
    nmt_model m, r;
    decode_variant(&m, i, 31 + (uint64_t)i);
    CHECK_INT(nmt_model_save(&m, file), NMT_OK);
    if (nmt_model_load(&r, file) != NMT_OK) {
      T_FAIL("variant %d: %s", i, nmt_errmsg());
      nmt_model_free(&m);
      continue;
    }
    const nmt_net_cfg *a = &r.net.cfg, *b = &m.net.cfg;
    CHECK(a->enc_type == b->enc_type && a->opt.reverse_source == b->opt.reverse_source &&
          a->no_attention == b->no_attention && a->input_feed == b->input_feed &&
          a->enc_layers == b->enc_layers && a->dec_layers == b->dec_layers);
    CHECK(r.params.nviews == m.params.nviews && r.params.n == m.params.n);
    CHECK(!memcmp(r.params.w, m.params.w, sizeof(float) * m.params.n));
    CHECK(forced_score(&r, fsrc, fsrc_len, 4, tgt_out, 4, B) ==
          forced_score(&m, fsrc, fsrc_len, 4, tgt_out, 4, B));
    nmt_model_free(&r);
    nmt_model_free(&m);
  }
}

/* A model file written before enc-depth/dec-depth/enc-type/reverse-source
 * ("depth" for both, unidirectional) still loads and decodes the same. */
TEST(decode_old_config_loads) {
  const char *old = "family=luong\ndim-emb=5\ndim-rnn=8\ndepth=2\nattention=general\nlocal=0\n"
                    "window=2\ninput-feed=1\ndropout=0\nlabel-smoothing=0\n";
  path now, then;
  keep(now, "now.bin"), keep(then, "then.bin");
  nmt_model m, r;
  random_model(&m, "general", false, 41);
  CHECK_INT(nmt_model_save(&m, now), NMT_OK);
  nmt_model_file f, g = {0};
  CHECK_INT(nmt_mf_read(&f, now), NMT_OK);
  for (int i = 0; i < f.n; i++)
    if (strcmp(f.s[i].tag, "config")) CHECK_INT(nmt_mf_add(&g, f.s[i].tag, f.s[i].data, f.s[i].len), NMT_OK);
    else CHECK_INT(nmt_mf_add(&g, "config", old, strlen(old)), NMT_OK);
  CHECK_INT(nmt_mf_write(&g, then), NMT_OK);
  CHECK_INT(nmt_model_load(&r, then), NMT_OK);
  CHECK(r.net.cfg.enc_type == NMT_ENC_UNI && r.net.cfg.enc_layers == 2 && r.net.cfg.dec_layers == 2);
  CHECK(forced_score(&r, fsrc, fsrc_len, 4, tgt_out, 4, B) ==
        forced_score(&m, fsrc, fsrc_len, 4, tgt_out, 4, B));
  free(g.s);
  nmt_mf_free(&f);
  nmt_model_free(&r);
  nmt_model_free(&m);
}

/* Every n-best hypothesis carries its own forced-decoding score, best first,
 * in every variant (dead beam rows skip the LSTM: nmt_dec_step). */
TEST(decode_beam_scores_are_exact) {
  const int s0[] = {4, 5, 6}, s1[] = {8}, s2[] = {7, 7, 4, 5};
  const int *srcs[B] = {s0, s1, s2}, lens[B] = {3, 1, 4};
  for (int i = 0; i < DECODE_NVARIANTS; i++) {
    nmt_model m;
    decode_variant(&m, i, 5 + (uint64_t)i);
    nmt_dec d = {0};
    nmt_nbest out[B];
    nmt_search_opts o = {4, 0, 2.0f};
    CHECK_INT(nmt_search(&d, NMT_ONE_MODEL(&m.net, &m.params), srcs, lens, B, &o, out), NMT_OK);
    for (int b = 0; b < B; b++) {
      CHECK(out[b].n >= 1 && out[b].n <= 4);
      for (int j = 0; j < out[b].n; j++) {
        const nmt_hyp *h = &out[b].hyps[j];
        if (j) CHECK(h->score <= out[b].hyps[j - 1].score);
        CHECK(h->n <= 2 * (lens[b] + 1));
        int x[8], xl = lens[b] + 1, y[16];
        for (int t = 0; t < xl; t++) x[t] = t < lens[b] ? srcs[b][t] : NMT_EOS;
        for (int t = 0; t < h->n; t++) y[t] = h->ids[t];
        int T = h->n + (h->n < 2 * xl); /* a hypothesis cut at the limit has no </s> */
        if (h->n < 2 * xl) y[h->n] = NMT_EOS;
        double want = -forced_score(&m, x, &xl, xl, y, T, 1);
        if (fabs(want - h->score) > 1e-4 * fabs(h->score) + 1e-5)
          T_FAIL("variant %d sentence %d hyp %d: %.6f, forced %.6f", i, b, j, h->score, want);
      }
      nmt_nbest_free(&out[b]);
    }
    nmt_dec_free(&d);
    nmt_model_free(&m);
  }
}

/* Finished sentences leave the batch (nmt_dec_keep) without changing
 * the others' results: the batch equals each sentence decoded alone. */
TEST(decode_batch_equals_one_at_a_time) {
  nmt_model m;
  random_model(&m, "general", false, 6);
  const int s0[] = {4, 5, 6, 4, 5, 6}, s1[] = {8}, s2[] = {7, 7, 4, 5};
  const int *srcs[B] = {s0, s1, s2}, lens[B] = {6, 1, 4};
  nmt_dec d = {0};
  nmt_nbest all[B], one;
  nmt_search_opts o = {3, 0, 2.0f};
  CHECK_INT(nmt_search(&d, NMT_ONE_MODEL(&m.net, &m.params), srcs, lens, B, &o, all), NMT_OK);
  for (int b = 0; b < B; b++) {
    CHECK_INT(nmt_search(&d, NMT_ONE_MODEL(&m.net, &m.params), &srcs[b], &lens[b], 1, &o, &one), NMT_OK);
    CHECK(one.n == all[b].n && one.hyps[0].n == all[b].hyps[0].n);
    CHECK(!memcmp(one.hyps[0].ids, all[b].hyps[0].ids, sizeof(int) * (size_t)one.hyps[0].n));
    CHECK_NEAR(one.hyps[0].score, all[b].hyps[0].score, 1e-4 * fabs(one.hyps[0].score));
    nmt_nbest_free(&one);
    nmt_nbest_free(&all[b]);
  }
  nmt_dec_free(&d);
  nmt_model_free(&m);
}

/* A shortlist of W ids gives the full scores renormalised over ids < W, and
 * -inf beyond; never fewer than 2K ids. */
TEST(decode_shortlist_renormalises) {
  nmt_model m;
  random_model(&m, "general", false, 7);
  nmt_dec full = {0}, sl = {0};
  const int prev[B] = {NMT_BOS, NMT_BOS, NMT_BOS};
  CHECK_INT(nmt_dec_start(&full, NMT_ONE_MODEL(&m.net, &m.params), fsrc, fsrc_len, B, 4, 1), NMT_OK);
  CHECK_INT(nmt_dec_step(&full, prev, NULL), NMT_OK);
  for (int W = 2; W <= 6; W += 4) { /* 2 < 2K = 4 for beam 2: 4 ids */
    int K = W == 2 ? 2 : 1, n = W < 2 * K ? 2 * K : W, prevk[2 * B];
    for (int r = 0; r < B * K; r++) prevk[r] = NMT_BOS;
    CHECK_INT(nmt_dec_start(&sl, NMT_ONE_MODEL(&m.net, &m.params), fsrc, fsrc_len, B, 4, K), NMT_OK);
    CHECK_INT(nmt_dec_step(&sl, prevk, &(nmt_step_args){.shortlist = W}), NMT_OK);
    for (int b = 0; b < B; b++) {
      const float *f = full.logp + b * V, *s = sl.logp + b * K * V;
      double z = 0;
      for (int v = 0; v < n; v++) z += exp(f[v]);
      for (int v = 0; v < V; v++)
        if (v < n) CHECK_NEAR(s[v], f[v] - log(z), 1e-5);
        else CHECK(s[v] == -INFINITY);
    }
  }
  nmt_dec_free(&full);
  nmt_dec_free(&sl);
  nmt_model_free(&m);
}

/* Digit strings and their reversals, from a fixed LCG. */
static void reverse_corpus(const char *src, const char *tgt, int n, unsigned seed) {
  FILE *a = fopen(src, "w"), *b = fopen(tgt, "w");
  for (int i = 0; i < n; i++) {
    int len = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6, d[8];
    for (int k = 0; k < len; k++) d[k] = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 10;
    for (int k = 0; k < len; k++) fprintf(a, k ? " %d" : "%d", d[k]);
    for (int k = len - 1; k >= 0; k--) fprintf(b, k < len - 1 ? " %d" : "%d", d[k]);
    fputc('\n', a), fputc('\n', b);
  }
  fclose(a), fclose(b);
}

static double csv_loss(const char *file, bool last) {
  FILE *f = fopen(file, "r");
  char line[512];
  double loss = -1, x;
  long step, epoch, tokens;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "%ld,%ld,%ld,%lf", &step, &epoch, &tokens, &x) == 4) {
      loss = x;
      if (!last) break;
    }
  if (f) fclose(f);
  return loss;
}

TEST(decode_end_to_end_reverse) {
  path src, tgt, vsrc, vtgt, model, metrics, want, got, in;
  keep(src, "train.src"), keep(tgt, "train.tgt"), keep(vsrc, "valid.src"), keep(vtgt, "valid.tgt");
  keep(model, "m.bin"), keep(metrics, "metrics.csv"), keep(want, "want"), keep(got, "got"), keep(in, "in");
  reverse_corpus(src, tgt, 1000, 1);
  reverse_corpus(vsrc, vtgt, 20, 2);
  CHECK_INT(t_sh("nmt-train --train-sets %s %s --valid-sets %s %s -m %s --dim-emb 16 --dim-rnn 32 "
                 "--mini-batch 32 --learn-rate 0.01 --after-batches 700 --valid-freq 350 "
                 "--log-freq 50 --cpu-threads 1 --metrics %s 2>/dev/null",
                 src, tgt, vsrc, vtgt, model, metrics), 0);
  double first = csv_loss(metrics, false), last = csv_loss(metrics, true);
  if (!(first > 1.5 && last < 0.1)) T_FAIL("loss %g -> %g: did not learn", first, last);
  /* greedy decodes are exact; beam 3 keeps one line per input line, empty ones too */
  CHECK_INT(t_sh("head -8 %s > %s && head -8 %s > %s", vsrc, in, vtgt, want), 0);
  CHECK_INT(t_sh("nmt-decode -m %s -b 1 -i %s > %s", model, in, got), 0);
  CHECK_SAME_FILE(got, want);
  CHECK_INT(t_sh("(echo; head -3 %s; echo; echo '7 zz 1'; echo) | nmt-decode -m %s -b 3 > %s", vsrc, model, got), 0);
  CHECK_INT(t_sh("test $(wc -l < %s) = 7 && sed -n 1p %s | grep -qx '' && sed -n 5p %s | grep -qx '' "
                 "&& sed -n 7p %s | grep -qx ''", got, got, got, got), 0);
  CHECK_INT(t_sh("head -3 %s > %s.3 && sed -n 2,4p %s | cmp -s - %s.3", want, want, got, want), 0);
  /* Marian's n-best format: i ||| hypothesis ||| F0= score ||| score */
  CHECK_INT(t_sh("nmt-decode -m %s -b 3 --n-best -i %s | awk -F' [|][|][|] ' 'NF != 4 || $3 != \"F0= \" $4 {exit 1}'", model, in), 0);
}

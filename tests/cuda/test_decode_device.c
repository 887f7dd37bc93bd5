/* Decoding on the CUDA backend against the CPU: every decoder variant of
 * tests/decode/decode_case.h, and rnnsearch and deep-att, translated with
 * beam 3 (reordering and dropping finished sentences), alignments and a
 * shortlist, from parameters copied to the device. The hypotheses are the
 * CPU's and their scores within 1e-4; on the emulator every kernel is given
 * device memory only and guard mode fences it from the host. */
#include "base/err.h"
#include "cuda/gpu_case.h"
#include "decode/decode_case.h"
#include "decode/search.h"
#include "nn/cuda/nn_cuda.h"
#include "test.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

enum { NB = 3 };
static const int s0[] = {4, 5, 6, 7}, s1[] = {8, 4}, s2[] = {5, 5, 6, 8, 7, 4};
static const int *const srcs[NB] = {s0, s1, s2};
static const int src_n[NB] = {4, 2, 6};

static bool translate(const nmt_model *m, nn_params *p, int beam, int shortlist, nmt_nbest *out) {
  nmt_dec d = {0};
  nmt_search_opts o = {beam, 0.6f, 2.0f, shortlist};
  int st = nmt_search(&d, NMT_ONE_MODEL(&m->net, p), srcs, src_n, NB, &o, out);
  if (st) T_FAIL("%s: %s", p->be ? p->be->name : "cpu", nmt_errmsg());
  nmt_dec_free(&d);
  return !st;
}

static void same_translations(const char *what, const nmt_model *m, int beam, int shortlist) {
  nn_params d;
  nmt_nbest cpu[NB] = {0}, gpu[NB] = {0};
  if (nn_params_upload(&d, &m->params, &nn_cuda_backend)) {
    T_FAIL("upload: %s", nmt_errmsg());
    return;
  }
  if (translate(m, (nn_params *)&m->params, beam, shortlist, cpu) && translate(m, &d, beam, shortlist, gpu))
    for (int b = 0; b < NB; b++) {
      bool same = cpu[b].n == gpu[b].n;
      for (int h = 0; same && h < cpu[b].n; h++) {
        const nmt_hyp *x = &cpu[b].hyps[h], *y = &gpu[b].hyps[h];
        same = x->n == y->n && !memcmp(x->ids, y->ids, sizeof *x->ids * (size_t)x->n) &&
               fabsf(x->score - y->score) <= 1e-4f * fmaxf(1, fabsf(x->score));
      }
      if (!same) T_FAIL("%s, beam %d: sentence %d translated otherwise on the device", what, beam, b);
    }
  for (int b = 0; b < NB; b++) nmt_nbest_free(&cpu[b]), nmt_nbest_free(&gpu[b]);
  nn_params_free(&d);
}

TEST(gpu_decode_variants) {
  NEED_GPU();
  for (int i = 0; i < DECODE_NVARIANTS; i++) {
    nmt_model m;
    decode_variant(&m, i, 40 + i);
    char what[32];
    snprintf(what, sizeof what, "variant %d", i);
    same_translations(what, &m, 1, 0);
    same_translations(what, &m, 3, i % 2 ? 6 : 0);
    nmt_model_free(&m);
  }
}

TEST(gpu_decode_rnnsearch_deep) {
  NEED_GPU();
  static const nmt_model_opts opts[] = {
      {.type = "rnnsearch", .dim_emb = 5, .dim_rnn = 8, .enc_depth = 1, .dec_depth = 1, .enc_cell = "gru", .dec_cell = "gru"},
      {.type = "rnnsearch", .dim_emb = 5, .dim_rnn = 8, .enc_depth = 1, .dec_depth = 1, .enc_cell = "atr", .dec_cell = "atr",
       .context_aware = true},
      {.type = "deep-att", .dim_emb = 5, .dim_rnn = 8, .enc_depth = 2, .dec_depth = 2, .fast_forward = true, .peephole = true},
      {.type = "deep-ed", .dim_emb = 5, .dim_rnn = 8, .enc_depth = 2, .dec_depth = 2, .fast_forward = true, .peephole = true,
       .attention = "none"},
  };
  for (int i = 0; i < 4; i++) {
    nmt_model_opts o;
    nmt_model_opts_defaults(&o);
    o.type = opts[i].type, o.dim_emb = opts[i].dim_emb, o.dim_rnn = opts[i].dim_rnn;
    o.enc_depth = opts[i].enc_depth, o.dec_depth = opts[i].dec_depth;
    o.enc_cell = opts[i].enc_cell, o.dec_cell = opts[i].dec_cell, o.context_aware = opts[i].context_aware;
    o.fast_forward = opts[i].fast_forward, o.peephole = opts[i].peephole;
    if (opts[i].attention) o.attention = opts[i].attention;
    nmt_model m;
    decode_model(&m, &o, 60 + i);
    same_translations(o.type, &m, 3, 0);
    nmt_model_free(&m);
  }
}

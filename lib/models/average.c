/* Checkpoint averaging; see models/average.h. */
#include "models/average.h"
#include "base/err.h"
#include <stdlib.h>
#include <string.h>

int nmt_model_compare(const nmt_model *a, const char *a_path, const nmt_model *b, const char *b_path) {
  for (int i = 0; i < nmt_noptions; i++) {
    char va[64], vb[64];
    nmt_option_text(&nmt_options[i], &a->opts, va, sizeof va);
    nmt_option_text(&nmt_options[i], &b->opts, vb, sizeof vb);
    if (strcmp(va, vb))
      return nmt_fail(NMT_EINPUT, "%s: differs from %s: %s=%s (%s: %s)", b_path, a_path, nmt_options[i].key, vb,
                      a_path, va);
  }
  const char *what = !nmt_vocab_equal(a->src, b->src)   ? "the source vocabulary"
                     : !nmt_vocab_equal(a->tgt, b->tgt) ? "the target vocabulary"
                                                        : NULL;
  if (!what && (a->bpe_len != b->bpe_len || (a->bpe_len && memcmp(a->bpe_codes, b->bpe_codes, a->bpe_len))))
    what = "the BPE codes";
  for (int i = 0; i < 2 && !what; i++)
    if (a->spm_len[i] != b->spm_len[i] || (a->spm[i] && memcmp(a->spm[i], b->spm[i], a->spm_len[i])))
      what = i ? "the target's SentencePiece model" : "the source's SentencePiece model";
  const nmt_tok_settings *x = &a->tok, *y = &b->tok;
  if (!what && (strcmp(x->src_lang, y->src_lang) || strcmp(x->tgt_lang, y->tgt_lang) ||
                x->aggressive != y->aggressive || x->escape != y->escape || x->normalize != y->normalize))
    what = "the tokenizer settings";
  return what ? nmt_fail(NMT_EINPUT, "%s: differs from %s: %s", b_path, a_path, what) : NMT_OK;
}

int nmt_average_add(nmt_average *avg, const char *path) {
  nmt_model m;
  int st = nmt_model_load(avg->n ? &m : &avg->out, path);
  if (st) return st;
  if (!avg->n) {
    avg->first = path;
    avg->sum = calloc(avg->out.params.n ? avg->out.params.n : 1, sizeof *avg->sum);
    if (!avg->sum) {
      nmt_model_free(&avg->out);
      return nmt_fail(NMT_EIO, "out of memory: %zu parameters", avg->out.params.n);
    }
  }
  const nmt_model *in = avg->n ? &m : &avg->out;
  if (avg->n && (st = nmt_model_compare(&avg->out, avg->first, &m, path))) {
    nmt_model_free(&m);
    return st;
  }
  for (size_t i = 0; i < in->params.n; i++) avg->sum[i] += in->params.w[i];
  if (avg->n) nmt_model_free(&m);
  avg->n++;
  return NMT_OK;
}

void nmt_average_finish(nmt_average *avg) {
  for (size_t i = 0; avg->n && i < avg->out.params.n; i++) avg->out.params.w[i] = (float)(avg->sum[i] / avg->n);
}

void nmt_average_free(nmt_average *avg) {
  if (avg->n) nmt_model_free(&avg->out);
  free(avg->sum);
  *avg = (nmt_average){0};
}

/* nmt-model info M: what a model file holds, as key=value and table lines. */
#include "base/cli.h"
#include "base/err.h"
#include "models/model.h"
#include "model_tool.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>

static void print_info(const nmt_model *m) {
  printf("# options\n");
  for (int i = 0; i < nmt_noptions; i++) {
    char val[64];
    nmt_option_text(&nmt_options[i], &m->opts, val, sizeof val);
    printf("%s=%s\n", nmt_options[i].key, val);
  }
  if (m->tok.src_lang[0])
    printf("src-lang=%s\ntgt-lang=%s\ntok-aggressive=%d\ntok-escape=%d\ntok-normalize=%d\n", m->tok.src_lang,
           m->tok.tgt_lang, m->tok.aggressive, m->tok.escape, m->tok.normalize);
  printf("# vocabularies and codes\nsrc-vocab=%d\ntgt-vocab=%d\nbpe-codes=%zu bytes\n", nmt_vocab_size(m->src),
         nmt_vocab_size(m->tgt), m->bpe_len);
  if (m->spm[0]) printf("src-spm=%zu bytes\ntgt-spm=%zu bytes\n", m->spm_len[0], m->spm_len[1]);
  printf("# tensors: name rows cols parameters\n");
  size_t total = 0;
  for (int i = 0; i < m->params.nviews; i++) {
    const nn_view *v = &m->params.views[i];
    size_t n = (size_t)v->rows * (size_t)v->cols;
    printf("%s %d %d %zu\n", v->name, v->rows, v->cols, n);
    total += n;
  }
  printf("parameters=%zu\n", total);
}

int cmd_info(int argc, char **argv) {
  nmt_strlist pos;
  const nmt_opt opts[] = {{0}};
  const nmt_cli cli = {PROG " info", "MODEL",
                       "The model's options (the model file's keys), tokenizer settings, vocabulary sizes, the\n"
                       "sizes of its BPE codes and SentencePiece models, and each tensor's shape and parameter\n"
                       "count, then the total.",
                       PROG " info m.bin", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n != 1) st = nmt_fail(NMT_EUSAGE, "info takes one model file (got %d)", pos.n);
  nmt_model m;
  if (!st) st = nmt_model_load(&m, pos.v[0]);
  if (st) nmt_die(PROG, st);
  print_info(&m);
  nmt_model_free(&m);
  free(pos.v);
  if (fflush(stdout) || ferror(stdout)) nmt_die(PROG, nmt_fail(NMT_EIO, "cannot write the output"));
  return 0;
}

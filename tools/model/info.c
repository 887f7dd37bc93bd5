/* nmt-model info M: what a model file holds, as key=value and table lines. */
#include "base/cli.h"
#include "base/err.h"
#include "models/model.h"
#include "model_tool.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* A checksum of every section but the training record: two models with the same
 * checksum are the same model, however they were trained (a resumed run, -c or flags). */
static uint64_t content_hash(const nmt_model_file *f) {
  uint64_t h = NMT_FNV_INIT;
  for (int i = 0; i < f->n; i++) {
    const nmt_section *s = &f->s[i];
    if (!strcmp(s->tag, "origin") || !strcmp(s->tag, "traincfg")) continue;
    h = nmt_fnv1a(h, s->tag, strlen(s->tag) + 1);
    h = nmt_fnv1a(h, &s->len, sizeof s->len);
    h = nmt_fnv1a(h, s->data, s->len);
  }
  return h;
}

/* How the model was trained, as nmt-train recorded it, and the content's checksum. */
static void print_training(const nmt_model *m, const nmt_model_file *f) {
  printf("# training\n%s", m->origin ? m->origin : "version=unknown\ncommit=unknown\ncommand=unknown\n");
  printf("content-fnv1a=%016llx\n", (unsigned long long)content_hash(f));
  printf("# training options (nmt-train -c)\n%s", m->train_config ? m->train_config : "");
}

int cmd_info(int argc, char **argv) {
  nmt_strlist pos;
  bool training = false;
  const nmt_opt opts[] = {{"training", 't', NMT_OPT_FLAG, &training, NULL,
                           "first how it was trained: nmt's version and git commit, the command line,\n"
                           "                                 a checksum of the rest of the file and the options as YAML"},
                          {0}};
  const nmt_cli cli = {PROG " info", "[-t] MODEL",
                       "The model's options (the model file's keys), tokenizer settings, vocabulary sizes, the\n"
                       "sizes of its BPE codes and SentencePiece models, and each tensor's shape and parameter\n"
                       "count, then the total. With -t, first the training's record (older models: unknown).",
                       PROG " info -t m.bin", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n != 1) st = nmt_fail(NMT_EUSAGE, "info takes one model file (got %d)", pos.n);
  nmt_model_file f;
  nmt_model m;
  if (!st && !(st = nmt_mf_read(&f, pos.v[0])) && (st = nmt_model_from_file(&m, &f, pos.v[0], false))) nmt_mf_free(&f);
  if (st) nmt_die(PROG, st);
  if (training) print_training(&m, &f);
  print_info(&m);
  nmt_model_free(&m);
  nmt_mf_free(&f);
  free(pos.v);
  if (fflush(stdout) || ferror(stdout)) nmt_die(PROG, nmt_fail(NMT_EIO, "cannot write the output"));
  return 0;
}

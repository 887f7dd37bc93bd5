/* nmt-spm train (spm_train): a SentencePiece model from raw text, written as
 * PREFIX.model (the serialized model: nmt-spm encode -m and nmt-train --vocabs
 * read it) and PREFIX.vocab ("piece<TAB>score" lines in id order). */
#include "spm_tool.h"
#include "base/err.h"
#include "base/utf8.h"
#include "io/io.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The training sentences, file after file, each line checked as UTF-8. */
typedef struct {
  const nmt_strlist *inputs;
  int next_file;
  nmt_reader *r;
  long text;  /* lines with something on them, which SentencePiece trains on */
  bool failed; /* a file could not be read, or a line is not UTF-8 */
} line_source;

static int next_sentence(void *ctx, const char **line, size_t *n) {
  line_source *s = ctx;
  for (;;) {
    if (!s->r) {
      if (s->next_file == (s->inputs->n ? s->inputs->n : 1)) return 0;
      const char *path = s->inputs->n ? s->inputs->v[s->next_file] : "-";
      s->next_file++;
      if (nmt_reader_open(&s->r, path)) return s->failed = true, -1;
    }
    char *l;
    int k = nmt_reader_next(s->r, &l, n);
    if (k == 1 && nmt_utf8_check_line(l, *n, nmt_reader_name(s->r), nmt_reader_lineno(s->r))) k = -1;
    if (k == 1) return s->text += *n > 0, *line = l, 1;
    if (k < 0) return s->failed = true, -1;
    nmt_reader_close(s->r);
    s->r = NULL;
  }
}

static int write_file(const char *prefix, const char *ext, const char *data, size_t len) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s%s", prefix, ext) >= (int)sizeof path)
    return nmt_fail(NMT_EUSAGE, "--model-prefix is too long");
  nmt_writer *w;
  int st = nmt_writer_open(&w, path, 0);
  if (!st) st = nmt_writer_write(w, data, len);
  if (w) st = st ? (nmt_writer_abort(w), st) : nmt_writer_commit(w);
  return st;
}

/* spm_train's PREFIX.vocab: a float as C++ streams print it is %g. */
static int vocab_text(const nmt_spm *s, nmt_strbuf *out) {
  for (int id = 0; id < nmt_spm_size(s); id++) {
    float score;
    const char *piece = nmt_spm_piece(s, id, &score, NULL);
    char num[32];
    int n = snprintf(num, sizeof num, "\t%g\n", score);
    if (nmt_strbuf_add(out, piece, strlen(piece)) || nmt_strbuf_add(out, num, (size_t)n))
      return nmt_fail(NMT_EIO, "out of memory");
  }
  return NMT_OK;
}

int cmd_train(int argc, char **argv) {
  const char *prefix = NULL, *type = "unigram";
  long vocab_size = 8000, threads = sysconf(_SC_NPROCESSORS_ONLN);
  double coverage = 0.9995;
  nmt_strlist inputs = {0}, pos = {0};
  const nmt_opt opts[] = {
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "raw text, one sentence a line (also as arguments; stdin when none)"},
      {"model-prefix", 'o', NMT_OPT_STR, &prefix, "PREFIX", "write PREFIX.model and PREFIX.vocab (required)"},
      {"vocab-size", 's', NMT_OPT_INT, &vocab_size, "N", "pieces in the model, <unk> <s> </s> included (8000)",
       .min = 4, .max = 10000000},
      {"model-type", 0, NMT_OPT_STR, &type, "TYPE", "unigram, bpe, char or word (unigram)"},
      {"character-coverage", 0, NMT_OPT_DOUBLE, &coverage, "F",
       "the share of characters the model covers; the rarest others are <unk> (0.9995; 0.98 to 1)", .min = 0.98,
       .max = 1},
      {"num-threads", 0, NMT_OPT_INT, &threads, "N", "training threads (the cores)", .min = 1, .max = 1024},
      {0}};
  const nmt_cli cli = {PROG " train", "--model-prefix PREFIX [options] [FILE...]",
                       "Train a SentencePiece model on raw text, as spm_train (zstd and gzip input read too).",
                       PROG " train --vocab-size 8000 --model-prefix fr train.fr\n"
                       "  cat train.fr train.en | " PROG " train -s 16000 --model-type bpe -o joint",
                       opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st) st = spm_tool_inputs(&inputs, &pos);
  if (!st && !prefix) st = nmt_fail(NMT_EUSAGE, "--model-prefix PREFIX is required (see --help)");
  if (!st && strcmp(type, "unigram") && strcmp(type, "bpe") && strcmp(type, "char") && strcmp(type, "word"))
    st = nmt_fail(NMT_EUSAGE, "--model-type must be unigram, bpe, char or word (got '%s')", type);
  line_source src = {&inputs, 0, NULL, 0, false};
  nmt_spm_train_opts o = {vocab_size, type, coverage, threads, next_sentence, &src};
  char *model = NULL;
  size_t len = 0;
  nmt_spm *spm = NULL;
  nmt_strbuf vocab = {0};
  if (!st) st = nmt_spm_train(&o, &model, &len);
  if (st == NMT_EINPUT && !src.failed && !src.text) st = nmt_fail(st, "no text to train on: the input has no sentences");
  nmt_reader_close(src.r);
  if (!st) st = nmt_spm_load(&spm, model, len, "the trained model");
  if (!st) st = vocab_text(spm, &vocab);
  if (!st) st = write_file(prefix, ".model", model, len);
  if (!st) st = write_file(prefix, ".vocab", vocab.s, vocab.len);
  if (st) nmt_die(PROG, st);
  nmt_spm_free(spm);
  free(model);
  free(vocab.s);
  free(inputs.v);
  free(pos.v);
  return 0;
}

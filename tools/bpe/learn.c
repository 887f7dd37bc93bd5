/* nmt-bpe learn and learn-joint. */
#include "text/bpe.h"
#include "bpe_tool.h"
#include "base/cli.h"
#include "base/err.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Count the words of every file (stdin when none). */
static int count_files(nmt_wordfreq *wf, const nmt_strlist *files, bool dict) {
  if (!files->n) return nmt_wordfreq_read(wf, "-", dict);
  for (int i = 0; i < files->n; i++) {
    int st = nmt_wordfreq_read(wf, files->v[i], dict);
    if (st) return st;
  }
  return NMT_OK;
}

/* Learn codes into `codes` and tell on stderr what learn_bpe.py would. */
static int learn(const nmt_wordfreq *wf, const nmt_bpe_learn_opts *o, nmt_strbuf *codes) {
  nmt_bpe_learn_info info;
  int st = nmt_bpe_learn(wf, o, codes, &info);
  if (st) return st;
  if (o->total_symbols)
    fprintf(stderr, PROG ": %ld word-internal and %ld word-final characters: %ld fewer merges\n",
            info.chars_internal, info.chars_final, info.chars_internal + info.chars_final);
  if (info.stopped)
    fprintf(stderr, PROG ": no pair has frequency >= %ld; stopped after %ld merges\n", o->min_frequency,
            info.merges);
  return NMT_OK;
}

static int write_all(const char *path, const nmt_strbuf *text, int flags) {
  nmt_writer *w;
  int st = nmt_writer_open(&w, path, flags);
  if (st) return st;
  if ((st = nmt_writer_write(w, text->s, text->len))) {
    nmt_writer_abort(w);
    return st;
  }
  return nmt_writer_commit(w);
}

int cmd_learn(int argc, char **argv) {
  nmt_bpe_learn_opts o = {.symbols = 10000, .min_frequency = 2};
  const char *out = "-";
  nmt_strlist inputs = {0}, pos;
  bool dict = false, zstd = false;
  const nmt_opt opts[] = {
      {"symbols", 's', NMT_OPT_INT, &o.symbols, "N", "merge operations to learn (10000)", .min = 0, .max = INFINITY},
      {"min-frequency", 0, NMT_OPT_INT, &o.min_frequency, "FREQ", "stop when no pair is this frequent (2)", .min = 1, .max = INFINITY},
      {"total-symbols", 't', NMT_OPT_FLAG, &o.total_symbols, NULL,
       "subtract the number of distinct characters from -s"},
      {"dict-input", 0, NMT_OPT_FLAG, &dict, NULL, "input lines are 'WORD COUNT'"},
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments; stdin when none)"},
      {"output", 'o', NMT_OPT_STR, &out, "CODES", "codes file (stdout)"},
      {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "compress the output with zstd"},
      {0}};
  const nmt_cli cli = {PROG " learn", "[options] [FILE...]",
                       "Learn BPE merges from the concatenated files, as learn_bpe.py.",
                       PROG " learn -s 8000 -o codes.joint train.tok.fr train.tok.en", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (st) nmt_die(PROG, st);
  for (int i = 0; i < pos.n; i++) { /* --input files first, then the arguments */
    inputs.v = realloc(inputs.v, sizeof *inputs.v * (size_t)(inputs.n + 1));
    inputs.v[inputs.n++] = pos.v[i];
  }
  nmt_wordfreq *wf;
  nmt_strbuf codes = {0};
  if ((st = nmt_wordfreq_new(&wf)) || (st = count_files(wf, &inputs, dict)) || (st = learn(wf, &o, &codes)) ||
      (st = write_all(out, &codes, zstd ? NMT_W_ZSTD : 0)))
    nmt_die(PROG, st);
  nmt_wordfreq_free(wf);
  free(codes.s);
  free(pos.v);
  free(inputs.v);
  return 0;
}

/* Apply the codes to `path` and write the vocabulary of the result to w. */
static int vocab_after_bpe(nmt_bpe *bpe, const char *path, nmt_writer *w) {
  nmt_reader *r;
  nmt_wordfreq *wf = NULL;
  nmt_strbuf line_out = {0};
  int st = nmt_reader_open(&r, path);
  if (st) return st;
  if (!(st = nmt_wordfreq_new(&wf))) {
    char *line;
    size_t len;
    int k;
    while ((k = nmt_reader_next(r, &line, &len)) == 1) {
      line_out.len = 0;
      if ((st = nmt_bpe_apply_line(bpe, line, len, &line_out)) ||
          (st = nmt_wordfreq_add_line(wf, line_out.s, line_out.len)))
        break;
    }
    if (k < 0) st = nmt_errcode();
  }
  if (!st) st = nmt_wordfreq_write(wf, w);
  free(line_out.s);
  nmt_wordfreq_free(wf);
  nmt_reader_close(r);
  return st;
}

int cmd_learn_joint(int argc, char **argv) {
  nmt_bpe_learn_opts o = {.symbols = 10000, .min_frequency = 2};
  const char *out = "-", *sep = "@@";
  nmt_strlist inputs = {0}, vocabs = {0}, pos;
  bool zstd = false;
  const nmt_opt opts[] = {
      {"symbols", 's', NMT_OPT_INT, &o.symbols, "N", "merge operations to learn (10000)", .min = 0, .max = INFINITY},
      {"min-frequency", 0, NMT_OPT_INT, &o.min_frequency, "FREQ", "stop when no pair is this frequent (2)", .min = 1, .max = INFINITY},
      {"total-symbols", 't', NMT_OPT_FLAG, &o.total_symbols, NULL,
       "subtract the number of distinct characters from -s"},
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments)"},
      {"output", 'o', NMT_OPT_STR, &out, "CODES", "codes file (stdout)"},
      {"vocab-out", 0, NMT_OPT_LIST, &vocabs, "VOCAB",
       "one vocabulary file per input (with no other inputs, the second half of the list are the inputs)"},
      {"write-vocabulary", 0, NMT_OPT_LIST, &vocabs, "VOCAB", "same as --vocab-out"},
      {"separator", 0, NMT_OPT_STR, &sep, "STR", "separator between subword units (@@)"},
      {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "compress the codes and vocabularies with zstd"},
      {0}};
  const nmt_cli cli = {PROG " learn-joint", "-s N [-o CODES] --vocab-out V1 V2 FILE1 FILE2",
                       "Learn BPE on all files together, then write each file's vocabulary after BPE "
                       "(learn_joint_bpe_and_vocab.py).",
                       PROG " learn-joint -s 8000 -o codes --vocab-out vocab.fr vocab.en train.fr train.en",
                       opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (st) nmt_die(PROG, st);
  for (int i = 0; i < pos.n; i++) {
    inputs.v = realloc(inputs.v, sizeof *inputs.v * (size_t)(inputs.n + 1));
    inputs.v[inputs.n++] = pos.v[i];
  }
  if (!inputs.n && vocabs.n % 2 == 0) { /* "--vocab-out V1 V2 FILE1 FILE2" */
    inputs.n = vocabs.n / 2;
    inputs.v = malloc(sizeof *inputs.v * (size_t)(inputs.n + 1));
    memcpy(inputs.v, vocabs.v + inputs.n, sizeof *inputs.v * (size_t)inputs.n);
    vocabs.n = inputs.n;
  }
  if (!inputs.n) st = nmt_fail(NMT_EUSAGE, "no input files");
  else if (vocabs.n != inputs.n)
    st = nmt_fail(NMT_EUSAGE, "%d input files but %d vocabulary files", inputs.n, vocabs.n);
  if (st) nmt_die(PROG, st);
  /* codes and vocabularies: all opened first (a name given twice stops us before the
   * work), committed together (never new codes beside old vocabularies) */
  nmt_writer **outs = calloc((size_t)inputs.n + 1, sizeof *outs);
  int flags = zstd ? NMT_W_ZSTD : 0;
  for (int i = 0; i <= inputs.n && !st; i++) st = nmt_writer_open(&outs[i], i ? vocabs.v[i - 1] : out, flags);
  if (st) nmt_die(PROG, st);
  nmt_wordfreq *wf;
  nmt_strbuf codes = {0};
  nmt_bpe *bpe;
  nmt_bpe_opts ao = {.separator = sep, .merges = -1, .vocab_threshold = -1};
  if ((st = nmt_wordfreq_new(&wf)) || (st = count_files(wf, &inputs, false)) || (st = learn(wf, &o, &codes)) ||
      (st = nmt_bpe_load_text(&bpe, codes.s, codes.len, "learned codes", &ao)) ||
      (st = nmt_writer_write(outs[0], codes.s, codes.len)))
    nmt_die(PROG, st);
  nmt_wordfreq_free(wf);
  free(codes.s);
  for (int i = 0; i < inputs.n; i++)
    if ((st = vocab_after_bpe(bpe, inputs.v[i], outs[i + 1]))) nmt_die(PROG, st);
  if ((st = nmt_writers_commit(outs, inputs.n + 1))) nmt_die(PROG, st);
  free(outs);
  nmt_bpe_free(bpe);
  free(inputs.v);
  free(vocabs.v);
  free(pos.v);
  return 0;
}

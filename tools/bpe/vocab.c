/* nmt-bpe vocab (get_vocab.py), or with --nmt the vocabulary nmt-train
 * builds (for --vocabs and apply --ids). */
#include "text/bpe.h"
#include "bpe_tool.h"
#include "base/cli.h"
#include "base/err.h"
#include "text/vocab.h"
#include "tool.h"
#include <stdlib.h>

/* nmt-train's vocabulary of path: specials, then tokens by count. */
static int write_nmt_vocab(const char *path, const char *out_path, int flags) {
  nmt_vocab *v;
  nmt_strbuf text = {0};
  nmt_writer *w;
  int st = nmt_vocab_build(&v, path, 1, 0);
  if (st) return st;
  if (!(st = nmt_vocab_text(v, &text)) && !(st = nmt_writer_open(&w, out_path, flags))) {
    st = nmt_writer_write(w, text.s, text.len);
    if (st) nmt_writer_abort(w);
    else st = nmt_writer_commit(w);
  }
  free(text.s);
  nmt_vocab_free(v);
  return st;
}

/* get_vocab.py's "WORD COUNT" lines of all inputs (stdin when none). */
static int write_counts(const nmt_strlist *inputs, const char *out_path, int flags) {
  nmt_wordfreq *wf;
  int st = nmt_wordfreq_new(&wf);
  if (st) return st;
  for (int i = 0; i < (inputs->n ? inputs->n : 1) && !st; i++)
    st = nmt_wordfreq_read(wf, inputs->n ? inputs->v[i] : "-", false);
  nmt_writer *w = NULL;
  if (!st && !(st = nmt_writer_open(&w, out_path, flags))) {
    st = nmt_wordfreq_write(wf, w);
    if (st) nmt_writer_abort(w);
    else st = nmt_writer_commit(w);
  }
  nmt_wordfreq_free(wf);
  return st;
}

int cmd_vocab(int argc, char **argv) {
  const char *out_path = "-";
  nmt_strlist inputs = {0}, pos;
  bool nmt = false, zstd = false;
  const nmt_opt opts[] = {
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments; stdin when none)"},
      {"output", 'o', NMT_OPT_STR, &out_path, "FILE", "output (stdout)"},
      {"nmt", 0, NMT_OPT_FLAG, &nmt, NULL,
       "write nmt-train's vocabulary of one BPE'd file instead: <pad> <unk> <s> </s>, then one token a line, "
       "most frequent first (for nmt-train --vocabs and apply --ids)"},
      {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "compress the output with zstd"},
      {0}};
  const nmt_cli cli = {PROG " vocab", "[FILE...]",
                       "Count words: 'WORD COUNT' by descending count, ties in order of first "
                       "appearance (get_vocab.py).",
                       PROG " apply -c codes train.tok.en | " PROG " vocab > vocab.en\n"
                       "  " PROG " vocab --nmt train.bpe.en -o vocab.en", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (st) nmt_die(PROG, st);
  for (int i = 0; i < pos.n; i++) {
    inputs.v = realloc(inputs.v, sizeof *inputs.v * (size_t)(inputs.n + 1));
    inputs.v[inputs.n++] = pos.v[i];
  }
  if (nmt && inputs.n > 1) st = nmt_fail(NMT_EUSAGE, "--nmt takes one file");
  else {
    int flags = zstd ? NMT_W_ZSTD : 0;
    st = nmt ? write_nmt_vocab(inputs.n ? inputs.v[0] : "-", out_path, flags) : write_counts(&inputs, out_path, flags);
  }
  if (st) nmt_die(PROG, st);
  free(inputs.v);
  free(pos.v);
  return 0;
}

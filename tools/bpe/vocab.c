/* nmt-bpe vocab (get_vocab.py). */
#include "bpe.h"
#include "bpe_tool.h"
#include "cli.h"
#include "err.h"
#include <stdlib.h>

int cmd_vocab(int argc, char **argv) {
  const char *out_path = "-";
  nmt_strlist inputs = {0}, pos;
  const nmt_opt opts[] = {
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments; stdin when none)"},
      {"output", 'o', NMT_OPT_STR, &out_path, "FILE", "output (stdout)"},
      {0}};
  const nmt_cli cli = {PROG " vocab", "[FILE...]",
                       "Count words: 'WORD COUNT' by descending count, ties in order of first "
                       "appearance (get_vocab.py).",
                       PROG " apply -c codes train.tok.en | " PROG " vocab > vocab.en", opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (st) nmt_die(PROG, st);
  for (int i = 0; i < pos.n; i++) {
    inputs.v = realloc(inputs.v, sizeof *inputs.v * (size_t)(inputs.n + 1));
    inputs.v[inputs.n++] = pos.v[i];
  }
  nmt_wordfreq *wf;
  if ((st = nmt_wordfreq_new(&wf))) nmt_die(PROG, st);
  for (int i = 0; i < (inputs.n ? inputs.n : 1) && !st; i++)
    st = nmt_wordfreq_read(wf, inputs.n ? inputs.v[i] : "-", false);
  nmt_writer *w = NULL;
  if (!st && !(st = nmt_writer_open(&w, out_path, 0))) {
    st = nmt_wordfreq_write(wf, w);
    if (!st) st = nmt_writer_commit(w);
  }
  if (st) nmt_die(PROG, st);
  nmt_wordfreq_free(wf);
  free(inputs.v);
  free(pos.v);
  return 0;
}

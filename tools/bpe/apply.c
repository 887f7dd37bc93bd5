/* nmt-bpe apply (apply_bpe.py), with codes from a file or a model, writing
 * text or, with --ids, a tensor stream of token ids for nmt-train. */
#include "text/bpe.h"
#include "bpe_tool.h"
#include "base/cli.h"
#include "base/err.h"
#include "io/model_file.h"
#include "text/tstream_ids.h"
#include "tool.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>

enum { FLUSH_AT = 1 << 16 };

typedef struct {
  nmt_bpe *bpe;
  nmt_strbuf *out;
  nmt_writer *w;       /* text, or */
  nmt_ts_writer *ids;  /* ids under vocab */
  const nmt_vocab *vocab;
  int *buf, n, cap;
} apply_ctx;

/* Hand the text gathered so far to the writer. */
static int write_pending(apply_ctx *a) {
  int st = nmt_writer_write(a->w, a->out->s, a->out->len);
  a->out->len = 0;
  return st;
}

static int text_line(apply_ctx *a) {
  if (nmt_strbuf_addc(a->out, '\n')) return nmt_fail(NMT_EIO, "out of memory");
  return a->out->len < FLUSH_AT ? NMT_OK : write_pending(a);
}

static int ids_line(apply_ctx *a) {
  a->n = 0;
  int st = nmt_vocab_encode(a->vocab, a->out->s ? a->out->s : "", a->out->len, &a->buf, &a->n, &a->cap);
  a->out->len = 0;
  return st ? st : nmt_ids_write(a->ids, a->buf, a->n);
}

/* Everything so far out to the reader, before waiting for more input. An id stream
 * feeds nmt-train, not a coprocess: it is left to fill its buffer. */
static int flush_output(apply_ctx *a) {
  if (a->ids) return NMT_OK;
  int st = write_pending(a);
  return st ? st : nmt_writer_flush(a->w);
}

/* Segment every line of path ("-" for stdin), flushing whenever the input stalls. */
static int apply_file(apply_ctx *a, const char *path) {
  nmt_reader *r;
  int st = nmt_reader_open(&r, path), got = 0;
  char *line;
  size_t len;
  while (!st) {
    if (nmt_reader_stalled(r) && (st = flush_output(a))) break;
    if ((got = nmt_reader_next(r, &line, &len)) != 1) break;
    st = nmt_utf8_check_line(line, len, nmt_reader_name(r), nmt_reader_lineno(r));
    if (!st) st = nmt_bpe_apply_line(a->bpe, line, len, a->out);
    if (!st) st = a->ids ? ids_line(a) : text_line(a);
  }
  if (!st && got < 0) st = nmt_errcode();
  nmt_reader_close(r);
  return st;
}

/* The codes embedded in a model file (nmt-train --bpe-codes). */
static int load_model_codes(nmt_bpe **bpe, const char *model, const nmt_bpe_opts *o) {
  nmt_model_file f;
  int st = nmt_mf_read(&f, model);
  if (st) return st;
  const nmt_section *codes = nmt_mf_get(&f, "bpecodes");
  st = codes ? nmt_bpe_load_text(bpe, codes->data, codes->len, model, o)
             : nmt_fail(NMT_EINPUT, "%s: the model has no BPE codes (nmt-train --bpe-codes embeds them)", model);
  nmt_mf_free(&f);
  return st;
}

/* Open the output: text, or an id stream when a vocabulary is given. */
static int open_output(apply_ctx *a, const char *path, const char *ids_vocab, int flags, nmt_vocab **v) {
  if (!ids_vocab) return nmt_writer_open(&a->w, path, flags);
  int st = nmt_vocab_load(v, ids_vocab);
  if (!st) st = nmt_ids_writer_open(&a->ids, path, flags, *v);
  a->vocab = *v;
  return st;
}

static int commit_output(apply_ctx *a) {
  if (a->ids) return nmt_ts_writer_commit(a->ids);
  int st = write_pending(a);
  if (st) {
    nmt_writer_abort(a->w);
    return st;
  }
  return nmt_writer_commit(a->w);
}

int cmd_apply(int argc, char **argv) {
  const char *codes = NULL, *model = NULL, *out_path = "-", *vocab = NULL, *ids_vocab = NULL, *sep = "@@";
  long merges = -1, threshold = -1, seed = 0, cache = NMT_BPE_CACHE_BYTES;
  double dropout = 0;
  bool zstd = false;
  nmt_strlist inputs = {0}, gloss = {0}, pos;
  const nmt_opt opts[] = {
      {"codes", 'c', NMT_OPT_STR, &codes, "CODES", "codes file from learn"},
      {"model", 'm', NMT_OPT_STR, &model, "MODEL", "take the codes embedded in an nmt model instead"},
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments; stdin when none)"},
      {"output", 'o', NMT_OPT_STR, &out_path, "FILE", "output (stdout)"},
      {"merges", 0, NMT_OPT_INT, &merges, "N", "use only the first N merges (all)", .min = 0, .max = INFINITY},
      {"separator", 's', NMT_OPT_STR, &sep, "STR", "appended to non-final units (@@)"},
      {"vocabulary", 0, NMT_OPT_STR, &vocab, "VOCAB", "undo merges that make units missing from VOCAB"},
      {"vocabulary-threshold", 0, NMT_OPT_INT, &threshold, "N",
       "units seen fewer than N times in VOCAB count as missing", .min = 0, .max = INFINITY},
      {"glossaries", 0, NMT_OPT_LIST, &gloss, "RE", "words matching these regexes are never split (takes every argument up to the next option)"},
      {"dropout", 0, NMT_OPT_DOUBLE, &dropout, "P", "skip each merge with probability P (BPE-dropout; 0 to 1)", .min = 0, .max = 1},
      {"seed", 0, NMT_OPT_INT, &seed, "S", "random seed for --dropout (0); not Python's generator",
       .min = 0, .max = INFINITY},
      {"cache-bytes", 0, NMT_OPT_INT, &cache, "N",
       "memory for the word cache (64 MiB; 0: none): words used again stay when it is full, words over 1 KiB are "
       "never cached", .min = 0, .max = INFINITY},
      {"ids", 0, NMT_OPT_STR, &ids_vocab, "VOCAB",
       "write the units' ids under VOCAB (an nmt-train vocabulary) as a tensor stream, one record a line"},
      {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "compress the output with zstd"},
      {0}};
  const nmt_cli cli = {PROG " apply", "-c CODES|-m MODEL [options] [FILE...]",
                       "Segment text into subword units with BPE codes, as apply_bpe.py (whose -m is --merges here).",
                       PROG " apply -c codes --glossaries '[0-9]+' < test.tok.en > test.bpe.en\n"
                       "  " PROG " apply -c codes --ids vocab.en -z train.tok.en -o train.ids.en.zst",
                       opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && !codes && !model) st = nmt_fail(NMT_EUSAGE, "-c CODES or -m MODEL is required (see --help)");
  if (!st && codes && model) st = nmt_fail(NMT_EUSAGE, "-c CODES and -m MODEL exclude each other");
  if (st) nmt_die(PROG, st);
  for (int i = 0; i < pos.n; i++) {
    inputs.v = realloc(inputs.v, sizeof *inputs.v * (size_t)(inputs.n + 1));
    inputs.v[inputs.n++] = pos.v[i];
  }
  nmt_bpe_opts o = {sep, merges, vocab, threshold, gloss.v, gloss.n};
  nmt_bpe *bpe;
  if ((st = codes ? nmt_bpe_load(&bpe, codes, &o) : load_model_codes(&bpe, model, &o))) nmt_die(PROG, st);
  nmt_bpe_set_dropout(bpe, dropout, (uint64_t)seed);
  nmt_bpe_set_cache(bpe, (size_t)cache);
  nmt_strbuf out = {0};
  nmt_vocab *v = NULL;
  apply_ctx a = {.bpe = bpe, .out = &out};
  if ((st = open_output(&a, out_path, ids_vocab, zstd ? NMT_W_ZSTD : 0, &v))) nmt_die(PROG, st);
  for (int i = 0; i < (inputs.n ? inputs.n : 1) && !st; i++)
    st = apply_file(&a, inputs.n ? inputs.v[i] : "-");
  if (!st) st = commit_output(&a);
  if (st) nmt_die(PROG, st);
  free(out.s);
  free(a.buf);
  nmt_vocab_free(v);
  nmt_bpe_free(bpe);
  free(inputs.v);
  free(gloss.v);
  free(pos.v);
  return 0;
}

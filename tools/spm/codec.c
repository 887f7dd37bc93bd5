/* nmt-spm encode (spm_encode) and decode (spm_decode): line by line, the
 * output flushed whenever the input stalls, so that it serves as a coprocess. */
#include "spm_tool.h"
#include "base/err.h"
#include "base/utf8.h"
#include "io/io.h"
#include "io/model_file.h"
#include "tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { FLUSH_AT = 1 << 16 };

/* The SentencePiece model in path: a .model file, or the one an nmt model
 * embeds for the side given by tag ("srcspm" encodes, "tgtspm" decodes). */
static int load_model(nmt_spm **s, const char *path, const char *tag) {
  char *data;
  size_t len;
  int st = nmt_read_file(path, &data, &len);
  if (st) return st;
  if (!nmt_mf_sniff(data, len)) {
    st = nmt_spm_load(s, data, len, path);
    free(data);
    return st;
  }
  nmt_model_file f;
  st = nmt_mf_read_mem(&f, data, len, path);
  free(data);
  if (st) return st;
  const nmt_section *sec = nmt_mf_get(&f, tag);
  st = sec ? nmt_spm_load(s, sec->data, sec->len, path)
           : nmt_fail(NMT_EINPUT, "%s: the model has no SentencePiece model (nmt-train --vocabs X.model Y.model "
                      "embeds them)", path);
  nmt_mf_free(&f);
  return st;
}

typedef struct {
  const nmt_spm *spm;
  bool decode, ids;
  nmt_writer *w;
  nmt_strbuf out;
} codec;

static int write_pending(codec *c) {
  int st = nmt_writer_write(c->w, c->out.s, c->out.len);
  c->out.len = 0;
  return st;
}

/* One line; a problem with it names the file and line. */
static int one_line(codec *c, const char *line, size_t len, const char *name, long lineno) {
  int st = nmt_utf8_check_line(line, len, name, lineno);
  if (st) return st;
  st = c->decode ? nmt_spm_decode(c->spm, line, len, c->ids, &c->out)
                 : nmt_spm_encode(c->spm, line, len, c->ids, &c->out);
  if (st == NMT_EINPUT) {
    char why[512];
    snprintf(why, sizeof why, "%s", nmt_errmsg());
    return nmt_fail(st, "%s:%ld: %s", name, lineno, why);
  }
  if (!st && nmt_strbuf_addc(&c->out, '\n')) st = nmt_fail(NMT_EIO, "out of memory");
  return st ? st : c->out.len < FLUSH_AT ? NMT_OK : write_pending(c);
}

static int codec_file(codec *c, const char *path) {
  nmt_reader *r;
  int st = nmt_reader_open(&r, path), got = 0;
  char *line;
  size_t len;
  while (!st) {
    if (nmt_reader_stalled(r) && ((st = write_pending(c)) || (st = nmt_writer_flush(c->w)))) break;
    if ((got = nmt_reader_next(r, &line, &len)) != 1) break;
    st = one_line(c, line, len, nmt_reader_name(r), nmt_reader_lineno(r));
  }
  if (!st && got < 0) st = nmt_errcode();
  nmt_reader_close(r);
  return st;
}

int cmd_codec(int argc, char **argv, bool decode) {
  const char *model = NULL, *out_path = "-", *format = "piece";
  bool zstd = false;
  nmt_strlist inputs = {0}, pos = {0};
  const nmt_opt opts[] = {
      {"model", 'm', NMT_OPT_STR, &model, "MODEL",
       decode ? "a .model file, or an nmt model (its target's SentencePiece model)"
              : "a .model file, or an nmt model (its source's SentencePiece model)"},
      {"input", 'i', NMT_OPT_LIST, &inputs, "FILE", "input files (also as arguments; stdin when none)"},
      {"output", 'o', NMT_OPT_STR, &out_path, "FILE", "output (stdout)"},
      {decode ? "input-format" : "output-format", 0, NMT_OPT_STR, &format, "piece|id",
       decode ? "what the lines hold: pieces or ids (piece)" : "write pieces or ids (piece)"},
      {"zstd", 'z', NMT_OPT_FLAG, &zstd, NULL, "compress the output with zstd"},
      {0}};
  const nmt_cli cli = {decode ? PROG " decode" : PROG " encode", "-m MODEL [options] [FILE...]",
                       decode ? "Join space-separated pieces or ids into text, one line a line, as spm_decode."
                              : "Segment text into space-separated pieces or ids, one line a line, as spm_encode.",
                       decode ? PROG " decode -m en.model < out.pieces > out.en\n"
                                "  " PROG " decode -m en.model --input-format id < out.ids"
                              : PROG " encode -m fr.model < test.fr > test.pieces\n"
                                "  " PROG " encode -m fr-en.bin --output-format id < test.fr",
                       opts, false};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st) st = spm_tool_inputs(&inputs, &pos);
  if (!st && !model) st = nmt_fail(NMT_EUSAGE, "-m MODEL is required (see --help)");
  if (!st && strcmp(format, "piece") && strcmp(format, "id"))
    st = nmt_fail(NMT_EUSAGE, "--%s must be piece or id (got '%s')", decode ? "input-format" : "output-format", format);
  nmt_spm *spm = NULL;
  if (!st) st = load_model(&spm, model, decode ? "tgtspm" : "srcspm");
  codec c = {.spm = spm, .decode = decode, .ids = !strcmp(format, "id")};
  if (!st) st = nmt_writer_open(&c.w, out_path, zstd ? NMT_W_ZSTD : 0);
  for (int i = 0; i < (inputs.n ? inputs.n : 1) && !st; i++) st = codec_file(&c, inputs.n ? inputs.v[i] : "-");
  if (!st) st = write_pending(&c);
  if (c.w) st = st ? (nmt_writer_abort(c.w), st) : nmt_writer_commit(c.w);
  if (st) nmt_die(PROG, st);
  nmt_spm_free(spm);
  free(c.out.s);
  free(inputs.v);
  free(pos.v);
  return 0;
}

/* Id streams and the sentence reader over streams or text; see text/tstream_ids.h. */
#include "text/tstream_ids.h"
#include "base/err.h"
#include "io/io.h"
#include "io/model_file.h"
#include "base/utf8.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(int) == 4, "i32 records are read as int");

static const char vocab_record[] = "vocab";

static int vocab_hash(const nmt_vocab *v, uint64_t *h) {
  nmt_strbuf text = {0};
  int st = nmt_vocab_text(v, &text);
  if (!st) *h = nmt_fnv1a(NMT_FNV_INIT, text.s, text.len);
  free(text.s);
  return st;
}

int nmt_ids_writer_open(nmt_ts_writer **w, const char *path, int flags, const nmt_vocab *v) {
  uint64_t h;
  int st = vocab_hash(v, &h);
  if (!st) st = nmt_ts_writer_open(w, path, flags);
  if (st) return st;
  nmt_ts_record rec = {.dtype = NMT_TS_U8, .rank = 1, .shape = {8}, .data = &h, .bytes = 8};
  memcpy(rec.name, vocab_record, sizeof vocab_record);
  if ((st = nmt_ts_write(*w, &rec))) nmt_ts_writer_abort(*w);
  return st;
}

int nmt_ids_write(nmt_ts_writer *w, const int *ids, int n) {
  nmt_ts_record rec = {.dtype = NMT_TS_I32, .rank = 1, .shape = {(uint64_t)n}, .data = ids,
                       .bytes = 4 * (size_t)n};
  return nmt_ts_write(w, &rec);
}

/* ---- reading ---- */

struct nmt_id_reader {
  nmt_ts_reader *ts;   /* an id stream, or */
  nmt_reader *text;    /* BPE'd text, or raw text split by */
  const nmt_segmenter *seg;
  nmt_strbuf split;    /* (the current line's tokens) */
  const nmt_vocab *v;
  int *ids, n, cap;    /* text: the current line's ids */
  long count;
};

static int check_vocab(nmt_id_reader *r) {
  nmt_ts_record rec;
  uint64_t want, got;
  int k = nmt_ts_next(r->ts, &rec);
  if (k < 0) return nmt_errcode();
  if (!k || strcmp(rec.name, vocab_record) || rec.dtype != NMT_TS_U8 || rec.bytes != 8)
    return nmt_fail(NMT_EINPUT, "%s: not an id stream (record 0 is not its vocabulary)", nmt_ts_name(r->ts));
  memcpy(&got, rec.data, 8);
  int st = vocab_hash(r->v, &want);
  if (!st && got != want)
    st = nmt_fail(NMT_EINPUT, "%s: made with another vocabulary than the model's (give nmt-bpe apply --ids "
                  "the vocabulary training uses)", nmt_ts_name(r->ts));
  return st;
}

int nmt_id_reader_open(nmt_id_reader **out, const char *path, const nmt_vocab *v) {
  nmt_id_reader *r = calloc(1, sizeof *r);
  if (!r) return nmt_fail(NMT_EIO, "out of memory");
  r->v = v;
  bool stream;
  int st = nmt_ts_sniff(path, &stream);
  if (!st) st = stream ? nmt_ts_reader_open(&r->ts, path) : nmt_reader_open(&r->text, path);
  if (!st && stream) st = check_vocab(r);
  if (st) {
    nmt_id_reader_close(r);
    return st;
  }
  *out = r;
  return NMT_OK;
}

static int next_record(nmt_id_reader *r, const int **ids, int *n) {
  nmt_ts_record rec;
  int k = nmt_ts_next(r->ts, &rec);
  if (k <= 0) return k;
  const char *name = nmt_ts_name(r->ts);
  long at = nmt_ts_count(r->ts) - 1;
  if (rec.dtype != NMT_TS_I32 || rec.rank != 1)
    return nmt_fail(NMT_EINPUT, "%s: record %ld: not a sentence of ids (i32, rank 1)", name, at), -1;
  if (rec.shape[0] > INT_MAX) /* a length the int below would wrap */
    return nmt_fail(NMT_EINPUT, "%s: record %ld: a sentence of more than %d ids", name, at, INT_MAX), -1;
  *ids = rec.data;
  *n = (int)rec.shape[0];
  int size = nmt_vocab_size(r->v);
  for (int i = 0; i < *n; i++)
    if ((*ids)[i] < 0 || (*ids)[i] >= size)
      return nmt_fail(NMT_EINPUT, "%s: record %ld: id %d is outside the vocabulary (%d ids)", name, at,
                      (*ids)[i], size), -1;
  return 1;
}

static int next_line(nmt_id_reader *r, const int **ids, int *n) {
  char *line;
  size_t len;
  int k = nmt_reader_next(r->text, &line, &len);
  if (k <= 0) return k;
  r->n = 0;
  if (nmt_utf8_check_line(line, len, nmt_reader_name(r->text), nmt_reader_lineno(r->text))) return -1;
  if (r->seg) {
    r->split.len = 0;
    if (r->seg->split(r->seg, line, len, &r->split)) return -1;
    line = r->split.s ? r->split.s : "", len = r->split.len;
  }
  if (nmt_vocab_encode(r->v, line, len, &r->ids, &r->n, &r->cap)) return -1;
  *ids = r->ids;
  *n = r->n;
  return 1;
}

void nmt_id_reader_segment(nmt_id_reader *r, const nmt_segmenter *seg) { r->seg = seg; }

int nmt_id_reader_next(nmt_id_reader *r, const int **ids, int *n) {
  int k = r->ts ? next_record(r, ids, n) : next_line(r, ids, n);
  r->count += k == 1;
  return k;
}

const char *nmt_id_reader_name(const nmt_id_reader *r) {
  return r->ts ? nmt_ts_name(r->ts) : nmt_reader_name(r->text);
}

long nmt_id_reader_count(const nmt_id_reader *r) { return r->count; }

void nmt_id_reader_close(nmt_id_reader *r) {
  if (!r) return;
  nmt_ts_reader_close(r->ts);
  nmt_reader_close(r->text);
  free(r->ids);
  free(r->split.s);
  free(r);
}

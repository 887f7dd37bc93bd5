/* Sentence pairs in and out of nmt-clean: two line-aligned files (Moses
 * style) or one TSV/CSV table with two columns. */
#ifndef NMT_TOOLS_CLEAN_PAIRS_H
#define NMT_TOOLS_CLEAN_PAIRS_H
#include "io/io.h"
#include <stdbool.h>
#include <stddef.h>

typedef struct {
  const char *src, *tgt;   /* NUL-terminated, valid until the next call */
  size_t src_len, tgt_len;
  long line;               /* 1-based */
  const char *bad_file;    /* non-NULL when a side is not UTF-8 */
  long bad_byte;           /* its byte offset in the line, -1 if unknown */
} pair;

typedef struct pair_source pair_source;

/* format: -1 for two files (tgt_path needed), else NMT_TSV or NMT_CSV. */
int pairs_open(pair_source **ps, int format, const char *src_path, const char *tgt_path);
/* 1 with a pair, 0 at the end, -1 on error: unequal line counts or a table
 * line without exactly two fields (NMT_EINPUT), I/O (NMT_EIO). */
int pairs_next(pair_source *ps, pair *p);
/* A table (a filter's input) has no whole line ready: answers so far must be
 * flushed before waiting. Two files are never a filter's input: false. */
bool pairs_stalled(const pair_source *ps);
/* Name of the file holding side 0 (source) or 1 (target). */
const char *pairs_name(const pair_source *ps, int side);
void pairs_close(pair_source *ps);

typedef struct pair_sink pair_sink;

/* Output only appears under its names on pairs_sink_commit, all files or none. */
int pairs_sink_open(pair_sink **s, int format, const char *src_path, const char *tgt_path, int flags);
int pairs_sink_write(pair_sink *s, const char *src, size_t src_len, const char *tgt, size_t tgt_len);
/* Write out what is buffered, so a reader at the other end has every pair kept so far. */
int pairs_sink_flush(pair_sink *s);
/* Commits extra (NULL or another output of the run) together with the pairs. */
int pairs_sink_commit(pair_sink *s, nmt_writer *extra);

#endif

/* Tensor streams (docs/formats.md): a versioned sequence of named, typed,
 * shaped records, each checksummed, closed by an end record so truncation
 * shows. Written and read front to back (no seeks), so they pipe and go
 * through zstd like text (lib/io). */
#ifndef NMT_IO_TSTREAM_H
#define NMT_IO_TSTREAM_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { NMT_TS_VERSION = 1, NMT_TS_MAX_RANK = 8, NMT_TS_MAX_NAME = 255 };

/* Element types; the numbers are the on-disk codes. */
typedef enum { NMT_TS_U8 = 1, NMT_TS_I32 = 2, NMT_TS_F32 = 3 } nmt_ts_dtype;

typedef struct {
  nmt_ts_dtype dtype;
  int rank;                          /* 0 (a scalar) .. NMT_TS_MAX_RANK */
  uint64_t shape[NMT_TS_MAX_RANK];
  char name[NMT_TS_MAX_NAME + 1];    /* UTF-8, may be empty */
  const void *data;                  /* the elements, row-major */
  size_t bytes;                      /* element size x product of shape */
} nmt_ts_record;

/* Size in bytes of one element of dtype (0 for an unknown code). */
size_t nmt_ts_dtype_size(int dtype);

/* ---- writing ---- */

typedef struct nmt_ts_writer nmt_ts_writer;

/* path "-" writes stdout; flags as nmt_writer_open (NMT_W_ZSTD). The file
 * appears under its name only on commit. */
int nmt_ts_writer_open(nmt_ts_writer **w, const char *path, int flags);
/* Append one record; rec->bytes must match dtype and shape. NMT_EIO on write
 * errors, NMT_EUSAGE on a malformed record (the caller's bug). */
int nmt_ts_write(nmt_ts_writer *w, const nmt_ts_record *rec);
/* Write the end record, flush and rename into place. Frees w. */
int nmt_ts_writer_commit(nmt_ts_writer *w);
/* Drop the output. Frees w; safe on NULL. */
void nmt_ts_writer_abort(nmt_ts_writer *w);

/* ---- reading ---- */

typedef struct nmt_ts_reader nmt_ts_reader;

/* Open path ("-": stdin; zstd is undone) and check its header: NMT_EIO when
 * unreadable, NMT_EINPUT "PATH: not a tensor stream", "PATH: tensor stream
 * version N is newer than this build's M". */
int nmt_ts_reader_open(nmt_ts_reader **r, const char *path);
/* The same over bytes in memory (not copied; they must outlive r); `name`
 * is used in messages. */
int nmt_ts_reader_open_mem(nmt_ts_reader **r, const void *data, size_t len, const char *name);
/* Next record into rec (rec->data valid until the next call). Returns 1 with
 * a record, 0 after a valid end record at the end of the input, -1 on error:
 * nmt_errcode() NMT_EINPUT for "PATH: record N: checksum mismatch",
 * "PATH: truncated (no end record after N records)", a malformed header or
 * bytes after the end record; NMT_EIO for read errors. */
int nmt_ts_next(nmt_ts_reader *r, nmt_ts_record *rec);
/* Records returned so far. */
long nmt_ts_count(const nmt_ts_reader *r);
const char *nmt_ts_name(const nmt_ts_reader *r);
void nmt_ts_reader_close(nmt_ts_reader *r);

/* Whether path begins with the tensor stream magic (after zstd is undone).
 * stdin and other pipes are never peeked at: false. NMT_OK or NMT_EIO. */
int nmt_ts_sniff(const char *path, bool *is_stream);

#endif

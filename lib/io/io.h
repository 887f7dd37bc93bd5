/* Line streams: read lines of any length from a file or stdin ("-" or NULL),
 * decompressing zstd and gzip transparently (detected by magic number); write to a
 * file atomically (temp file + rename on commit), to a pipe or device, or to
 * stdout, optionally zstd. */
#ifndef NMT_IO_IO_H
#define NMT_IO_IO_H
#include <stddef.h>
#include <stdbool.h>

typedef struct nmt_reader nmt_reader;

/* path "-" or NULL reads stdin. Returns NMT_OK or NMT_EIO (message names the file;
 * a closed stdin is an error). On failure *r is NULL (closing it is a no-op). */
int nmt_reader_open(nmt_reader **r, const char *path);
/* Next line without its '\n' (a '\r' is kept), NUL-terminated, valid until the
 * next call. Returns 1 with a line, 0 at end of input, -1 on error (nmt_errcode()
 * is NMT_EIO for read failures, NMT_EINPUT for corrupt/truncated zstd or gzip). */
int nmt_reader_next(nmt_reader *r, char **line, size_t *len);
/* Read up to `n` bytes of raw (decompressed) data; returns bytes read, 0 at EOF, -1 on error. */
long nmt_reader_read(nmt_reader *r, void *buf, size_t n);
/* Shard k of n (0-based), right after opening: from then on only the lines whose
 * first byte lies in [size*k/n, size*(k+1)/n), so the n shards' lines, one after
 * the other, are the file's. A plain regular file only (the size is known):
 * else NMT_EUSAGE naming it. */
int nmt_reader_shard(nmt_reader *r, int k, int n);
const char *nmt_reader_name(const nmt_reader *r); /* "<stdin>" for stdin */
long nmt_reader_lineno(const nmt_reader *r);      /* 1-based number of the last line read */
/* True when no whole line is buffered and the source has nothing to read right now
 * (a pipe whose writer is thinking): a filter flushes its answers before it waits. */
bool nmt_reader_stalled(nmt_reader *r);
void nmt_reader_close(nmt_reader *r);

typedef struct nmt_writer nmt_writer;
/* NMT_W_SYNC: durable, for models and checkpoints: a temp file is fsync'ed before its
 * rename and its folder after, so a crash leaves the old file or the new one, whole. */
enum { NMT_W_ZSTD = 1, NMT_W_SYNC = 2 };

/* path "-" or NULL writes stdout. A regular file or a new path (or a symlink to
 * one: the link stays, its target is replaced) is written to an unpredictable temp
 * name beside the target, created exclusively, and renamed on commit, so the final
 * name only ever holds complete output. Anything else (a FIFO, a device, /dev/fd/N)
 * is opened and written directly. A target already open in another writer is
 * NMT_EUSAGE (the same output named twice). On failure *w is NULL. */
int nmt_writer_open(nmt_writer **w, const char *path, int flags);
int nmt_writer_write(nmt_writer *w, const void *buf, size_t n);
int nmt_writer_puts(nmt_writer *w, const char *s);
/* s followed by '\n' */
int nmt_writer_line(nmt_writer *w, const char *s, size_t n);
int nmt_writer_printf(nmt_writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Write out everything buffered (a complete zstd block when compressing), so a reader at
 * the other end of a pipe has every answer so far. */
int nmt_writer_flush(nmt_writer *w);
/* Flush, close and rename into place. Frees w. Returns NMT_OK or NMT_EIO. */
int nmt_writer_commit(nmt_writer *w);
/* Commit n writers (NULL entries skipped) as one: all are flushed and closed first,
 * and renamed one after another only if all of that succeeded; otherwise every
 * temp file is removed and no final name changes. Frees them all. */
int nmt_writers_commit(nmt_writer **w, int n);
/* Drop the output: remove the temp file. Frees w. Safe on NULL. */
void nmt_writer_abort(nmt_writer *w);
const char *nmt_writer_name(const nmt_writer *w);

/* Remove the temp file of every writer still open. Async-signal-safe: tools call
 * it from their fatal path and from their signal handlers. */
void nmt_writers_abort_all(void);

/* Tools call this first. A closed stdin, stdout or stderr is held by /dev/null, so that
 * files opened later do not take its number; held the wrong way round (stdin write-only),
 * so reading or writing there still fails. Readers of stdin and writers of stdout then
 * fail naming it (NMT_EIO) instead of reading nothing or writing nowhere. */
int nmt_io_hold_std(void);

/* Call fn on every line of path ("-" for stdin) after checking it is valid
 * UTF-8 (NMT_EINPUT naming file, line and byte offset otherwise); stops at the
 * first status fn returns that is not NMT_OK and returns it. */
typedef int (*nmt_line_fn)(void *ctx, char *line, size_t len, const char *name, long lineno);
int nmt_each_utf8_line(const char *path, nmt_line_fn fn, void *ctx);

/* Read a whole (possibly zstd) file into memory; *data is NUL-terminated, free() it.
 * A device or pipe is read until its end or until memory runs out: NMT_EIO
 * "PATH: out of memory". */
int nmt_read_file(const char *path, char **data, size_t *len);
/* Append what is left of r to *data (malloc'd, *len bytes; NULL and 0 at first), until
 * its end or *len reaches max (> 0); *data stays NUL-terminated, and is the caller's
 * to free also on failure. NMT_OK, a read error, or NMT_EIO "NAME: out of memory". */
int nmt_reader_read_all(nmt_reader *r, size_t max, char **data, size_t *len);

#endif

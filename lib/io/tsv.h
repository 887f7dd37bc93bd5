/* Records of TSV or CSV files through libcsv, for sentence-pair corpora.
 *
 * TSV: fields separated by tabs, one record a line, no quoting: a '"' is an
 *   ordinary character (sentences often start with one, and corpora written
 *   by `paste` never quote). A field cannot hold a tab or a newline.
 * CSV: RFC 4180 quoting, read non-strictly (libcsv without CSV_STRICT): a
 *   field that starts with '"' is quoted and may hold commas, newlines and
 *   doubled quotes; a '"' inside an unquoted field is an ordinary character.
 * Both: spaces around fields are kept; a CRLF line end counts as LF; an empty
 *   line is a record of one empty field. Input is checked for UTF-8 a line at
 *   a time: a record with invalid bytes comes back flagged (for TSV unsplit). */
#ifndef NMT_IO_TSV_H
#define NMT_IO_TSV_H
#include "io/io.h"
#include <stdbool.h>
#include <stddef.h>

enum nmt_tsv_format { NMT_TSV = 0, NMT_CSV = 1 };

typedef struct {
  int n;              /* number of fields */
  char **field;       /* NUL-terminated, valid until the next call */
  size_t *len;
  long line;          /* line where the record starts (1-based) */
  bool invalid_utf8;  /* fields unusable: the record's bytes are not UTF-8 */
} nmt_tsv_row;

typedef struct nmt_tsv nmt_tsv;

/* path "-" or NULL reads stdin; zstd input is decompressed. */
int nmt_tsv_open(nmt_tsv **t, const char *path, int format);
/* Next record: 1, 0 at the end, -1 on error (NMT_EIO, or NMT_EINPUT for an
 * unclosed quoted CSV field; the message names file and line). */
int nmt_tsv_next(nmt_tsv *t, nmt_tsv_row *row);
const char *nmt_tsv_name(const nmt_tsv *t);
/* No whole line is ready to read (see nmt_reader_stalled): time to flush answers. */
bool nmt_tsv_stalled(const nmt_tsv *t);
void nmt_tsv_close(nmt_tsv *t);

/* Write one record and its newline. TSV refuses (NMT_EINPUT) a field with a
 * tab or newline; CSV quotes a field with a comma, quote, CR, LF or an outer space. */
int nmt_tsv_write(nmt_writer *w, int format, int n, const char *const *field, const size_t *len);

#endif

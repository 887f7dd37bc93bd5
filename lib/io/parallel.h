/* Parallel files: a file with one line per line of the input, read beside it (nmt-decode's
 * --prefix and --constraints). Line N of the input asks for line N of the file; a shard's
 * input starts further on, so the lines before are passed over. The messages name the
 * file and its line, and say what the file is ("the prefix file"). */
#ifndef NMT_IO_PARALLEL_H
#define NMT_IO_PARALLEL_H
#include "io/io.h"

/* Line `lineno` (1-based, past the lines already read) of r into *line, *len (valid until
 * r's next read), checked to be UTF-8. A file that ends first or a line that is not UTF-8:
 * NMT_EINPUT "NAME: no line N, the input has one: WHAT has one line per input line (an
 * empty line: none)" or nmt_utf8_check_line's; a read error: its status. */
int nmt_parallel_line(nmt_reader *r, long lineno, const char *what, char **line, size_t *len);

/* st, with NMT_EINPUT's message (the reading of line lineno of r) prefixed "NAME:LINENO: ". */
int nmt_parallel_at(int st, const nmt_reader *r, long lineno);

/* After the input `in` ended: NMT_OK when r has ended too, else NMT_EINPUT "NAME has more
 * lines than IN (N): WHAT has one line per input line"; a read error: its status. */
int nmt_parallel_end(nmt_reader *r, const nmt_reader *in, const char *what);

#endif

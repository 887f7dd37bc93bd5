/* Ordered parallel line processing: the main thread reads chunks of lines,
 * N workers process them, the main thread writes results in input order. */
#ifndef NMT_TOOLS_TOKENIZE_CHUNKS_H
#define NMT_TOOLS_TOKENIZE_CHUNKS_H
#include <stdbool.h>
#include <stddef.h>
#include "io/io.h"
#include "text/tok.h"

/* Per-thread state handed to the line function. */
typedef struct {
  tok_scratch scratch;
  nmt_strbuf tmp; /* for two-step modes (normalize, then tokenize) */
} chunk_worker;

/* Appends the processed line (with its '\n') to out; false when out of memory. */
typedef bool (*line_fn)(void *ctx, chunk_worker *w, const char *line, size_t n, nmt_strbuf *out);

/* Runs fn over every line of the readers, in order, writing to w. Lines are
 * checked to be valid UTF-8. Returns NMT_OK or an error status (message set). */
int chunks_run(nmt_reader **in, int nin, nmt_writer *w, int threads, line_fn fn, void *ctx);

#endif

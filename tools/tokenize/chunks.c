/* See chunks.h. A ring of chunks: each is filled by the reader, claimed by a
 * worker in order, and written once done; memory stays flat in the input size. */
#include "chunks.h"
#include "base/pool.h"
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "base/err.h"
#include "base/utf8.h"

enum { CHUNK_LINES = 2048, CHUNK_BYTES = 1 << 18 };
enum { FREE, QUEUED, DONE };

typedef struct {
  nmt_strbuf text;  /* the lines, back to back */
  size_t *start; /* line i is text[start[i] .. start[i+1]) */
  size_t nlines;
  nmt_strbuf out;
  int state;
  bool ok;
} chunk;

typedef struct {
  chunk *ring;
  int nring;
  long queued, claimed; /* sequence numbers */
  bool stop;
  line_fn fn;
  void *ctx;
  pthread_mutex_t mu;
  pthread_cond_t cv;
} pool;

static void process(pool *p, chunk *c, chunk_worker *w) {
  c->out.len = 0;
  c->ok = true;
  for (size_t i = 0; i < c->nlines && c->ok; i++)
    c->ok = p->fn(p->ctx, w, c->text.s + c->start[i], c->start[i + 1] - c->start[i], &c->out);
}

static void worker(void *ctx, int part, int parts) {
  pool *p = ctx;
  chunk_worker w = {0};
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->stop && p->claimed == p->queued) pthread_cond_wait(&p->cv, &p->mu);
    if (p->claimed == p->queued) break;
    chunk *c = &p->ring[p->claimed++ % p->nring];
    pthread_mutex_unlock(&p->mu);
    process(p, c, &w);
    pthread_mutex_lock(&p->mu);
    c->state = DONE;
    pthread_cond_broadcast(&p->cv);
  }
  pthread_mutex_unlock(&p->mu);
  tok_scratch_free(&w.scratch);
  free(w.tmp.s);
}

/* The input has no whole line ready: what was read so far must be answered first. */
static bool stalled(nmt_reader **in, int nin, int cur) {
  return cur < nin && nmt_reader_stalled(in[cur]);
}

/* Fill c with up to CHUNK_LINES lines, fewer when the input stalls. Returns 1 with
 * lines, 0 at the end, -1 on error. */
static int fill(chunk *c, nmt_reader **in, int nin, int *cur) {
  c->nlines = 0;
  c->text.len = 0;
  if (!c->start && !(c->start = malloc((CHUNK_LINES + 1) * sizeof *c->start)))
    return nmt_fail(NMT_EIO, "out of memory"), -1;
  while (*cur < nin && c->nlines < CHUNK_LINES && c->text.len < CHUNK_BYTES) {
    if (c->nlines && stalled(in, nin, *cur)) break;
    char *line;
    size_t len;
    int r = nmt_reader_next(in[*cur], &line, &len);
    if (r < 0) return -1;
    if (r == 0) {
      ++*cur;
      continue;
    }
    if (nmt_utf8_check_line(line, len, nmt_reader_name(in[*cur]), nmt_reader_lineno(in[*cur]))) return -1;
    c->start[c->nlines++] = c->text.len;
    if (!tok_put(&c->text, line, len)) return nmt_fail(NMT_EIO, "out of memory"), -1;
  }
  c->start[c->nlines] = c->text.len;
  return c->nlines > 0;
}

static int write_chunk(chunk *c, nmt_writer *w) {
  if (!c->ok) return nmt_fail(NMT_EIO, "out of memory");
  return nmt_writer_write(w, c->out.s, c->out.len);
}

/* Wait for the oldest unwritten chunk, then write it unless an error came first. */
static void write_next(pool *p, long *written, nmt_writer *w, int *st) {
  chunk *c = &p->ring[*written % p->nring];
  pthread_mutex_lock(&p->mu);
  while (c->state != DONE) pthread_cond_wait(&p->cv, &p->mu);
  pthread_mutex_unlock(&p->mu);
  if (*st == NMT_OK) *st = write_chunk(c, w);
  c->state = FREE;
  ++*written;
}

static int run_serial(nmt_reader **in, int nin, nmt_writer *w, line_fn fn, void *ctx) {
  pool p = {.fn = fn, .ctx = ctx};
  chunk c = {0};
  chunk_worker cw = {0};
  int cur = 0, r = 0, st = NMT_OK;
  while (st == NMT_OK) {
    if (stalled(in, nin, cur) && (st = nmt_writer_flush(w))) break;
    if ((r = fill(&c, in, nin, &cur)) <= 0) break;
    process(&p, &c, &cw);
    st = write_chunk(&c, w);
  }
  if (st == NMT_OK && r < 0) st = nmt_errcode();
  free(c.text.s), free(c.start), free(c.out.s), free(cw.tmp.s);
  tok_scratch_free(&cw.scratch);
  return st;
}

int chunks_run(nmt_reader **in, int nin, nmt_writer *w, int threads, line_fn fn, void *ctx) {
  if (threads <= 1) return run_serial(in, nin, w, fn, ctx);
  pool p = {.nring = 2 * threads + 2, .fn = fn, .ctx = ctx};
  p.ring = calloc((size_t)p.nring, sizeof *p.ring);
  if (!p.ring) return nmt_fail(NMT_EIO, "out of memory");
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  nmt_pool workers;
  int started = nmt_pool_start(&workers, 0, threads, worker, &p);
  int cur = 0, st = started ? NMT_OK : nmt_fail(NMT_EIO, "cannot start threads");
  long written = 0;
  for (;;) { /* read chunk `queued` into a free slot */
    if (stalled(in, nin, cur)) { /* answer everything read before waiting */
      while (written < p.queued) write_next(&p, &written, w, &st);
      if (st == NMT_OK) st = nmt_writer_flush(w);
    }
    if (p.queued - written == p.nring) write_next(&p, &written, w, &st);
    chunk *c = &p.ring[p.queued % p.nring];
    int r = st == NMT_OK ? fill(c, in, nin, &cur) : 0;
    if (r < 0) st = nmt_errcode();
    if (r <= 0) break;
    pthread_mutex_lock(&p.mu);
    c->state = QUEUED;
    p.queued++;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
  }
  while (written < p.queued) write_next(&p, &written, w, &st); /* the rest, in order */
  pthread_mutex_lock(&p.mu);
  p.stop = true;
  pthread_cond_broadcast(&p.cv);
  pthread_mutex_unlock(&p.mu);
  nmt_pool_join(&workers);
  for (int i = 0; i < p.nring; i++)
    free(p.ring[i].text.s), free(p.ring[i].start), free(p.ring[i].out.s);
  free(p.ring);
  pthread_mutex_destroy(&p.mu);
  pthread_cond_destroy(&p.cv);
  return st;
}

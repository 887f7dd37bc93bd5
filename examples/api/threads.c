/* Several caller threads translating with one translator at once (include/nmt.h,
 * "Threads"): THREADS threads each translate every line ROUNDS times, one line a
 * call, and every answer must equal the one-thread answer. Exit 0 when all do.
 *   cc threads.c $(pkg-config --cflags --libs nmt) -pthread -o threads
 *   ./threads m.bin --raw < test.fr */
#include <nmt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 4, ROUNDS = 3, MAX_LINES = 1000 };

static nmt_translator *t;
static char *lines[MAX_LINES], *want[MAX_LINES];
static int n;

/* line i's translation, malloc'd, or NULL with the error printed */
static char *translate(int i) {
  nmt_result *r;
  if (nmt_translator_translate(t, (const char *const *)&lines[i], 1, &r))
    return fprintf(stderr, "threads: line %d: %s\n", i + 1, nmt_last_error()), NULL;
  char *s = strdup(nmt_result_text(r, 0, 0));
  nmt_result_free(r);
  return s;
}

static void *worker(void *arg) {
  long bad = 0, k = (long)arg;
  for (int round = 0; round < ROUNDS; round++)
    for (int j = 0; j < n; j++) {
      int i = (j + (int)k) % n; /* each thread in another order */
      char *got = translate(i);
      if (!got || strcmp(got, want[i])) bad++, fprintf(stderr, "threads: thread %ld, line %d differs\n", k, i + 1);
      free(got);
    }
  return (void *)bad;
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: %s MODEL [--raw] < in\n", argv[0]), 1;
  nmt_translator_options o;
  nmt_translator_options_init(&o);
  o.raw = argc > 2 && !strcmp(argv[2], "--raw");
  if (nmt_translator_new(&t, (const char *const *)&argv[1], 1, &o))
    return fprintf(stderr, "threads: %s\n", nmt_last_error()), 2;
  char buf[65536];
  while (n < MAX_LINES && fgets(buf, sizeof buf, stdin)) {
    buf[strcspn(buf, "\n")] = 0;
    lines[n] = strdup(buf);
    if (!lines[n] || !(want[n] = translate(n))) return 3;
    n++;
  }
  pthread_t tid[THREADS];
  long bad = 0;
  for (long k = 0; k < THREADS; k++)
    if (pthread_create(&tid[k], NULL, worker, (void *)k)) return fprintf(stderr, "threads: no thread\n"), 3;
  for (int k = 0; k < THREADS; k++) {
    void *b;
    pthread_join(tid[k], &b);
    bad += (long)b;
  }
  printf("%d threads x %d rounds x %d lines: %ld differ\n", THREADS, ROUNDS, n, bad);
  nmt_translator_free(t);
  for (int i = 0; i < n; i++) free(lines[i]), free(want[i]);
  return bad != 0;
}

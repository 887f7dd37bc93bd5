/* The per-thread buffers of nn/thread_scratch.h: one pthread key for all uses. */
#include "nn/thread_scratch.h"
#include <pthread.h>
#include <stdlib.h>

static pthread_key_t key;
static pthread_once_t once = PTHREAD_ONCE_INIT;
typedef struct {
  float *p[NN_SCRATCHES];
  size_t floats[NN_SCRATCHES];
} scratch;

static void drop(void *v) {
  scratch *s = v;
  for (int i = 0; i < NN_SCRATCHES; i++) free(s->p[i]);
  free(s);
}
static void make_key(void) { pthread_key_create(&key, drop); }

float *nn_thread_scratch(nn_scratch_use use, size_t floats) {
  pthread_once(&once, make_key);
  scratch *s = pthread_getspecific(key);
  if (!s && (s = calloc(1, sizeof *s)) && pthread_setspecific(key, s)) free(s), s = NULL;
  if (!s) return NULL;
  if (s->floats[use] < floats) {
    float *p = NULL;
    if (posix_memalign((void **)&p, 64, floats * sizeof *p)) return NULL;
    free(s->p[use]);
    s->p[use] = p, s->floats[use] = floats;
  }
  return s->p[use];
}

/* The parameters on another backend: a copy made once (after init or load)
 * and copied back for checkpoints and the model file (nn/params.h). */
#include "base/err.h"
#include "nn/backend.h"
#include "nn/params.h"
#include <stdlib.h>
#include <string.h>

/* The buffers that travel: weights, gradients, the Adam moments and, when
 * kept, the weights' moving average (the fifth); the last three the shard's. */
static float **buffers(nn_params *p, int i) {
  float **b[] = {&p->w, &p->g, &p->m, &p->v, &p->ema};
  return b[i];
}
static int nbuffers(const nn_params *p) { return p->ema ? 5 : 4; }
static size_t floats(const nn_params *p, int i) { return i < 2 ? p->n : p->hi - p->lo; }

int nn_params_upload(nn_params *dev, const nn_params *host, const nn_backend *be) {
  *dev = (nn_params){.n = host->n, .nviews = host->nviews, .cap_views = host->nviews,
                     .lo = host->lo, .hi = host->hi, .step = host->step, .be = be};
  dev->views = malloc(sizeof *dev->views * (size_t)(host->nviews ? host->nviews : 1));
  if (!dev->views) return nmt_fail(NMT_EIO, "out of memory: parameter views");
  memcpy(dev->views, host->views, sizeof *dev->views * (size_t)host->nviews);
  for (int i = 0; i < nbuffers(host); i++) {
    if (!*buffers((nn_params *)host, i)) continue; /* an inference model's g, m, v */
    void *mem = NULL;
    size_t bytes = floats(host, i) * sizeof(float);
    int st = be->alloc(&mem, bytes ? bytes : sizeof(float));
    if (!st) *buffers(dev, i) = mem;
    if (!st) st = be->to_device(mem, *buffers((nn_params *)host, i), bytes);
    if (st) {
      nn_params_free(dev);
      return st;
    }
  }
  return NMT_OK;
}

int nn_params_download(nn_params *host, const nn_params *dev) {
  if (host->n != dev->n || host->lo != dev->lo || host->hi != dev->hi || host->nviews != dev->nviews ||
      nbuffers(host) != nbuffers(dev))
    return nmt_fail(NMT_EUSAGE, "parameters: %zu floats on %s, %zu on the host", dev->n,
                    dev->be ? dev->be->name : "cpu", host->n);
  for (int i = 0; i < nbuffers(dev); i++) {
    if (!*buffers((nn_params *)dev, i)) continue; /* absent on the host too (upload mirrors it) */
    int st = dev->be->to_host(*buffers(host, i), *buffers((nn_params *)dev, i), floats(host, i) * sizeof(float));
    if (st) return st;
  }
  host->step = dev->step;
  return NMT_OK;
}

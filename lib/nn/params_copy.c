/* The parameters on another backend: a copy made once (after init or load)
 * and copied back for checkpoints and the model file (nn/params.h). */
#include "base/err.h"
#include "nn/backend.h"
#include "nn/params.h"
#include <stdlib.h>
#include <string.h>

/* The buffers that travel: weights, gradients, the Adam moments and, when
 * kept, the weights' moving average (the fifth). */
static float **buffers(nn_params *p, int i) {
  float **b[] = {&p->w, &p->g, &p->m, &p->v, &p->ema};
  return b[i];
}
static int nbuffers(const nn_params *p) { return p->ema ? 5 : 4; }

int nn_params_upload(nn_params *dev, const nn_params *host, const nn_backend *be) {
  *dev = (nn_params){.n = host->n, .nviews = host->nviews, .cap_views = host->nviews,
                     .step = host->step, .be = be};
  size_t bytes = (host->n ? host->n : 1) * sizeof(float);
  dev->views = malloc(sizeof *dev->views * (size_t)(host->nviews ? host->nviews : 1));
  if (!dev->views) return nmt_fail(NMT_EIO, "out of memory: parameter views");
  memcpy(dev->views, host->views, sizeof *dev->views * (size_t)host->nviews);
  for (int i = 0; i < nbuffers(host); i++) {
    void *mem = NULL;
    int st = be->alloc(&mem, bytes);
    if (!st) *buffers(dev, i) = mem;
    if (!st) st = be->to_device(mem, *buffers((nn_params *)host, i), host->n * sizeof(float));
    if (st) {
      nn_params_free(dev);
      return st;
    }
  }
  return NMT_OK;
}

int nn_params_download(nn_params *host, const nn_params *dev) {
  if (host->n != dev->n || host->nviews != dev->nviews || nbuffers(host) != nbuffers(dev))
    return nmt_fail(NMT_EUSAGE, "parameters: %zu floats on %s, %zu on the host", dev->n,
                    dev->be ? dev->be->name : "cpu", host->n);
  for (int i = 0; i < nbuffers(dev); i++) {
    int st = dev->be->to_host(*buffers(host, i), *buffers((nn_params *)dev, i), host->n * sizeof(float));
    if (st) return st;
  }
  host->step = dev->step;
  return NMT_OK;
}

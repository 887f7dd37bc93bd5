/* Loading and freeing a translator, and the workers its calls borrow (include/nmt.h). */
#include "api/api.h"
#include "base/err.h"
#include "nn/backend.h"
#include "nn/device.h"
#include "nn/params.h"
#include <stdlib.h>
#include <string.h>

/* The caller's options over the defaults: only the fields its nmt_translator_options has (size). */
static int take_options(nmt_translator_options *to, const nmt_translator_options *from) {
  nmt_translator_options_init(to);
  if (!from) return NMT_OK;
  if (from->size < offsetof(nmt_translator_options, threads) + sizeof from->threads)
    return nmt_fail(NMT_EUSAGE, "nmt_translator_options: size %zu is too small (call nmt_translator_options_init first)", from->size);
  memcpy(to, from, from->size < sizeof *to ? from->size : sizeof *to);
  to->size = sizeof *to;
  if (to->threads < 1 || to->threads > NMT_MAX_DECODE_THREADS)
    return nmt_fail(NMT_EUSAGE, "threads must be between 1 and %d (got %d)", NMT_MAX_DECODE_THREADS, to->threads);
  if (to->beam_size < 1 || to->beam_size > 1000)
    return nmt_fail(NMT_EUSAGE, "beam_size must be between 1 and 1000 (got %d)", to->beam_size);
  if (!(to->normalize >= 0 && to->normalize <= 10))
    return nmt_fail(NMT_EUSAGE, "normalize must be between 0 and 10 (got %g)", to->normalize);
  if (!(to->max_length_factor > 0 && to->max_length_factor <= 100))
    return nmt_fail(NMT_EUSAGE, "max_length_factor must be > 0 and <= 100 (got %g)", to->max_length_factor);
  if (to->max_length < 1 || to->mini_batch < 1 || to->mini_batch > 10000 || to->shortlist < 0)
    return nmt_fail(NMT_EUSAGE, "max_length and mini_batch (at most 10000) must be >= 1, shortlist >= 0");
  return NMT_OK;
}

/* The options' strings, read now and not kept: the alignment's kind, and the device's
 * backend (the GPU then counted as used by t). */
static int take_strings(nmt_translator *t, const nmt_translator_options *o, const nn_backend **be) {
  const char *align = o->alignment, *device = o->device;
  t->o.alignment = t->o.device = NULL;
  *be = &nn_cpu_backend;
  if (align && nmt_align_parse(align, &t->align, &t->align_threshold))
    return nmt_fail(NMT_EUSAGE, "alignment '%s': expected hard, soft or a threshold in (0, 1]", align);
  if (device && nmt_device_parse(device, &(nmt_device){0})) return NMT_EUSAGE;
  if (device && strcmp(device, "cpu") && (t->o.int8 || t->o.shortlist)) /* as nmt-decode --device */
    return nmt_fail(NMT_EUSAGE, "int8 and shortlist run on the CPU only (device '%s')", device);
  int st = api_device_open(device, be);
  t->on_gpu = !st && *be != &nn_cpu_backend;
  if (t->on_gpu) t->o.threads = 1; /* the GPU's one stream: one decoding thread, as nmt-decode's */
  return st;
}

static int load(nmt_translator *t, const char *const *models, int n, const nn_backend *be) {
  if (!models || n < 1 || n > NMT_MAX_MODELS)
    return nmt_fail(NMT_EUSAGE, "give between 1 and %d model files (got %d)", NMT_MAX_MODELS, n);
  for (int i = 0; i < n; i++)
    if (!models[i]) return nmt_fail(NMT_EUSAGE, "model file %d is NULL", i);
  if (!(t->path = strdup(models[0]))) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_ensemble_load(&t->e, models, n, NULL, 0);
  if (st) return st;
  for (int i = 0; i < t->e.n && !st && t->o.int8; i++) st = nn_params_quantize(&t->e.model[i].params);
  if (!st && t->align) st = nmt_attention_check(&t->e.dec);
  if (!st) st = nmt_ensemble_upload(&t->e, be);
  /* the text state is per worker; one now checks that the options suit the model */
  api_worker *w = NULL;
  if (!st) st = api_worker_take(t, &w);
  if (w) api_worker_give(t, w);
  return st;
}

nmt_status nmt_translator_new(nmt_translator **t, const char *const *models, int n_models, const nmt_translator_options *o) {
  if (!t) return api_status(nmt_fail(NMT_EUSAGE, "nmt_translator_new: NULL handle"));
  *t = NULL;
  nmt_translator *x = calloc(1, sizeof *x);
  if (!x) return api_status(nmt_fail(NMT_EIO, "out of memory"));
  bool loaded = false;
  const nn_backend *be = NULL;
  int st = take_options(&x->o, o);
  if (!st) st = take_strings(x, &x->o, &be);
  if (!st && pthread_mutex_init(&x->lock, NULL)) st = nmt_fail(NMT_EIO, "cannot make a mutex");
  if (!st) st = load(x, models, n_models, be), loaded = true;
  if (st) {
    if (!loaded && x->on_gpu) api_device_close();
    if (loaded) nmt_translator_free(x);
    else free(x);
    return api_status(st);
  }
  *t = x;
  return NMT_STATUS_OK;
}

void nmt_translator_free(nmt_translator *t) {
  if (!t) return;
  for (api_worker *w = t->idle, *next; w; w = next) next = w->next, api_worker_free(w);
  if (t->e.n) nmt_ensemble_free(&t->e);
  if (t->on_gpu) api_device_close(); /* after its weights left the GPU */
  pthread_mutex_destroy(&t->lock);
  free(t->path);
  free(t);
}

void api_worker_free(api_worker *w) {
  if (!w) return;
  for (int i = 0; i < NMT_MAX_DECODE_THREADS; i++) nmt_dec_free(&w->dec[i]);
  nmt_text_free(w->text);
  free(w);
}

int api_worker_take(nmt_translator *t, api_worker **w) {
  pthread_mutex_lock(&t->lock);
  *w = t->idle;
  if (*w) t->idle = (*w)->next;
  pthread_mutex_unlock(&t->lock);
  if (*w) return NMT_OK;
  if (!(*w = calloc(1, sizeof **w))) return nmt_fail(NMT_EIO, "out of memory");
  int st = nmt_text_new(&(*w)->text, &t->e.model[0], t->path, t->o.raw, t->o.postprocess);
  if (st) api_worker_free(*w), *w = NULL;
  return st;
}

void api_worker_give(nmt_translator *t, api_worker *w) {
  pthread_mutex_lock(&t->lock);
  w->next = t->idle;
  t->idle = w;
  pthread_mutex_unlock(&t->lock);
}

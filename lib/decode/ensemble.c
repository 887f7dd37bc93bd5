/* Loading and checking an ensemble; see decode/ensemble.h. */
#include "decode/ensemble.h"
#include "base/err.h"
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* weights[0..nw) as numbers over their sum into w (n); nw = 0: 1/n each. Each is
 * taken over the largest first, so huge weights (1e308 1e308) cannot overflow the
 * sum; one too small beside the largest to leave a float share is refused. */
static int parse_weights(float *w, int n, const char *const *weights, int nw) {
  if (nw && nw != n) return nmt_fail(NMT_EUSAGE, "--weights gives %d numbers for %d models", nw, n);
  double v[NMT_MAX_MODELS], max = 0, sum = 0;
  for (int i = 0; i < n; i++) {
    char *end;
    errno = 0;
    v[i] = nw ? strtod(weights[i], &end) : 1.0;
    if (nw && (end == weights[i] || *end || errno || !isfinite(v[i]) || v[i] <= 0))
      return nmt_fail(NMT_EUSAGE, "--weights '%s': expected a positive number", weights[i]);
    if (v[i] > max) max = v[i];
  }
  for (int i = 0; i < n; i++) sum += v[i] / max; /* in [1, n] */
  for (int i = 0; i < n; i++) {
    w[i] = (float)(v[i] / max / sum);
    if (!(w[i] > 0))
      return nmt_fail(NMT_EUSAGE, "--weights '%s': too small beside the largest weight to count", weights[i]);
  }
  return NMT_OK;
}

/* NMT_OK when b's target vocabulary is a's, else NMT_EUSAGE naming b and the difference. */
static int same_target(const nmt_vocab *a, const char *apath, const nmt_vocab *b, const char *bpath) {
  int na = nmt_vocab_size(a), nb = nmt_vocab_size(b);
  if (na != nb)
    return nmt_fail(NMT_EUSAGE,
                    "%s: its target vocabulary has %d tokens, %s's %d: an ensemble needs one target vocabulary", bpath,
                    nb, apath, na);
  for (int id = 0; id < na; id++)
    if (strcmp(nmt_vocab_token(a, id), nmt_vocab_token(b, id)))
      return nmt_fail(NMT_EUSAGE, "%s: target token %d is '%s', in %s '%s': an ensemble needs one target vocabulary",
                      bpath, id, nmt_vocab_token(b, id), apath, nmt_vocab_token(a, id));
  return NMT_OK;
}

/* The first model's source ids → b's, or NULL (*map) when the vocabularies are the same. */
static int source_map(int **map, const nmt_vocab *a, const nmt_vocab *b) {
  int na = nmt_vocab_size(a), id = 0;
  *map = NULL;
  if (na == nmt_vocab_size(b))
    while (id < na && !strcmp(nmt_vocab_token(a, id), nmt_vocab_token(b, id))) id++;
  if (id == na) return NMT_OK;
  if (!(*map = malloc(sizeof **map * (size_t)na))) return nmt_fail(NMT_EIO, "out of memory");
  for (id = 0; id < na; id++) {
    const char *t = nmt_vocab_token(a, id);
    (*map)[id] = nmt_vocab_id(b, t, strlen(t));
  }
  return NMT_OK;
}

int nmt_ensemble_load(nmt_ensemble *e, const char *const *paths, int n, const char *const *weights, int nw) {
  memset(e, 0, sizeof *e);
  if (n < 1 || n > NMT_MAX_MODELS) return nmt_fail(NMT_EUSAGE, "%d models: an ensemble has 1 to %d", n, NMT_MAX_MODELS);
  int st = parse_weights(e->dec.weight, n, weights, nw);
  if (!st && !(e->model = calloc((size_t)n, sizeof *e->model))) st = nmt_fail(NMT_EIO, "out of memory");
  for (int i = 0; i < n && !st; i++) {
    if ((st = nmt_model_load(&e->model[i], paths[i])) || (st = nmt_model_open_spm(&e->model[i], paths[i]))) break;
    e->n = i + 1;
    if (i) st = same_target(e->model[0].tgt, paths[0], e->model[i].tgt, paths[i]);
    if (!st && i) st = source_map(&e->src_map[i], e->model[0].src, e->model[i].src);
    e->dec.net[i] = &e->model[i].net, e->dec.p[i] = &e->model[i].params, e->dec.src_map[i] = e->src_map[i];
  }
  e->dec.n = e->n;
  if (st) nmt_ensemble_free(e);
  return st;
}

int nmt_ensemble_upload(nmt_ensemble *e, const nn_backend *be) {
  int st = NMT_OK;
  if (be == &nn_cpu_backend) { /* the float weights packed for the CPU's products */
    for (int i = 0; i < e->n && !st; i++)
      if (!e->model[i].params.q) st = nn_params_pack(&e->model[i].params);
    return st;
  }
  e->on_device = true;
  for (int i = 0; i < e->n && !st; i++)
    if (!(st = nn_params_upload(&e->dev[i], &e->model[i].params, be))) e->dec.p[i] = &e->dev[i];
  return st;
}

void nmt_ensemble_free(nmt_ensemble *e) {
  for (int i = 0; e->on_device && i < e->n; i++) nn_params_free(&e->dev[i]);
  for (int i = 0; i < e->n; i++) nmt_model_free(&e->model[i]), free(e->src_map[i]);
  free(e->model);
  memset(e, 0, sizeof *e);
}

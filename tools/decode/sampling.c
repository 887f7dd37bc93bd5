/* nmt-decode --output-sampling: which sampling, and the options that go with it. */
#include "base/err.h"
#include "decode_tool.h"
#include <stdlib.h>
#include <string.h>

/* A number of the option's values: the whole of v, within [lo, hi] (lo excluded when open). */
static bool number(const char *v, double lo, double hi, bool open, double *x) {
  char *end;
  *x = strtod(v, &end);
  return end != v && !*end && (open ? *x > lo : *x >= lo) && *x <= hi;
}

int decode_sampling_parse(decode_args *a, bool temperature_given, bool seed_given) {
  const nmt_strlist *v = &a->output_sampling;
  if (!v->n) {
    if (temperature_given || seed_given)
      return nmt_fail(NMT_EUSAGE, "%s goes with --output-sampling: beam search draws nothing",
                      temperature_given ? "--temperature" : "--seed");
    return NMT_OK;
  }
  bool topk = !strcmp(v->v[0], "topk"), full = !strcmp(v->v[0], "full");
  int n = v->n - topk; /* the values after the kind and K: a temperature, Marian's way */
  double k = 0, t = a->temperature;
  if ((!topk && !full) || n > 2 || (topk && (v->n < 2 || !number(v->v[1], 1, NMT_SAMPLE_TOPK_MAX, false, &k) ||
                                             k != (double)(long)k)))
    return nmt_fail(NMT_EUSAGE, "--output-sampling: expected full [T] or topk K [T] (K an integer from 1 to %d), "
                    "got '%s%s%s'", NMT_SAMPLE_TOPK_MAX, v->v[0], v->n > 1 ? " " : "", v->n > 1 ? v->v[1] : "");
  if (n == 2 && temperature_given)
    return nmt_fail(NMT_EUSAGE, "--output-sampling's temperature '%s' and --temperature: give one", v->v[v->n - 1]);
  if (n == 2 && !number(v->v[v->n - 1], 0, NMT_SAMPLE_TEMPERATURE_MAX, true, &t))
    return nmt_fail(NMT_EUSAGE, "--output-sampling: temperature '%s': expected a number > 0 and <= %g", v->v[v->n - 1],
                    NMT_SAMPLE_TEMPERATURE_MAX);
  a->sampling = (nmt_sampling){topk ? NMT_SAMPLE_TOPK : NMT_SAMPLE_FULL, (int)k, (float)t};
  return NMT_OK;
}

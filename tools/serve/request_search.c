/* A request's search: "beam_size" (with sampling, the samples drawn), "sampling" ("full" or
 * "topk K", nmt-decode --output-sampling's values), "temperature", "seed", and each
 * sentence's "prefix" (nmt-decode --prefix's lines), in the shape of "text". */
#include "serve_tool.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "sampling"'s value: "full" or "topk K" (K >= 1); false for another. */
static bool sampling_kind(const json_t *v, nmt_sampling *s) {
  const char *x = json_is_string(v) ? json_string_value(v) : "";
  long k = 0;
  char tail;
  if (!strcmp(x, "full")) return s->kind = NMT_SAMPLE_FULL, true;
  if (sscanf(x, "topk %ld%c", &k, &tail) != 1 || k < 1 || k > NMT_SAMPLE_TOPK_MAX || strncmp(x, "topk ", 5)) return false;
  s->kind = NMT_SAMPLE_TOPK, s->topk = (int)k;
  return true;
}

int serve_req_search_field(serve_req *r, const char *key, json_t *v, const serve_args *a) {
  if (!strcmp(key, "beam_size")) {
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > a->max_beam)
      return serve_req_bad(r, 400, "\"beam_size\": expected an integer from 1 to %ld (--max-beam-size)", a->max_beam);
    r->beam = (int)json_integer_value(v);
  } else if (!strcmp(key, "sampling")) {
    if (!sampling_kind(v, &r->sampling))
      return serve_req_bad(r, 400, "\"sampling\": expected \"full\" or \"topk K\" (K from 1 to %d)", NMT_SAMPLE_TOPK_MAX);
  } else if (!strcmp(key, "temperature")) {
    double t = json_is_number(v) ? json_number_value(v) : -1;
    if (!(t > 0 && t <= NMT_SAMPLE_TEMPERATURE_MAX))
      return serve_req_bad(r, 400, "\"temperature\": expected a number > 0 and <= %g", NMT_SAMPLE_TEMPERATURE_MAX);
    r->sampling.temperature = (float)t;
  } else if (!strcmp(key, "seed")) {
    if (!json_is_integer(v) || json_integer_value(v) < 0)
      return serve_req_bad(r, 400, "\"seed\": expected an integer >= 0");
    r->seed = (uint64_t)json_integer_value(v), r->seed_given = true;
  } else {
    return -1;
  }
  return 0;
}

int serve_req_search_check(serve_req *r) {
  bool tuned = r->sampling.temperature > 0 || r->seed_given;
  if (!r->sampling.kind && tuned)
    return serve_req_bad(r, 400, "\"%s\" goes with \"sampling\": beam search draws nothing",
                         r->sampling.temperature > 0 ? "temperature" : "seed");
  if (!r->sampling.temperature) r->sampling.temperature = 1;
  return 0;
}

int serve_req_prefix(serve_req *r, json_t *v) {
  if (!v) return 0;
  if (r->list != json_is_array(v) || (r->list && json_array_size(v) != (size_t)r->n))
    return serve_req_bad(r, 400, "\"prefix\": expected the shape of \"text\": %s", r->list ? "a list of as many strings"
                                                                                           : "a string");
  if (!(r->prefix = calloc((size_t)r->n + 1, sizeof *r->prefix))) return serve_req_bad(r, 500, "out of memory");
  for (int i = 0; i < r->n; i++) {
    json_t *p = r->list ? json_array_get(v, (size_t)i) : v;
    char where[32] = "\"prefix\"";
    if (r->list) snprintf(where, sizeof where, "\"prefix\"[%d]", i);
    if (!json_is_string(p)) return serve_req_bad(r, 400, "%s: expected a string", where);
    if (strpbrk(json_string_value(p), "\n\r")) return serve_req_bad(r, 400, "%s: a line break", where);
    r->prefix[i] = json_string_value(p);
  }
  return 0;
}

/* One sentence's phrases (a list of strings) joined by tabs into *out. */
static int join_phrases(serve_req *r, json_t *v, const char *where, char **out) {
  size_t len = 0;
  if (!json_is_array(v)) return serve_req_bad(r, 400, "%s: expected a list of phrases", where);
  for (size_t k = 0; k < json_array_size(v); k++) {
    json_t *p = json_array_get(v, k);
    if (!json_is_string(p) || !json_string_length(p) || strpbrk(json_string_value(p), "\t\n\r"))
      return serve_req_bad(r, 400, "%s[%zu]: expected a phrase (a string without tabs or line breaks)", where, k);
    len += json_string_length(p) + 1;
  }
  if (!json_array_size(v)) return 0;
  if (!(*out = malloc(len))) return serve_req_bad(r, 500, "out of memory");
  char *at = *out;
  for (size_t k = 0; k < json_array_size(v); k++) {
    json_t *p = json_array_get(v, k);
    at += sprintf(at, "%s%s", k ? "\t" : "", json_string_value(p));
  }
  return 0;
}

int serve_req_constraints(serve_req *r, json_t *v) {
  if (!v) return 0;
  if (r->sampling.kind != NMT_SAMPLE_NONE)
    return serve_req_bad(r, 400, "\"constraints\" with \"sampling\": a sample cannot be made to hold them");
  if (r->list && (!json_is_array(v) || json_array_size(v) != (size_t)r->n))
    return serve_req_bad(r, 400, "\"constraints\": expected a list of as many lists of phrases as \"text\" has");
  if (!(r->cons = calloc((size_t)r->n + 1, sizeof *r->cons))) return serve_req_bad(r, 500, "out of memory");
  for (int i = 0; i < r->n; i++) {
    char where[40] = "\"constraints\"";
    if (r->list) snprintf(where, sizeof where, "\"constraints\"[%d]", i);
    if (join_phrases(r, r->list ? json_array_get(v, (size_t)i) : v, where, &r->cons[i])) return r->status;
  }
  return 0;
}

bool serve_req_same_search(const serve_req *a, const serve_req *b) {
  return a->beam == b->beam && a->sampling.kind == b->sampling.kind && a->sampling.topk == b->sampling.topk &&
         a->sampling.temperature == b->sampling.temperature;
}

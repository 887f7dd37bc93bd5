/* A translation request's JSON in and out: {"text": "s" | ["s", ...], "beam_size": K,
 * "n_best": bool, "alignment": bool | "hard" | "soft" | "svg", and the search's fields
 * (request_search.c)} -> {"translation": ..., "n_best": ..., "alignment": ...}, each
 * answer field in the shape "text" had. */
#include "base/clock.h"
#include "base/utf8.h"
#include "serve_tool.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The request's error: its message, cut to r->err on a character's boundary, and
 * its input's bytes (a key, a path) made valid UTF-8, so that its JSON can be built. */
int serve_req_bad(serve_req *r, int status, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  nmt_utf8_copy(r->err, sizeof r->err, msg, strlen(msg));
  return r->status = status;
}

static int count_words(const char *s) {
  int n = 0;
  for (bool in = false; *s; s++) {
    bool space = *s == ' ' || *s == '\t';
    n += !space && !in;
    in = !space;
  }
  return n;
}

/* One sentence: a string of one line, within the word limit. */
static int take_sentence(serve_req *r, int i, json_t *v, const serve_args *a) {
  char where[32] = "\"text\"";
  if (r->list) snprintf(where, sizeof where, "\"text\"[%d]", i);
  if (!json_is_string(v)) return serve_req_bad(r, 400, "%s: expected a string", where);
  r->src[i] = json_string_value(v);
  if (strpbrk(r->src[i], "\n\r")) return serve_req_bad(r, 400, "%s: a line break; send one sentence per string", where);
  r->words[i] = count_words(r->src[i]);
  if (r->words[i] > a->max_sentence_words)
    return serve_req_bad(r, 413, "%s: %d words, more than the server's limit of %ld (--max-sentence-words)", where, r->words[i],
               a->max_sentence_words);
  return 0;
}

/* "alignment"'s value, or -1. */
static int alignment_kind(const json_t *v) {
  static const char *const kinds[] = {"hard", "soft", "svg"};
  if (json_is_boolean(v)) return json_is_true(v) ? SERVE_ALIGN_HARD : SERVE_ALIGN_NONE;
  for (int k = 0; json_is_string(v) && k < 3; k++)
    if (!strcmp(json_string_value(v), kinds[k])) return SERVE_ALIGN_HARD + k;
  return -1;
}

/* Commas outside strings. A request of N sentences has N - 1, N - 1 more in a list of
 * prefixes, and at most 7 more (between its 8 fields): with more than 2 ×
 * --max-request-sentences + 5 it is refused before jansson builds a value of ~90 bytes
 * for each 3-byte "" of the body. */
static size_t commas(const char *s, size_t n) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] == ',') k++;
    else if (s[i] == '"')
      for (i++; i < n && s[i] != '"'; i++) i += s[i] == '\\';
  }
  return k;
}

static int too_many(serve_req *r, const serve_args *a) {
  return serve_req_bad(r, 413, "more than %ld sentences in one request (--max-request-sentences)", a->max_request_sentences);
}

/* r->out, and r->nbest and r->align where asked: a sentence's answers, "" (one
 * string shared by all) or [] until the batcher sets them. */
static int answer_arrays(serve_req *r) {
  json_t *empty = json_string("");
  r->out = json_array(), r->nbest = json_array(), r->align = json_array();
  bool ok = empty && r->out && r->nbest && r->align;
  for (int i = 0; ok && i < r->n; i++)
    ok = !json_array_append(r->out, empty) && (!r->n_best || !json_array_append_new(r->nbest, json_array())) &&
         (!r->alignment || !json_array_append(r->align, empty));
  json_decref(empty);
  return ok ? 0 : serve_req_bad(r, 500, "out of memory");
}

int serve_req_load(serve_req *r, const char *body, size_t len, const serve_args *a) {
  *r = (serve_req){.beam = (int)a->beam, .seed = SERVE_DEFAULT_SEED};
  if (commas(body, len) > 2 * (size_t)a->max_request_sentences + 5) return too_many(r, a);
  json_error_t e;
  if (!(r->json = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e)))
    return serve_req_bad(r, 400, "bad JSON at line %d, column %d: %s", e.line, e.column, e.text);
  if (!json_is_object(r->json)) return serve_req_bad(r, 400, "expected a JSON object such as {\"text\": \"a sentence\"}");
  return 0;
}

int serve_req_parse(serve_req *r, const char *body, size_t len, const serve_args *a, bool has_attention) {
  int st = serve_req_load(r, body, len, a);
  return st ? st : serve_req_take(r, a, has_attention);
}

int serve_req_take(serve_req *r, const serve_args *a, bool has_attention) {
  const char *key;
  json_t *v;
  json_object_foreach(r->json, key, v) {
    int st = serve_req_search_field(r, key, v, a);
    if (st >= 0) {
      if (st) return st;
    } else if (!strcmp(key, "n_best")) {
      if (!json_is_boolean(v)) return serve_req_bad(r, 400, "\"n_best\": expected true or false");
      r->n_best = json_is_true(v);
    } else if (!strcmp(key, "alignment")) {
      int k = alignment_kind(v);
      if (k < 0) return serve_req_bad(r, 400, "\"alignment\": expected true, false, \"hard\", \"soft\" or \"svg\"");
      r->alignment = (serve_align)k;
    } else if (!strcmp(key, "timeout_ms")) { /* answered within it, or 504 */
      if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 86400000)
        return serve_req_bad(r, 400, "\"timeout_ms\": expected an integer from 1 to 86400000 (a day)");
      r->deadline = nmt_seconds() + 1e-3 * (double)json_integer_value(v);
    } else if (strcmp(key, "text") && strcmp(key, "prefix") && strcmp(key, "constraints")) {
      return serve_req_bad(r, 400, "unknown field \"%s\" (known: text, prefix, constraints, beam_size, n_best, alignment, sampling, "
                 "temperature, seed, timeout_ms)", key);
    }
  }
  if (serve_req_search_check(r)) return r->status;
  if (r->alignment && !has_attention) return serve_req_bad(r, 400, "\"alignment\": the model has no attention");
  json_t *text = json_object_get(r->json, "text");
  if (!text) return serve_req_bad(r, 400, "\"text\" is missing: expected {\"text\": \"a sentence\"} or {\"text\": [\"a\", \"b\"]}");
  r->list = json_is_array(text);
  if (r->list && json_array_size(text) > (size_t)a->max_request_sentences) return too_many(r, a);
  r->n = r->list ? (int)json_array_size(text) : 1;
  r->src = calloc((size_t)r->n + 1, sizeof *r->src);
  r->words = calloc((size_t)r->n + 1, sizeof *r->words);
  if (!r->src || !r->words) return serve_req_bad(r, 500, "out of memory");
  for (int i = 0; i < r->n; i++) {
    int st = take_sentence(r, i, r->list ? json_array_get(text, (size_t)i) : text, a);
    if (st) return st;
  }
  if (serve_req_prefix(r, json_object_get(r->json, "prefix"))) return r->status;
  if (serve_req_constraints(r, json_object_get(r->json, "constraints"))) return r->status;
  r->left = r->n;
  return answer_arrays(r);
}

/* a, or its only element when the request's text was one string. */
static json_t *shaped(const serve_req *r, json_t *a) {
  return r->list ? json_incref(a) : json_incref(json_array_get(a, 0));
}

char *serve_req_answer(const serve_req *r) {
  json_t *o = json_object();
  if (!o) return NULL;
  json_object_set_new(o, "translation", shaped(r, r->out));
  if (r->n_best) json_object_set_new(o, "n_best", shaped(r, r->nbest));
  if (r->alignment) json_object_set_new(o, "alignment", shaped(r, r->align));
  char *s = json_dumps(o, JSON_COMPACT);
  json_decref(o);
  return s;
}

void serve_req_free(serve_req *r) {
  json_decref(r->json), json_decref(r->out), json_decref(r->nbest), json_decref(r->align);
  for (int i = 0; r->cons && i < r->n; i++) free(r->cons[i]);
  free(r->src), free(r->words), free(r->prefix), free(r->cons);
}

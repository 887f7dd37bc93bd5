/* A translation request's JSON in and out: {"text": "s" | ["s", ...], "beam_size": K,
 * "n_best": bool, "alignment": bool | "hard" | "soft" | "svg"} -> {"translation":
 * ..., "n_best": ..., "alignment": ...}, each answer field in the shape "text" had. */
#include "serve_tool.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int bad(serve_req *r, int status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(r->err, sizeof r->err, fmt, ap);
  va_end(ap);
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
  if (!json_is_string(v)) return bad(r, 400, "%s: expected a string", where);
  r->src[i] = json_string_value(v);
  if (strpbrk(r->src[i], "\n\r")) return bad(r, 400, "%s: a line break; send one sentence per string", where);
  r->words[i] = count_words(r->src[i]);
  if (r->words[i] > a->max_sentence_words)
    return bad(r, 413, "%s: %d words, more than the server's limit of %ld (--max-sentence-words)", where, r->words[i],
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

int serve_req_parse(serve_req *r, const char *body, size_t len, const serve_args *a, bool has_attention) {
  *r = (serve_req){.beam = (int)a->beam};
  json_error_t e;
  if (!(r->json = json_loadb(body, len, 0, &e)))
    return bad(r, 400, "bad JSON at line %d, column %d: %s", e.line, e.column, e.text);
  if (!json_is_object(r->json)) return bad(r, 400, "expected a JSON object such as {\"text\": \"a sentence\"}");
  const char *key;
  json_t *v;
  json_object_foreach(r->json, key, v) {
    if (!strcmp(key, "beam_size")) {
      if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > a->max_beam)
        return bad(r, 400, "\"beam_size\": expected an integer from 1 to %ld (--max-beam-size)", a->max_beam);
      r->beam = (int)json_integer_value(v);
    } else if (!strcmp(key, "n_best")) {
      if (!json_is_boolean(v)) return bad(r, 400, "\"n_best\": expected true or false");
      r->n_best = json_is_true(v);
    } else if (!strcmp(key, "alignment")) {
      int k = alignment_kind(v);
      if (k < 0) return bad(r, 400, "\"alignment\": expected true, false, \"hard\", \"soft\" or \"svg\"");
      r->alignment = (serve_align)k;
    } else if (strcmp(key, "text")) {
      return bad(r, 400, "unknown field \"%s\" (known: text, beam_size, n_best, alignment)", key);
    }
  }
  if (r->alignment && !has_attention) return bad(r, 400, "\"alignment\": the model has no attention");
  json_t *text = json_object_get(r->json, "text");
  if (!text) return bad(r, 400, "\"text\" is missing: expected {\"text\": \"a sentence\"} or {\"text\": [\"a\", \"b\"]}");
  r->list = json_is_array(text);
  r->n = r->list ? (int)json_array_size(text) : 1;
  r->src = calloc((size_t)r->n + 1, sizeof *r->src);
  r->words = calloc((size_t)r->n + 1, sizeof *r->words);
  r->out = json_array(), r->nbest = json_array(), r->align = json_array();
  if (!r->src || !r->words || !r->out || !r->nbest || !r->align) return bad(r, 500, "out of memory");
  for (int i = 0; i < r->n; i++) {
    int st = take_sentence(r, i, r->list ? json_array_get(text, (size_t)i) : text, a);
    if (!st && (json_array_append_new(r->out, json_string("")) || json_array_append_new(r->nbest, json_array()) ||
                json_array_append_new(r->align, json_string(""))))
      st = bad(r, 500, "out of memory");
    if (st) return st;
  }
  r->left = r->n;
  return 0;
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
  free(r->src), free(r->words);
}

/* LibreTranslate's API on nmt-serve: POST /translate {"q": "text" | ["a", "b"], "source":
 * "auto" | LANG, "target": LANG, "format": "text"} -> {"translatedText": ...} in the shape
 * of "q", and GET /languages. The request becomes the JSON API's {"text": q}. */
#include "serve_tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ISO 639-1 codes and their English names; another code is named by itself. */
static const char *const NAMES[][2] = {
    {"ar", "Arabic"},  {"cs", "Czech"},    {"da", "Danish"},     {"de", "German"},    {"el", "Greek"},
    {"en", "English"}, {"es", "Spanish"},  {"fi", "Finnish"},    {"fr", "French"},    {"hu", "Hungarian"},
    {"it", "Italian"}, {"ja", "Japanese"}, {"ko", "Korean"},     {"nl", "Dutch"},     {"pl", "Polish"},
    {"pt", "Portuguese"}, {"ro", "Romanian"}, {"ru", "Russian"}, {"sv", "Swedish"},   {"tr", "Turkish"},
    {"uk", "Ukrainian"}, {"zh", "Chinese"}};

static const char *lang_name(const char *code) {
  for (size_t i = 0; i < sizeof NAMES / sizeof *NAMES; i++)
    if (!strcmp(NAMES[i][0], code)) return NAMES[i][1];
  return code;
}

char *serve_lt_languages(const serve_args *a) {
  json_t *l = json_array();
  if (l && a->src_lang && a->tgt_lang)
    json_array_append_new(l, json_pack("{s:s, s:s, s:[s]}", "code", a->src_lang, "name", lang_name(a->src_lang),
                                       "targets", a->tgt_lang));
  char *s = l ? json_dumps(l, JSON_COMPACT) : NULL;
  json_decref(l);
  return s;
}

/* A field that must be a string: its value, or NULL (r->err set). */
static const char *string_field(serve_req *r, const char *key, const char *dflt) {
  json_t *v = json_object_get(r->json, key);
  if (!v && dflt) return dflt;
  if (!json_is_string(v)) return serve_req_bad(r, 400, "\"%s\": expected a string%s", key, v ? "" : " (it is missing)"), NULL;
  return json_string_value(v);
}

/* "source", "target" and "format": 0, or 400 with what the server translates. */
static int check_langs(serve_req *r, const serve_args *a, bool *auto_source) {
  const char *src = string_field(r, "source", NULL), *tgt = src ? string_field(r, "target", NULL) : NULL;
  const char *format = tgt ? string_field(r, "format", "text") : NULL;
  if (!format) return r->status;
  const char *s = a->src_lang ? a->src_lang : "?", *t = a->tgt_lang ? a->tgt_lang : "?";
  *auto_source = !strcmp(src, "auto");
  if ((!*auto_source && strcmp(src, s)) || strcmp(tgt, t))
    return serve_req_bad(r, 400, "\"source\" %s, \"target\" %s: this server translates %s to %s (GET /languages)", src,
                         tgt, s, t);
  if (strcmp(format, "text"))
    return serve_req_bad(r, 400, "\"format\": %s is not served (only \"text\": plain text)", format);
  return 0;
}

int serve_lt_request(serve_req *r, const serve_args *a, bool *auto_source) {
  const char *key;
  json_t *v;
  json_object_foreach(r->json, key, v) {
    if (strcmp(key, "q") && strcmp(key, "source") && strcmp(key, "target") && strcmp(key, "format"))
      return serve_req_bad(r, 400, "unknown field \"%s\" (LibreTranslate's API: q, source, target, format, api_key)", key);
  }
  if (check_langs(r, a, auto_source)) return r->status;
  json_t *text = json_pack("{s:O}", "text", json_object_get(r->json, "q"));
  if (!text) return serve_req_bad(r, 500, "out of memory");
  json_decref(r->json);
  r->json = text;
  return 0;
}

char *serve_lt_answer(const serve_req *r, bool auto_source, const char *src_lang) {
  json_t *o = json_pack("{s:O}", "translatedText", r->list ? r->out : json_array_get(r->out, 0));
  json_t *d = auto_source && o ? json_pack("{s:i, s:s}", "confidence", 100, "language", src_lang ? src_lang : "") : NULL;
  if (d && r->list) {
    json_t *all = json_array();
    for (int i = 0; all && i < r->n; i++) json_array_append(all, d);
    json_decref(d), d = all;
  }
  if (d) json_object_set_new(o, "detectedLanguage", d);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return s;
}

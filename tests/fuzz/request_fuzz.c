/* libFuzzer target: nmt-serve's request bodies (tools/serve/request.c), the bytes the
 * server hands serve_req_parse, under small limits; for a request it takes, the answer
 * with made-up translations (each source itself), so the answer's shapes are built too.
 * Every error message must be valid UTF-8: the server sends it as JSON. */
#include "serve/serve_tool.h"
#include "base/utf8.h"
#include <stdlib.h>
#include <string.h>

/* What the batcher would have written: each sentence's translation, a one-hypothesis
 * n-best list and an alignment where asked. */
static void translate(serve_req *r) {
  for (int i = 0; i < r->n; i++) {
    json_array_set_new(r->out, (size_t)i, json_string(r->src[i]));
    if (r->n_best)
      json_array_append_new(json_array_get(r->nbest, (size_t)i),
                            json_pack("{s:s, s:f}", "translation", r->src[i], "score", -1.5));
    if (r->alignment) json_array_set_new(r->align, (size_t)i, json_string("0-0"));
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const serve_args a = {.max_request_sentences = 8, .max_sentence_words = 6, .beam = 2, .max_beam = 4};
  serve_req r;
  if (serve_req_parse(&r, (const char *)data, size, &a, true)) {
    size_t n = strlen(r.err);
    if (!n || nmt_utf8_invalid(r.err, n) != n) abort();
  } else {
    if (r.n > a.max_request_sentences) abort();
    translate(&r);
    char *s = serve_req_answer(&r);
    if (!s) abort();
    free(s);
  }
  serve_req_free(&r);
  return 0;
}

/* A request body of HTML form fields (application/x-www-form-urlencoded, what LibreTranslate's
 * clients send): "q=Bonjour+le+monde&source=fr&target=en" -> {"q": "Bonjour le monde", ...}. */
#include "serve_tool.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hex(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* s[0..n) with '+' a space and %XX its byte into out (room n + 1); false for a bad or
 * NUL escape. */
static bool decode(const char *s, size_t n, char *out, size_t *len) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '%') {
      out[k++] = s[i] == '+' ? ' ' : s[i];
      continue;
    }
    int hi = i + 2 < n ? hex(s[i + 1]) : -1, lo = hi >= 0 ? hex(s[i + 2]) : -1;
    if (lo < 0 || !(hi | lo)) return false;
    out[k++] = (char)(hi << 4 | lo), i += 2;
  }
  out[k] = '\0', *len = k;
  return true;
}

/* A field's name: letters, digits, '_', '-', '.' (a JSON body never looks like one). */
static bool name_chars(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", s[i])) return false;
  return n > 0;
}

/* One field "name=value" into o: 0, or a status and r->err. */
static int field(serve_req *r, json_t *o, const char *p, size_t n, char *buf) {
  const char *eq = memchr(p, '=', n);
  size_t klen = eq ? (size_t)(eq - p) : n, vlen;
  if (!eq || !name_chars(p, klen)) return -1;
  char key[64];
  if (klen >= sizeof key) return serve_req_bad(r, 400, "form field '%.40s...': an unknown name", p);
  memcpy(key, p, klen), key[klen] = '\0';
  if (!decode(eq + 1, n - klen - 1, buf, &vlen)) return serve_req_bad(r, 400, "form field '%s': a bad %%XX escape", key);
  if (json_object_get(o, key)) return serve_req_bad(r, 400, "form field '%s' twice", key);
  json_t *v = json_stringn(buf, vlen);
  if (!v) return serve_req_bad(r, 400, "form field '%s': not UTF-8", key);
  return json_object_set_new(o, key, v) ? serve_req_bad(r, 500, "out of memory") : 0;
}

int serve_req_form(serve_req *r, const char *body, size_t len) {
  json_t *o = json_object();
  char *buf = malloc(len + 1);
  int st = o && buf ? 0 : serve_req_bad(r, 500, "out of memory");
  for (size_t i = 0; !st && i < len;) {
    size_t n = strcspn(body + i, "&");
    n = n < len - i ? n : len - i;
    if (n) st = field(r, o, body + i, n, buf);
    i += n + 1;
  }
  free(buf);
  if (st || !json_object_size(o)) return json_decref(o), st ? st : -1;
  json_decref(r->json);
  r->json = o, r->status = 0, r->err[0] = '\0';
  return 0;
}

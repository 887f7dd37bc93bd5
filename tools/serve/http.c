/* The HTTP side (libmicrohttpd, a thread per connection: a request's thread
 * waits while the batcher translates its sentences). Every answer is one line
 * of JSON; a problem is {"error": "..."} with a 4xx status, and the server
 * goes on serving. GET / is a page for trying the model in a browser; GET
 * /translate with Upgrade: websocket is Marian's protocol (websocket.c); GET
 * /ready says whether the queue takes more, GET /metrics is Prometheus's text
 * (metrics.c). Each request is counted and logged (access_log.c) once its
 * answer is queued, before the client can read it.
 * A request with an Origin header is served only from the server's own origin
 * or one of --allow-origin (CORS); conns.c bounds the time to receive one. */
#include "base/clock.h"
#include "base/err.h"
#include "base/utf8.h"
#include "base/strbuf.h"
#include "conns.h"
#include "serve_tool.h"
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct serve_http {
  struct MHD_Daemon *d;
  int fd; /* the listening socket */
  serve_batcher *b;
  const nmt_ensemble *e;
  const serve_args *a;
  serve_conns *conns;
  serve_metrics *m;
  serve_access_log *log; /* NULL: none */
  serve_keys *keys;      /* NULL: none needed */
  atomic_int in_flight; /* requests begun and not yet answered */
  atomic_bool stopping;
};

/* A request: its body as it arrives, and what its access log line and metrics need. */
typedef struct {
  nmt_strbuf body;
  bool too_big, oom;
  bool shutting; /* came during a drain: its body is read and dropped, then 503 */
  double t0;      /* its headers arrived (nmt_seconds) */
  char method[16], path[256]; /* cut */
  int sentences;  /* a translation's */
  bool translate; /* answered by translate() */
  bool counted;   /* account() has seen it */
} upload;

/* Where a request comes from (its Origin header): a page of another site may use the
 * server only when --allow-origin lists it. */
typedef enum { ORIGIN_NONE, ORIGIN_SAME, ORIGIN_ALLOWED, ORIGIN_REFUSED } origin_kind;

/* o in the comma-separated list ("*": any). */
static bool listed(const char *list, const char *o) {
  size_t n = strlen(o);
  for (const char *p = list; p && *p;) {
    p += strspn(p, " ");
    size_t len = strcspn(p, ", ");
    if ((len == 1 && *p == '*') || (len == n && !strncasecmp(p, o, n))) return true;
    p += len + strspn(p + len, " "), p += *p == ',';
  }
  return false;
}

/* The server's own origin is http:// and the Host the client asked for. */
static origin_kind origin_of(const serve_http *h, struct MHD_Connection *c) {
  const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
  const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
  if (!o) return ORIGIN_NONE;
  if (host && !strncasecmp(o, "http://", 7) && !strcasecmp(o + 7, host)) return ORIGIN_SAME;
  return listed(h->a->allow_origin, o) ? ORIGIN_ALLOWED : ORIGIN_REFUSED;
}

static serve_conn *conn_of(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return i ? i->socket_context : NULL;
}

/* The connection's request is complete (answering), or its answer queued (sending):
 * off the --receive-timeout clock. */
static void answering(serve_http *h, struct MHD_Connection *c, serve_conn_state s) {
  serve_conn *k = conn_of(c);
  if (k) serve_conn_set(h->conns, k, s);
}

/* Queue r (taken) with status, and the CORS headers: Vary: Origin for a request
 * that has one, Access-Control-Allow-Origin for one of --allow-origin's. During a drain
 * every answer closes its connection: a kept-alive client's next request would get 503,
 * or be cut when the drain ends; on a new connection it is refused at once. */
static enum MHD_Result queue(serve_http *h, struct MHD_Connection *c, unsigned status, struct MHD_Response *r) {
  const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
  if (o) MHD_add_response_header(r, "Vary", "Origin");
  if (o && origin_of(h, c) == ORIGIN_ALLOWED) MHD_add_response_header(r, "Access-Control-Allow-Origin", o);
  if (atomic_load(&h->stopping) && status != MHD_HTTP_SWITCHING_PROTOCOLS &&
      !MHD_get_response_header(r, MHD_HTTP_HEADER_CONNECTION))
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  answering(h, c, SERVE_CONN_SENDING);
  enum MHD_Result ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ok;
}

/* The answer when the JSON one cannot be built (out of memory). */
static enum MHD_Result reply_static(serve_http *h, struct MHD_Connection *c) {
  static const char oom[] = "{\"error\":\"out of memory\"}\n";
  struct MHD_Response *r = MHD_create_response_from_buffer(sizeof oom - 1, (void *)oom, MHD_RESPMEM_PERSISTENT);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json; charset=utf-8");
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  return queue(h, c, MHD_HTTP_INTERNAL_SERVER_ERROR, r);
}

/* Queue status with body s (malloc'ed JSON, taken over; NULL: out of memory); retry > 0:
 * Retry-After: retry. */
static enum MHD_Result reply_retry(serve_http *h, struct MHD_Connection *c, unsigned status, char *s, bool close, int retry) {
  size_t n = s ? strlen(s) : 0;
  char *line = s ? realloc(s, n + 2) : NULL; /* one line, newline-terminated, for curl and shells */
  if (!line) return free(s), reply_static(h, c);
  memcpy(line + n, "\n", 2);
  struct MHD_Response *r = MHD_create_response_from_buffer(n + 1, line, MHD_RESPMEM_MUST_FREE);
  if (!r) return free(line), reply_static(h, c);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json; charset=utf-8");
  if (close) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  char after[16];
  snprintf(after, sizeof after, "%d", retry);
  if (retry > 0) MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, after);
  return queue(h, c, status, r);
}

static enum MHD_Result reply(serve_http *h, struct MHD_Connection *c, unsigned status, char *s, bool close) {
  return reply_retry(h, c, status, s, close, status == MHD_HTTP_SERVICE_UNAVAILABLE);
}

/* {"error": msg}; msg is made valid UTF-8 (it may echo a client's bytes); retry as reply_retry's. */
static enum MHD_Result reply_error_retry(serve_http *h, struct MHD_Connection *c, unsigned status, const char *msg,
                                         int retry) {
  char clean[256];
  nmt_utf8_copy(clean, sizeof clean, msg, strlen(msg));
  json_t *o = json_pack("{s:s}", "error", clean);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return reply_retry(h, c, status, s, status == MHD_HTTP_SERVICE_UNAVAILABLE, retry);
}

static enum MHD_Result reply_error(serve_http *h, struct MHD_Connection *c, unsigned status, const char *msg) {
  return reply_error_retry(h, c, status, msg, status == MHD_HTTP_SERVICE_UNAVAILABLE);
}

/* Every model has attention: "alignment" may be asked. */
static bool has_attention(const serve_http *h) {
  bool attention = true;
  for (int i = 0; i < h->e->n; i++) attention &= !h->e->model[i].net.cfg.no_attention;
  return attention;
}

static void on_upgraded(void *cls, struct MHD_Connection *c, void *state, const char *extra, size_t extra_n,
                        MHD_socket fd, struct MHD_UpgradeResponseHandle *urh) {
  serve_http *h = cls;
  serve_conn *k = conn_of(c);
  if (k) serve_conn_set(h->conns, k, SERVE_CONN_UPGRADED);
  serve_ws_run(h->b, h->a, has_attention(h), &h->stopping, fd, extra, extra_n);
  MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

/* GET /translate with Upgrade: websocket (marian-server's clients): 101 and on_upgraded. */
/* The key of Authorization: Bearer KEY; NULL: none. */
static const char *bearer(struct MHD_Connection *c) {
  const char *v = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  if (!v || strncasecmp(v, "Bearer ", 7)) return NULL;
  return v + 7 + strspn(v + 7, " ");
}

/* With --api-keys, whether a key given (key, NULL: none) may translate now: 0, or 401, 403,
 * 429 with the message in err (room 256) and Retry-After in *retry. */
static int check_key(serve_http *h, const char *key, size_t n, char *err, int *retry) {
  int st = h->keys ? serve_keys_check(h->keys, key, n, retry) : 0;
  if (st == 401) snprintf(err, 256, "an API key is needed: Authorization: Bearer KEY, or the field \"api_key\" (--api-keys)");
  if (st == 403) snprintf(err, 256, "the API key is not one of the server's (--api-keys)");
  if (st == 429) snprintf(err, 256, "the API key is past its rate of %s (--rate-limit): try again in %d s", h->a->rate_limit, *retry);
  return st;
}

static enum MHD_Result websocket(serve_http *h, struct MHD_Connection *c) {
  char accept[29], err[256];
  const char *key = bearer(c);
  int retry = 0, st = check_key(h, key, key ? strlen(key) : 0, err, &retry);
  if (st) return reply_error_retry(h, c, (unsigned)st, err, retry);
  if (!serve_ws_accept(MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Key"), accept)) return reply_error(h, c, MHD_HTTP_BAD_REQUEST, "a websocket handshake without a valid Sec-WebSocket-Key");
  struct MHD_Response *r = MHD_create_response_for_upgrade(on_upgraded, h);
  if (!r) return reply_static(h, c);
  MHD_add_response_header(r, MHD_HTTP_HEADER_UPGRADE, "websocket");
  MHD_add_response_header(r, "Sec-WebSocket-Accept", accept);
  return queue(h, c, MHD_HTTP_SWITCHING_PROTOCOLS, r);
}

static bool wants_websocket(struct MHD_Connection *c) {
  const char *up = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_UPGRADE);
  return up && strcasestr(up, "websocket");
}

/* The client of connection c has gone: closed or reset the connection (a look that reads
 * nothing; one that only shut its sending side counts as gone, as nginx's 499 does). */
static bool client_gone(void *c) {
  const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  struct pollfd p = {.fd = ci ? ci->connect_fd : -1, .events = POLLRDHUP};
  return ci && poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* A deadline of S seconds from now, unless r's own is sooner; S = 0: none. */
static void limit_time(serve_req *r, double s) {
  double d = nmt_seconds() + s;
  if (s > 0 && (r->deadline <= 0 || d < r->deadline)) r->deadline = d;
}

/* The request's key, from Authorization: Bearer KEY or else its "api_key" field (taken out
 * of r->json either way): 0, or check_key's status; a body the server could not read
 * (status) has no key but the header's. */
static int authorize(serve_http *h, struct MHD_Connection *c, serve_req *r, int status, int *retry) {
  json_t *field = json_is_object(r->json) ? json_object_get(r->json, "api_key") : NULL;
  const char *key = bearer(c);
  size_t n = key ? strlen(key) : 0;
  if (!key && json_is_string(field)) key = json_string_value(field), n = json_string_length(field);
  char err[256];
  int st = check_key(h, key, n, err, retry);
  if (field) json_object_del(r->json, "api_key");
  if (!st) return status;
  r->err[0] = '\0';
  return serve_req_bad(r, st, "%s", err);
}

/* A form body (application/x-www-form-urlencoded, curl -d's type too, or none): JSON first. */
static bool form_type(struct MHD_Connection *c) {
  const char *t = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
  return !t || !strncasecmp(t, "application/x-www-form-urlencoded", 33);
}

/* The body into r->json: JSON, else a form's fields; 0 or a status (r->err). */
static int load_body(serve_http *h, struct MHD_Connection *c, upload *u, serve_req *r) {
  const char *body = u->body.s ? u->body.s : "";
  int status = serve_req_load(r, body, u->body.len, h->a);
  if (status == 400 && !r->json && form_type(c)) {
    int st = serve_req_form(r, body, u->body.len);
    if (st >= 0) status = st;
  }
  return status;
}

static enum MHD_Result too_big(serve_http *h, struct MHD_Connection *c) {
  char msg[128];
  snprintf(msg, sizeof msg, "the request is over %ld bytes (--max-request-bytes)", h->a->max_request_bytes);
  return reply_error(h, c, MHD_HTTP_CONTENT_TOO_LARGE, msg);
}

static enum MHD_Result translate(serve_http *h, struct MHD_Connection *c, upload *u) {
  u->translate = true;
  if (u->too_big) return too_big(h, c);
  if (u->oom) return reply_static(h, c);
  serve_req r;
  int retry = 0, status = load_body(h, c, u, &r);
  if (status != 500) status = authorize(h, c, &r, status, &retry);
  bool lt = !status && json_object_get(r.json, "q"), auto_source = false;
  if (lt) status = serve_lt_request(&r, h->a, &auto_source);
  if (!status) status = serve_req_take(&r, h->a, has_attention(h));
  r.gone = client_gone, r.gone_ctx = c;
  limit_time(&r, h->a->request_timeout);
  u->sentences = r.n;
  if (!status) serve_translate(h->b, &r), status = r.status;
  char *answer = status ? NULL : lt ? serve_lt_answer(&r, auto_source, h->a->src_lang) : serve_req_answer(&r);
  enum MHD_Result ok = status ? reply_error_retry(h, c, (unsigned)status, r.err, status == 503 ? 1 : retry)
                              : reply(h, c, MHD_HTTP_OK, answer, false);
  serve_req_free(&r);
  return ok;
}

/* A client on this machine that names the server by a loopback address, not a page
 * of a site (no Origin; a site's name resolved to 127.0.0.1 is not one). */
static bool local_client(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr_in *sa = i ? (const struct sockaddr_in *)(const void *)i->client_addr : NULL;
  const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
  char name[64] = "";
  struct in_addr ip;
  if (host) snprintf(name, sizeof name, "%.*s", (int)strcspn(host, ":"), host);
  bool loopback_host = !strcasecmp(name, "localhost") || (inet_pton(AF_INET, name, &ip) == 1 && ntohl(ip.s_addr) >> 24 == 127);
  return sa && sa->sin_family == AF_INET && ntohl(sa->sin_addr.s_addr) >> 24 == 127 && loopback_host &&
         !MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
}

/* The model's files (their paths) only to a local client: to others, status and queue. */
static enum MHD_Result health(serve_http *h, struct MHD_Connection *c) {
  nmt_strbuf names = {0}; /* an ensemble's files, space-separated */
  for (int i = 0; i < h->a->models.n; i++)
    if ((i && nmt_strbuf_add(&names, " ", 1)) || nmt_strbuf_add(&names, h->a->models.v[i], strlen(h->a->models.v[i])))
      return free(names.s), reply_static(h, c);
  int queued = serve_batcher_queued(h->b);
  json_t *o = local_client(c) ? json_pack("{s:s, s:s%, s:i}", "status", "ok", "model", names.s, names.len, "queued", queued)
                              : json_pack("{s:s, s:i}", "status", "ok", "queued", queued);
  free(names.s);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return reply(h, c, MHD_HTTP_OK, s, false);
}

/* Ready while the queue takes more sentences (it is under --max-queued-sentences) and no
 * drain has begun (a request during a drain gets 503 from begin). */
static enum MHD_Result ready(serve_http *h, struct MHD_Connection *c) {
  int queued = serve_batcher_queued(h->b);
  if (queued < h->a->max_queued) {
    json_t *o = json_pack("{s:s, s:i}", "status", "ready", "queued", queued);
    char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return reply(h, c, MHD_HTTP_OK, s, false);
  }
  char msg[160];
  snprintf(msg, sizeof msg, "the queue is full: %d sentences queued, --max-queued-sentences %ld", queued, h->a->max_queued);
  return reply_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, msg);
}

static enum MHD_Result metrics(serve_http *h, struct MHD_Connection *c) {
  serve_gauges g;
  serve_batcher_gauges(h->b, &g);
  char *text = serve_metrics_text(h->m, &g);
  if (!text) return reply_static(h, c);
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
  if (!r) return free(text), reply_static(h, c);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
  return queue(h, c, MHD_HTTP_OK, r);
}

/* OPTIONS, a browser's CORS preflight: what a page of an allowed origin may send. */
static enum MHD_Result preflight(serve_http *h, struct MHD_Connection *c) {
  struct MHD_Response *r = MHD_create_response_from_buffer(0, NULL, MHD_RESPMEM_PERSISTENT);
  if (!r) return reply_static(h, c);
  MHD_add_response_header(r, "Allow", "GET, POST, OPTIONS");
  MHD_add_response_header(r, "Access-Control-Allow-Methods", "GET, POST, OPTIONS");
  MHD_add_response_header(r, "Access-Control-Allow-Headers", "Content-Type, Authorization");
  MHD_add_response_header(r, "Access-Control-Max-Age", "600");
  return queue(h, c, MHD_HTTP_NO_CONTENT, r);
}

static enum MHD_Result languages(serve_http *h, struct MHD_Connection *c) {
  return reply(h, c, MHD_HTTP_OK, serve_lt_languages(h->a), false);
}

/* A document of the program's (GET / and GET /openapi.json). */
static enum MHD_Result document(serve_http *h, struct MHD_Connection *c, const char *text, const char *type) {
  struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *)text, MHD_RESPMEM_PERSISTENT);
  if (!r) return reply_static(h, c);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  return queue(h, c, MHD_HTTP_OK, r);
}

/* The request is complete: its answer. */
static enum MHD_Result route(serve_http *h, struct MHD_Connection *c, const char *url, const char *method, upload *u) {
  bool get = !strcmp(method, MHD_HTTP_METHOD_GET), post = !strcmp(method, MHD_HTTP_METHOD_POST);
  if (!strcmp(method, MHD_HTTP_METHOD_OPTIONS)) return preflight(h, c);
  if (!strcmp(url, "/translate") && get && wants_websocket(c)) return websocket(h, c);
  if (!strcmp(url, "/translate"))
    return post ? translate(h, c, u) : reply_error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "/translate takes POST");
  if (!strcmp(url, "/") && get) return document(h, c, serve_page, "text/html; charset=utf-8");
  if (!strcmp(url, "/openapi.json"))
    return get ? document(h, c, serve_openapi, "application/json; charset=utf-8")
               : reply_error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "/openapi.json takes GET");
  if (!strcmp(url, "/health"))
    return get ? health(h, c) : reply_error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "/health takes GET");
  if (!strcmp(url, "/ready"))
    return get ? ready(h, c) : reply_error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "/ready takes GET");
  if (!strcmp(url, "/metrics"))
    return get ? metrics(h, c) : reply_error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "/metrics takes GET");
  if (!strcmp(url, "/languages"))
    return get ? languages(h, c) : reply_error(h, c, MHD_HTTP_METHOD_NOT_ALLOWED, "/languages takes GET");
  char path[68], msg[240];
  nmt_utf8_copy(path, sizeof path, url, strlen(url));
  snprintf(msg, sizeof msg, "no such path: %s (POST /translate, GET /health, GET /ready, GET /metrics, GET /languages, GET /openapi.json, GET /)",
           path);
  return reply_error(h, c, MHD_HTTP_NOT_FOUND, msg);
}

/* Content-Length headers: the first, and whether another differs from it. */
typedef struct {
  const char *first;
  bool differ;
} lengths;

static enum MHD_Result length_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
  lengths *l = cls;
  if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH)) return MHD_YES;
  if (!l->first) l->first = value ? value : "";
  else l->differ |= strcmp(l->first, value ? value : "") != 0;
  return MHD_YES;
}

/* The headers are in: a request the server refuses before reading its body. */
static enum MHD_Result begin(serve_http *h, struct MHD_Connection *c, const char *url, const char *method, void **state) {
  upload *u = calloc(1, sizeof *u);
  if (!u) return reply_static(h, c);
  *state = u;
  u->t0 = nmt_seconds();
  snprintf(u->method, sizeof u->method, "%s", method), snprintf(u->path, sizeof u->path, "%s", url);
  atomic_fetch_add(&h->in_flight, 1);
  /* During a drain the 503 waits for the body: it closes the connection, and closing it on
   * unread bytes would reset it, the answer lost with them (curl exit 56). */
  if (atomic_load(&h->stopping)) return u->shutting = true, MHD_YES;
  if (!conn_of(c)) return reply_static(h, c); /* its record could not be made: not watched */
  lengths l = {0};
  MHD_get_connection_values(c, MHD_HEADER_KIND, length_header, &l);
  if (l.differ) return reply_error(h, c, MHD_HTTP_BAD_REQUEST, "Content-Length headers that differ");
  if (origin_of(h, c) == ORIGIN_REFUSED) {
    char msg[200];
    snprintf(msg, sizeof msg, "Origin %s may not use this server (it answers its own origin and --allow-origin's)",
             MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin"));
    return reply_error(h, c, MHD_HTTP_FORBIDDEN, msg);
  }
  /* a declared length over the limit is refused before its body is read */
  if (l.first && strtoull(l.first, NULL, 10) > (unsigned long long)h->a->max_request_bytes) {
    u->too_big = true;
    return translate(h, c, u);
  }
  return MHD_YES;
}

/* Count request u, answered with status, and write its access log line: once, when its
 * answer is queued (before its client can read it, so that the next request's /metrics
 * counts it), or when it ended without one. */
static void account(serve_http *h, struct MHD_Connection *c, upload *u, unsigned status) {
  if (!u || u->counted || !status) return;
  u->counted = true;
  double s = nmt_seconds() - u->t0;
  serve_metrics_request(h->m, status, u->translate, s);
  if (!h->log) return;
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr_in *sa = i ? (const struct sockaddr_in *)(const void *)i->client_addr : NULL;
  char client[INET_ADDRSTRLEN] = "-";
  if (sa && sa->sin_family == AF_INET) inet_ntop(AF_INET, &sa->sin_addr, client, sizeof client);
  serve_access_log_write(h->log, &(serve_access){client, u->method, u->path, status, u->sentences, 1e3 * s});
}

/* The status of the answer queued to c's request; 0: none yet. */
static unsigned queued_status(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
  return i ? i->http_status : 0;
}

/* libmicrohttpd calls this once with the headers, then with each piece of the
 * body, then once more with none left: the time to answer. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **state) {
  serve_http *h = cls;
  upload *u = *state;
  enum MHD_Result ok;
  if (!u) {
    ok = begin(h, c, url, method, state);
  } else if (*size) {
    if (u->too_big || u->oom || u->shutting) {}
    else if (u->body.len + *size > (size_t)h->a->max_request_bytes) u->too_big = true;
    else if (nmt_strbuf_add(&u->body, data, *size)) u->oom = true;
    *size = 0;
    return MHD_YES;
  } else {
    answering(h, c, SERVE_CONN_ANSWERING); /* the request is in: translating it is not receiving it */
    ok = u->shutting ? reply_error(h, c, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is shutting down")
                     : route(h, c, url, method, u);
  }
  account(h, c, *state, queued_status(c));
  return ok;
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why) {
  serve_http *h = cls;
  upload *u = *state;
  serve_conn *k = conn_of(c);
  unsigned cut = k ? serve_conn_cut_status(h->conns, k) : 0;
  account(h, c, u, cut ? cut : 499); /* unanswered: cut by conns.c, or its client went first */
  if (k) serve_conn_set(h->conns, k, SERVE_CONN_RECEIVING); /* the next request's clock */
  if (!u) return;
  free(u->body.s), free(u);
  *state = NULL;
  atomic_fetch_sub(&h->in_flight, 1);
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code) {
  serve_http *h = cls;
  const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) *socket_context = i ? serve_conn_open(h->conns, i->connect_fd) : NULL;
  else if (*socket_context) serve_conn_close(h->conns, *socket_context), *socket_context = NULL;
}

static int hex_digit(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The path's (and arguments') %XX escapes, as libmicrohttpd's own unescaping, but %00
 * stays as written: a NUL would cut the path ("/translate%00x" would be /translate). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s) {
  char *o = s;
  for (const char *p = s; *p; p++) {
    int hi = *p == '%' ? hex_digit(p[1]) : -1, lo = hi >= 0 ? hex_digit(p[2]) : -1;
    if (lo >= 0 && (hi | lo)) *o++ = (char)(hi << 4 | lo), p += 2;
    else *o++ = *p;
  }
  *o = '\0';
  return (size_t)(o - s);
}

/* The listening socket on host:port (port 0: a free one, told in *port). Its backlog is the
 * kernel's most (net.core.somaxconn): with 128, clients reconnecting together after their
 * 503s overflowed it, and a dropped SYN is retried after a second (1.04 s 503s in
 * bench/serve_ops.sh's 256 clients). */
static int listen_on(const char *host, long port, int *fd, int *bound) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, host, &sa.sin_addr); /* checked with the options */
  int one = 1;
  socklen_t len = sizeof sa;
  if ((*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) return nmt_fail_errno(NMT_EIO, "socket");
  if (setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) || bind(*fd, (struct sockaddr *)&sa, sizeof sa) ||
      listen(*fd, SOMAXCONN) || getsockname(*fd, (struct sockaddr *)&sa, &len)) {
    int st = nmt_fail_errno(NMT_EIO, "cannot listen on %s:%ld", host, port);
    close(*fd);
    return st;
  }
  *bound = ntohs(sa.sin_port);
  return NMT_OK;
}

int serve_http_start(serve_http **hp, serve_batcher *b, const nmt_ensemble *e, const serve_args *a, serve_metrics *m,
                     serve_access_log *log, serve_keys *keys, int *port) {
  serve_http *h = calloc(1, sizeof *h);
  if (!h) return nmt_fail(NMT_EIO, "out of memory");
  *h = (serve_http){.b = b, .e = e, .a = a, .m = m, .log = log, .keys = keys};
  int st = serve_conns_start(&h->conns, a->receive_timeout, a->send_timeout);
  if (st) return free(h), *hp = NULL, st;
  if (!(st = listen_on(a->host, a->port, &h->fd, port))) {
    h->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_ALLOW_UPGRADE, 0, NULL, NULL,
                            on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_NOTIFY_CONNECTION, on_connection, h, MHD_OPTION_UNESCAPE_CALLBACK, unescape, h,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)a->max_connections, MHD_OPTION_CONNECTION_TIMEOUT, 60u,
                            MHD_OPTION_END);
    if (!h->d) st = nmt_fail(NMT_EIO, "cannot start the HTTP server"), close(h->fd);
  }
  if (st) serve_conns_stop(h->conns), free(h), h = NULL;
  *hp = h;
  return st;
}

/* The requests still in flight at the end of the drain: those translating are ended
 * (serve_batcher_cancel_all), those still arriving answered and shut (conns.c); again
 * until none is left, for a second at most, as a request may reach the batcher after
 * a cancel (what remains then ends with the connections, in MHD_stop_daemon). */
static void cut_in_flight(serve_http *h) {
  static const char why[] = "the server is shutting down";
  for (int i = 0; i < 100 && atomic_load(&h->in_flight) > 0; i++) {
    serve_batcher_cancel_all(h->b, MHD_HTTP_SERVICE_UNAVAILABLE, why);
    serve_conns_cut(h->conns, MHD_HTTP_SERVICE_UNAVAILABLE, why);
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  }
}

/* The drain's end waits this long at most for idle kept-alive clients to close
 * (conns.h, serve_conns_linger): a request crossing the close arrives within a round trip. */
static const double LINGER_S = 1.0;

bool serve_http_stop(serve_http *h) {
  /* No new connections, before the answers close theirs: a client's next one is refused,
   * not left in the backlog and reset. Shut, as the polling thread may still hold the
   * socket in its poll: a close alone would keep it listening until that returns. */
  int fd = MHD_quiesce_daemon(h->d);
  if (fd >= 0) shutdown(fd, SHUT_RDWR), close(fd);
  atomic_store(&h->stopping, true);
  for (double until = nmt_seconds() + h->a->drain_timeout; atomic_load(&h->in_flight) > 0 && nmt_seconds() < until;)
    nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  bool cut = atomic_load(&h->in_flight) > 0;
  if (cut) cut_in_flight(h);
  serve_conns_linger(h->conns, LINGER_S);
  MHD_stop_daemon(h->d);
  serve_conns_stop(h->conns);
  free(h);
  return cut;
}

/* The HTTP side (libmicrohttpd, a thread per connection: a request's thread
 * waits while the batcher translates its sentences). Every answer is one line
 * of JSON; a problem is {"error": "..."} with a 4xx status, and the server
 * goes on serving. GET / is a page for trying the model in a browser; GET
 * /translate with Upgrade: websocket is Marian's protocol (websocket.c). */
#include "base/err.h"
#include "base/strbuf.h"
#include "serve_tool.h"
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

struct serve_http {
  struct MHD_Daemon *d;
  int fd; /* the listening socket */
  serve_batcher *b;
  const nmt_ensemble *e;
  const serve_args *a;
  atomic_int in_flight; /* requests begun and not yet answered */
  atomic_bool stopping;
};

/* A request's body as it arrives. */
typedef struct {
  nmt_strbuf body;
  bool too_big;
} upload;

/* Queue status with body s (malloc'ed JSON, taken over; NULL: out of memory). */
static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, char *s, bool close) {
  if (!s) return MHD_NO;
  size_t n = strlen(s);
  char *line = realloc(s, n + 2); /* one line, newline-terminated, for curl and shells */
  if (!line) return free(s), MHD_NO;
  memcpy(line + n, "\n", 2);
  struct MHD_Response *r = MHD_create_response_from_buffer(n + 1, line, MHD_RESPMEM_MUST_FREE);
  if (!r) return free(line), MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json; charset=utf-8");
  if (close) MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
  enum MHD_Result ok = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ok;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, const char *msg) {
  json_t *o = json_pack("{s:s}", "error", msg);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return reply(c, status, s, status == MHD_HTTP_SERVICE_UNAVAILABLE);
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
  serve_ws_run(h->b, h->a, has_attention(h), &h->stopping, fd, extra, extra_n);
  MHD_upgrade_action(urh, MHD_UPGRADE_ACTION_CLOSE);
}

/* GET /translate with Upgrade: websocket (marian-server's clients): 101 and on_upgraded. */
static enum MHD_Result websocket(serve_http *h, struct MHD_Connection *c) {
  char accept[29];
  const char *key = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Sec-WebSocket-Key");
  if (!serve_ws_accept(key, accept)) return reply_error(c, MHD_HTTP_BAD_REQUEST, "a websocket handshake without a valid Sec-WebSocket-Key");
  struct MHD_Response *r = MHD_create_response_for_upgrade(on_upgraded, h);
  if (!r) return MHD_NO;
  MHD_add_response_header(r, MHD_HTTP_HEADER_UPGRADE, "websocket");
  MHD_add_response_header(r, "Sec-WebSocket-Accept", accept);
  enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_SWITCHING_PROTOCOLS, r);
  MHD_destroy_response(r);
  return ok;
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

static enum MHD_Result translate(serve_http *h, struct MHD_Connection *c, const upload *u) {
  if (u->too_big) {
    char msg[128];
    snprintf(msg, sizeof msg, "the request is over %ld bytes (--max-request-bytes)", h->a->max_request_bytes);
    return reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE, msg);
  }
  serve_req r;
  int status = serve_req_parse(&r, u->body.s ? u->body.s : "", u->body.len, h->a, has_attention(h));
  r.gone = client_gone, r.gone_ctx = c;
  if (!status) serve_translate(h->b, &r), status = r.status;
  enum MHD_Result ok = status ? reply_error(c, (unsigned)status, r.err) : reply(c, MHD_HTTP_OK, serve_req_answer(&r), false);
  serve_req_free(&r);
  return ok;
}

static enum MHD_Result health(serve_http *h, struct MHD_Connection *c) {
  nmt_strbuf names = {0}; /* an ensemble's files, space-separated */
  for (int i = 0; i < h->a->models.n; i++)
    if ((i && nmt_strbuf_add(&names, " ", 1)) || nmt_strbuf_add(&names, h->a->models.v[i], strlen(h->a->models.v[i])))
      return free(names.s), MHD_NO;
  json_t *o = json_pack("{s:s, s:s%, s:i}", "status", "ok", "model", names.s, names.len, "queued", serve_batcher_queued(h->b));
  free(names.s);
  char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
  json_decref(o);
  return reply(c, MHD_HTTP_OK, s, false);
}

/* libmicrohttpd calls this once with the headers, then with each piece of the
 * body, then once more with none left: the time to answer. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *data, size_t *size, void **state) {
  serve_http *h = cls;
  upload *u = *state;
  if (!u) {
    if (!(u = calloc(1, sizeof *u))) return MHD_NO;
    *state = u;
    atomic_fetch_add(&h->in_flight, 1);
    if (atomic_load(&h->stopping)) return reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "the server is shutting down");
    /* a declared length over the limit is refused before its body is read */
    const char *len = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (len && strtoull(len, NULL, 10) > (unsigned long long)h->a->max_request_bytes) {
      u->too_big = true;
      return translate(h, c, u);
    }
    return MHD_YES;
  }
  if (*size) {
    if (u->too_big || u->body.len + *size > (size_t)h->a->max_request_bytes) u->too_big = true;
    else if (nmt_strbuf_add(&u->body, data, *size)) return MHD_NO;
    *size = 0;
    return MHD_YES;
  }
  bool get = !strcmp(method, MHD_HTTP_METHOD_GET), post = !strcmp(method, MHD_HTTP_METHOD_POST);
  if (!strcmp(url, "/translate") && get && wants_websocket(c)) return websocket(h, c);
  if (!strcmp(url, "/translate"))
    return post ? translate(h, c, u) : reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "/translate takes POST");
  if (!strcmp(url, "/") && get) {
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(serve_page), (void *)serve_page, MHD_RESPMEM_PERSISTENT);
    if (!r) return MHD_NO;
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/html; charset=utf-8");
    enum MHD_Result ok = MHD_queue_response(c, MHD_HTTP_OK, r);
    MHD_destroy_response(r);
    return ok;
  }
  if (!strcmp(url, "/health"))
    return get ? health(h, c) : reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "/health takes GET");
  char msg[160];
  snprintf(msg, sizeof msg, "no such path: %.64s (POST /translate, GET /health, GET /)", url);
  return reply_error(c, MHD_HTTP_NOT_FOUND, msg);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **state, enum MHD_RequestTerminationCode why) {
  serve_http *h = cls;
  upload *u = *state;
  if (!u) return;
  free(u->body.s), free(u);
  *state = NULL;
  atomic_fetch_sub(&h->in_flight, 1);
}

/* The listening socket on host:port (port 0: a free one, told in *port). */
static int listen_on(const char *host, long port, int *fd, int *bound) {
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
  inet_pton(AF_INET, host, &sa.sin_addr); /* checked with the options */
  int one = 1;
  socklen_t len = sizeof sa;
  if ((*fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) return nmt_fail_errno(NMT_EIO, "socket");
  if (setsockopt(*fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) || bind(*fd, (struct sockaddr *)&sa, sizeof sa) ||
      listen(*fd, 128) || getsockname(*fd, (struct sockaddr *)&sa, &len)) {
    int st = nmt_fail_errno(NMT_EIO, "cannot listen on %s:%ld", host, port);
    close(*fd);
    return st;
  }
  *bound = ntohs(sa.sin_port);
  return NMT_OK;
}

int serve_http_start(serve_http **hp, serve_batcher *b, const nmt_ensemble *e, const serve_args *a, int *port) {
  serve_http *h = calloc(1, sizeof *h);
  if (!h) return nmt_fail(NMT_EIO, "out of memory");
  *h = (serve_http){.b = b, .e = e, .a = a};
  int st = listen_on(a->host, a->port, &h->fd, port);
  if (!st) {
    h->d = MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ITC | MHD_ALLOW_UPGRADE, 0, NULL, NULL,
                            on_request, h, MHD_OPTION_LISTEN_SOCKET, h->fd, MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
                            MHD_OPTION_CONNECTION_TIMEOUT, 60u, MHD_OPTION_END);
    if (!h->d) st = nmt_fail(NMT_EIO, "cannot start the HTTP server"), close(h->fd);
  }
  if (st) free(h), h = NULL;
  *hp = h;
  return st;
}

void serve_http_stop(serve_http *h) {
  atomic_store(&h->stopping, true);
  int fd = MHD_quiesce_daemon(h->d); /* no new connections */
  if (fd >= 0) close(fd);
  while (atomic_load(&h->in_flight) > 0) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
  MHD_stop_daemon(h->d);
  free(h);
}

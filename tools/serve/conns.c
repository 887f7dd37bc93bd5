/* nmt-serve's open connections and the watchdog of --receive-timeout (conns.h).
 * libmicrohttpd tells each connection's start and end (MHD_OPTION_NOTIFY_CONNECTION)
 * but has no deadline of its own, nor a way to end a connection from outside its
 * thread; shutting the socket does: its read returns 0 and libmicrohttpd closes it.
 * The answer is written first, on the socket, as a request still arriving has had
 * nothing written yet. A connection's record leaves the list (under the lock) before
 * libmicrohttpd closes its socket, so the descriptor cut is never another's. */
#include "base/clock.h"
#include "conns.h"
#include "base/err.h"
#include <errno.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

struct serve_conn {
  serve_conn *prev, *next;
  int fd;
  double since; /* when its current request's clock started (CLOCK_MONOTONIC, s) */
  serve_conn_state state;
  unsigned cut; /* the status a cut answered with, or 0 */
};

struct serve_conns {
  pthread_mutex_t mu;
  pthread_cond_t wake, closed; /* the watchdog's; a connection has closed */
  pthread_t watchdog;
  serve_conn *head;
  double limit, send_limit; /* --receive-timeout, --send-timeout */
  bool stop;
};

/* An HTTP answer, status and {"error": why}, closing the connection, a 503 with Retry-After
 * as http.c's (malloc'ed; NULL: out of memory, then the connection is only shut). */
static char *raw_answer(unsigned status, const char *why, size_t *len) {
  json_t *o = json_pack("{s:s}", "error", why);
  char *body = o ? json_dumps(o, JSON_COMPACT) : NULL, *s = NULL;
  json_decref(o);
  const char *reason = MHD_get_reason_phrase_for(status);
  const char *retry = status == MHD_HTTP_SERVICE_UNAVAILABLE ? "Retry-After: 1\r\n" : "";
  if (body && asprintf(&s, "HTTP/1.1 %u %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %zu\r\n"
                           "%sConnection: close\r\n\r\n%s\n", status, reason, strlen(body) + 1, retry, body) < 0)
    s = NULL;
  free(body);
  *len = s ? strlen(s) : 0;
  return s;
}

/* Answer k with status (none: 0) and shut its socket (lock held). */
static void cut(serve_conn *k, unsigned status, const char *answer, size_t len) {
  if (answer) (void)!send(k->fd, answer, len, MSG_NOSIGNAL | MSG_DONTWAIT), k->cut = status;
  shutdown(k->fd, SHUT_RDWR);
  k->state = SERVE_CONN_ANSWERING;
}

/* Every tenth of a second, cut the requests still arriving past the limit. */
static void *watchdog(void *arg) {
  serve_conns *cs = arg;
  char why[128];
  snprintf(why, sizeof why, "the request was not received within %g s (--receive-timeout)", cs->limit);
  size_t len;
  char *answer = raw_answer(MHD_HTTP_REQUEST_TIMEOUT, why, &len);
  pthread_mutex_lock(&cs->mu);
  while (!cs->stop) {
    double now = nmt_seconds();
    for (serve_conn *k = cs->head; k; k = k->next)
      if (k->state == SERVE_CONN_RECEIVING && now - k->since > cs->limit) cut(k, MHD_HTTP_REQUEST_TIMEOUT, answer, len);
      else if (k->state == SERVE_CONN_SENDING && now - k->since > cs->send_limit) cut(k, 0, NULL, 0); /* mid-answer */
    struct timespec until = nmt_timespec(now + 0.1);
    pthread_cond_timedwait(&cs->wake, &cs->mu, &until);
  }
  pthread_mutex_unlock(&cs->mu);
  free(answer);
  return NULL;
}

int serve_conns_start(serve_conns **csp, double receive_timeout, double send_timeout) {
  serve_conns *cs = calloc(1, sizeof *cs);
  if (!cs) return nmt_fail(NMT_EIO, "out of memory");
  cs->limit = receive_timeout, cs->send_limit = send_timeout;
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_mutex_init(&cs->mu, NULL), pthread_cond_init(&cs->wake, &ca), pthread_cond_init(&cs->closed, &ca);
  pthread_condattr_destroy(&ca);
  int e = pthread_create(&cs->watchdog, NULL, watchdog, cs);
  if (e) {
    pthread_mutex_destroy(&cs->mu), pthread_cond_destroy(&cs->wake), pthread_cond_destroy(&cs->closed), free(cs);
    errno = e;
    return nmt_fail_errno(NMT_EIO, "cannot start the connections' watchdog");
  }
  *csp = cs;
  return NMT_OK;
}

serve_conn *serve_conn_open(serve_conns *cs, int fd) {
  serve_conn *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  *k = (serve_conn){.fd = fd, .since = nmt_seconds(), .state = SERVE_CONN_RECEIVING};
  pthread_mutex_lock(&cs->mu);
  if ((k->next = cs->head)) k->next->prev = k;
  cs->head = k;
  pthread_mutex_unlock(&cs->mu);
  return k;
}

void serve_conn_close(serve_conns *cs, serve_conn *k) {
  pthread_mutex_lock(&cs->mu);
  if (k->prev) k->prev->next = k->next;
  else cs->head = k->next;
  if (k->next) k->next->prev = k->prev;
  pthread_cond_broadcast(&cs->closed);
  pthread_mutex_unlock(&cs->mu);
  free(k);
}

void serve_conn_set(serve_conns *cs, serve_conn *k, serve_conn_state s) {
  pthread_mutex_lock(&cs->mu);
  if (k->state != SERVE_CONN_UPGRADED && k->state != SERVE_CONN_CLOSING) k->state = s, k->since = nmt_seconds();
  pthread_mutex_unlock(&cs->mu);
}

void serve_conns_cut(serve_conns *cs, unsigned status, const char *why) {
  size_t len;
  char *answer = raw_answer(status, why, &len);
  pthread_mutex_lock(&cs->mu);
  for (serve_conn *k = cs->head; k; k = k->next)
    if (k->state == SERVE_CONN_RECEIVING) cut(k, status, answer, len);
  pthread_mutex_unlock(&cs->mu);
  free(answer);
}

/* Until no closing connection is left, or the time is up (lock held). */
static void await_closes(serve_conns *cs, double seconds) {
  struct timespec until = nmt_timespec(nmt_seconds() + seconds);
  for (;;) {
    serve_conn *k = cs->head;
    while (k && k->state != SERVE_CONN_CLOSING) k = k->next;
    if (!k || pthread_cond_timedwait(&cs->closed, &cs->mu, &until)) return;
  }
}

void serve_conns_linger(serve_conns *cs, double seconds) {
  pthread_mutex_lock(&cs->mu);
  for (serve_conn *k = cs->head; k; k = k->next)
    if (k->state == SERVE_CONN_RECEIVING) shutdown(k->fd, SHUT_WR), k->state = SERVE_CONN_CLOSING;
  await_closes(cs, seconds);
  pthread_mutex_unlock(&cs->mu);
}

unsigned serve_conn_cut_status(serve_conns *cs, const serve_conn *k) {
  pthread_mutex_lock(&cs->mu);
  unsigned status = k->cut;
  pthread_mutex_unlock(&cs->mu);
  return status;
}

void serve_conns_stop(serve_conns *cs) {
  pthread_mutex_lock(&cs->mu);
  cs->stop = true;
  pthread_cond_signal(&cs->wake);
  pthread_mutex_unlock(&cs->mu);
  pthread_join(cs->watchdog, NULL);
  while (cs->head) serve_conn_close(cs, cs->head);
  pthread_mutex_destroy(&cs->mu), pthread_cond_destroy(&cs->wake), pthread_cond_destroy(&cs->closed);
  free(cs);
}

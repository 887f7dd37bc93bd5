/* Marian's websocket protocol, so marian-server's clients work unchanged: a
 * websocket on /translate, each text message holding sentences one a line,
 * answered by one message with their translations one a line. The handshake
 * (RFC 6455) and the socket are done here, over the socket libmicrohttpd hands
 * over after its 101 answer; the frames are read by ws_frame.c, which needs no
 * socket (the fuzz harness feeds it too). A message is translated as the JSON
 * request {"text": [lines]} would be. */
#include "base/clock.h"
#include "base/utf8.h"
#include "base/strbuf.h"
#include "serve_tool.h"
#include "ws_frame.h"
#include <errno.h>
#include <nettle/base64.h>
#include <nettle/sha1.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

bool serve_ws_accept(const char *key, char out[29]) {
  static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  if (!key || strlen(key) != 24) return false; /* base64 of 16 bytes */
  struct sha1_ctx c;
  uint8_t digest[SHA1_DIGEST_SIZE];
  sha1_init(&c);
  sha1_update(&c, strlen(key), (const uint8_t *)key);
  sha1_update(&c, sizeof guid - 1, (const uint8_t *)guid);
  sha1_digest(&c, sizeof digest, digest);
  base64_encode_raw(out, sizeof digest, digest);
  out[28] = '\0';
  return true;
}

/* The socket, bytes read past the HTTP request (libmicrohttpd's extra_in),
 * and the server's stop flag, looked at while waiting for the client; the
 * bytes received and not yet read (p, n); when the message now arriving began
 * and the last one was answered, and the seconds a frame of ours may take to
 * be taken (for the limits). */
typedef struct {
  int fd;
  const char *extra;
  size_t extra_n;
  const atomic_bool *stopping;
  const uint8_t *p;
  size_t n;
  double began, idle_since, send_s;
  uint8_t in[16384];
} conn;

enum { GOT_LATE = -1, GOT_STOP = -2 };

/* More bytes from the client into c->p, c->n by deadline (CLOCK_MONOTONIC
 * seconds): their count; 0 when it closed or broke off; GOT_LATE past the
 * deadline; GOT_STOP on SIGTERM (looked at every 0.2 s). */
static ssize_t receive(conn *c, double deadline) {
  if (c->extra_n) {
    c->p = (const uint8_t *)c->extra, c->n = c->extra_n, c->extra_n = 0;
    return (ssize_t)c->n;
  }
  for (;;) {
    double left = deadline - nmt_seconds();
    if (atomic_load(c->stopping)) return GOT_STOP;
    if (left <= 0) return GOT_LATE;
    struct pollfd w = {.fd = c->fd, .events = POLLIN};
    int k = poll(&w, 1, left < 0.2 ? (int)(left * 1000) + 1 : 200);
    if (k < 0 && errno != EINTR) return 0;
    if (k <= 0) continue;
    ssize_t got = recv(c->fd, c->in, sizeof c->in, 0);
    if (got < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    c->p = c->in, c->n = got > 0 ? (size_t)got : 0;
    return got > 0 ? got : 0;
  }
}

/* Sent by deadline, however slowly the client reads: false when it was not. */
static bool write_all(int fd, const void *buf, size_t n, double deadline) {
  const char *p = buf;
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { /* its buffer is full: wait for room */
      double left = deadline - nmt_seconds();
      struct pollfd w = {.fd = fd, .events = POLLOUT};
      if (left <= 0 || (poll(&w, 1, (int)(left * 1000) + 1) < 0 && errno != EINTR)) return false;
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

/* One unmasked frame from the server (FIN set), taken within --ws-message-timeout. */
static bool send_frame(const conn *c, int op, const void *data, size_t n) {
  uint8_t head[10];
  double deadline = nmt_seconds() + c->send_s;
  return write_all(c->fd, head, ws_frame_encode(head, op, n), deadline) && write_all(c->fd, data, n, deadline);
}

/* A close frame: code and a one-line reason, at most 123 bytes of valid UTF-8. */
static void send_close(const conn *c, int code, const char *why) {
  char body[126] = {(char)(code >> 8), (char)code}; /* and nmt_utf8_copy's NUL */
  send_frame(c, WS_CLOSE, body, 2 + nmt_utf8_copy(body + 2, sizeof body - 2, why, strlen(why)));
}

/* After a close frame of ours: FIN, then the client's bytes still on their way
 * are read and dropped until it closes too (2 s at most). A socket closed with
 * bytes unread is reset, and the reset can destroy the close frame before the
 * client reads it. */
static void close_gracefully(conn *c) {
  shutdown(c->fd, SHUT_WR);
  double end = nmt_seconds() + 2;
  while (receive(c, end) > 0) {}
}

/* The reader's next message or control frame (WS_MESSAGE, WS_CONTROL); 0 when
 * the client closed or broke off; or a close code of ours with its reason in why. */
static int next_event(conn *c, ws_reader *r, const serve_args *a, char *why, size_t whyn) {
  for (;;) {
    if (atomic_load(c->stopping)) return snprintf(why, whyn, "the server is shutting down"), 1001;
    while (c->n) {
      if (!ws_reader_busy(r)) c->began = nmt_seconds(); /* a message's first byte */
      size_t used;
      int ev = ws_read(r, c->p, c->n, &used);
      c->p += used, c->n -= used;
      if (ev == 1009) snprintf(why, whyn, "a message over %ld bytes (--max-request-bytes)", a->max_request_bytes);
      else if (ev >= 1000) snprintf(why, whyn, "%s", r->why);
      if (ev != WS_MORE) return ev;
    }
    bool busy = ws_reader_busy(r);
    ssize_t k = receive(c, busy ? c->began + a->ws_message_timeout : c->idle_since + a->ws_idle_timeout);
    if (k == GOT_STOP) return snprintf(why, whyn, "the server is shutting down"), 1001;
    if (k == GOT_LATE && busy)
      return snprintf(why, whyn, "a message not received within %g s (--ws-message-timeout)", a->ws_message_timeout), 1008;
    if (k == GOT_LATE) return snprintf(why, whyn, "idle for %g s (--ws-idle-timeout)", a->ws_idle_timeout), 1001;
    if (!k) return 0;
  }
}

/* serve_req.gone while a message is translated: the client closed or reset the
 * connection. poll reads nothing: bytes it sent stay for the reader. */
static bool client_gone(void *fd) {
  struct pollfd w = {.fd = *(const int *)fd, .events = POLLRDHUP};
  return poll(&w, 1, 0) > 0 && (w.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/* Translate one message of lines: the JSON request {"text": [lines]}. */
static int translate_lines(serve_batcher *b, const serve_args *a, bool attention, conn *c, const nmt_strbuf *msg,
                           nmt_strbuf *answer, char *err, size_t errn) {
  const char *s = msg->s ? msg->s : "", *end = s + msg->len;
  size_t n_lines = 0; /* counted before any is built: a message of line breaks was ~100 bytes a line */
  for (const char *p = s; p < end && (p = memchr(p, '\n', (size_t)(end - p))); p++) n_lines++;
  if (n_lines + (msg->len && end[-1] != '\n') > (size_t)a->max_request_sentences)
    return snprintf(err, errn, "more than %ld sentences in one message (--max-request-sentences)", a->max_request_sentences), 413;
  json_t *lines = json_array();
  for (int i = 1; lines && s < end; i++) { /* a last line break ends the last line */
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
    json_t *line = json_stringn(s, n > 0 && s[n - 1] == '\r' ? n - 1 : n);
    if (!line) { /* a websocket's text is UTF-8 */
      json_decref(lines);
      snprintf(err, errn, "line %d: invalid UTF-8", i);
      return 400;
    }
    json_array_append_new(lines, line);
    s += n + 1;
  }
  json_t *body = lines ? json_pack("{s:o}", "text", lines) : NULL;
  char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
  json_decref(body);
  serve_req r;
  int status = text ? serve_req_parse(&r, text, strlen(text), a, attention) : (r = (serve_req){0}, 500);
  free(text);
  r.gone = client_gone, r.gone_ctx = &c->fd; /* its sentences leave the lanes once it has gone */
  if (!status) serve_translate(b, &r), status = r.status;
  answer->len = 0;
  for (int i = 0; !status && i < r.n; i++) {
    const char *t = json_string_value(json_array_get(r.out, (size_t)i));
    if ((i && nmt_strbuf_add(answer, "\n", 1)) || nmt_strbuf_add(answer, t, strlen(t))) status = 500;
  }
  snprintf(err, errn, "%s", status == 500 && !r.err[0] ? "out of memory" : r.err);
  serve_req_free(&r);
  return status;
}

/* A control frame answered: false after the client's close (echoed). */
static bool answer_control(conn *c, const ws_reader *r) {
  if (r->ctl_op == WS_PING) return send_frame(c, WS_PONG, r->ctl, r->ctl_len);
  if (r->ctl_op == WS_PONG) return true;
  send_frame(c, WS_CLOSE, r->ctl, r->ctl_len < 2 ? r->ctl_len : 2); /* its code back */
  return false;
}

/* A message answered: 0; a close code for the client with why; -1 when it has gone. */
static int answer_message(conn *c, serve_batcher *b, const serve_args *a, bool attention, const ws_reader *r,
                          nmt_strbuf *answer, char *why, size_t whyn) {
  if (r->msg_op == WS_BIN) return snprintf(why, whyn, "text messages only"), 1003;
  int status = translate_lines(b, a, attention, c, &r->msg, answer, why, whyn);
  if (status == 499) return -1;
  if (status) return status == 400 ? 1007 : status == 413 ? 1009 : status == 503 ? 1001 : 1011;
  return send_frame(c, WS_TEXT, answer->s ? answer->s : "", answer->len) ? 0 : -1;
}

void serve_ws_run(serve_batcher *b, const serve_args *a, bool attention, const atomic_bool *stopping, int fd,
                  const char *extra, size_t extra_n) {
  conn c = {.fd = fd, .extra = extra, .extra_n = extra_n, .stopping = stopping, .idle_since = nmt_seconds(),
            .send_s = a->ws_message_timeout};
  ws_reader r = {.max = (size_t)a->max_request_bytes};
  nmt_strbuf answer = {0};
  char why[256];
  int code = 0;
  for (int ev; !code && (ev = next_event(&c, &r, a, why, sizeof why));) {
    if (ev == WS_MESSAGE) { /* pings do not count against the idle limit: messages do */
      code = answer_message(&c, b, a, attention, &r, &answer, why, sizeof why);
      c.idle_since = nmt_seconds();
    } else if (ev != WS_CONTROL) {
      code = ev;
    } else if (!answer_control(&c, &r)) {
      close_gracefully(&c);
      break;
    }
  }
  if (code > 0) send_close(&c, code, why), close_gracefully(&c);
  ws_reader_free(&r), free(answer.s);
}

/* Marian's websocket protocol, so marian-server's clients work unchanged: a
 * websocket on /translate, each text message holding sentences one a line,
 * answered by one message with their translations one a line. The handshake
 * and the frames (RFC 6455) are done here over the socket libmicrohttpd hands
 * over after its 101 answer; a message is translated as the JSON request
 * {"text": [lines]} would be. */
#include "base/strbuf.h"
#include "serve_tool.h"
#include <errno.h>
#include <fcntl.h>
#include <nettle/base64.h>
#include <nettle/sha1.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>

enum { OP_CONT = 0, OP_TEXT = 1, OP_BIN = 2, OP_CLOSE = 8, OP_PING = 9, OP_PONG = 10 };

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
 * and the server's stop flag, looked at while waiting for the client. */
typedef struct {
  int fd;
  const char *extra;
  size_t extra_n;
  const atomic_bool *stopping;
} conn;

static bool read_all(conn *c, void *buf, size_t n) {
  char *p = buf;
  while (n && c->extra_n) *p++ = *c->extra++, n--, c->extra_n--;
  while (n) {
    ssize_t k = recv(c->fd, p, n, 0);
    if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !atomic_load(c->stopping)) continue;
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

static bool write_all(int fd, const void *buf, size_t n) {
  const char *p = buf;
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

/* One unmasked frame from the server (FIN set). */
static bool send_frame(int fd, int op, const void *data, size_t n) {
  uint8_t head[10] = {(uint8_t)(0x80 | op)};
  size_t h = 2;
  if (n < 126) head[1] = (uint8_t)n;
  else if (n < 65536) head[1] = 126, head[2] = (uint8_t)(n >> 8), head[3] = (uint8_t)n, h = 4;
  else {
    head[1] = 127, h = 10;
    for (int i = 0; i < 8; i++) head[2 + i] = (uint8_t)((uint64_t)n >> (56 - 8 * i));
  }
  return write_all(fd, head, h) && write_all(fd, data, n);
}

/* A close frame: code and a one-line reason (at most 123 bytes). */
static void send_close(int fd, int code, const char *why) {
  char body[125] = {(char)(code >> 8), (char)code};
  size_t n = strlen(why) < 123 ? strlen(why) : 123;
  memcpy(body + 2, why, n);
  send_frame(fd, OP_CLOSE, body, n + 2);
}

/* The next whole message into msg (control frames answered on the way): its
 * opcode, 0 when the client closed or broke off, -1 with *code for a close of
 * ours (a frame over max bytes, not masked). */
static int next_message(conn *c, nmt_strbuf *msg, size_t max, int *code) {
  msg->len = 0;
  int op = -1;
  for (;;) {
    uint8_t h[2], mask[4];
    if (!read_all(c, h, 2)) return 0;
    uint64_t n = h[1] & 0x7f;
    if (n >= 126) {
      uint8_t e[8];
      int k = n == 126 ? 2 : 8;
      if (!read_all(c, e, (size_t)k)) return 0;
      n = 0;
      for (int i = 0; i < k; i++) n = n << 8 | e[i];
    }
    if (!(h[1] & 0x80)) return *code = 1002, -1; /* clients must mask */
    if (!read_all(c, mask, 4)) return 0;
    int fop = h[0] & 0x0f;
    bool control = fop >= OP_CLOSE;
    if (control ? n > 125 : msg->len + n > max) return *code = 1009, -1;
    char small[125];
    char *p = small;
    if (!control) {
      if (nmt_strbuf_reserve(msg, msg->len + n + 1)) return *code = 1011, -1;
      p = msg->s + msg->len;
    }
    if (!read_all(c, p, n)) return 0;
    for (uint64_t i = 0; i < n; i++) p[i] ^= (char)mask[i % 4];
    if (fop == OP_CLOSE) return send_frame(c->fd, OP_CLOSE, p, n < 2 ? (size_t)n : 2), 0;
    if (fop == OP_PING) {
      if (!send_frame(c->fd, OP_PONG, p, n)) return 0;
      continue;
    }
    if (fop == OP_PONG) continue;
    if (op < 0) op = fop;
    msg->len += n;
    if (h[0] & 0x80) return op;
  }
}

/* Translate one message of lines: the JSON request {"text": [lines]}. */
static int translate_lines(serve_batcher *b, const serve_args *a, bool attention, const nmt_strbuf *msg,
                           nmt_strbuf *answer, char *err, size_t errn) {
  json_t *lines = json_array();
  const char *s = msg->s ? msg->s : "", *end = s + msg->len;
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

void serve_ws_run(serve_batcher *b, const serve_args *a, bool attention, const atomic_bool *stopping, int fd,
                  const char *extra, size_t extra_n) {
  conn c = {fd, extra, extra_n, stopping};
  /* this thread is the connection's own: block, but wake every 0.2 s to see a SIGTERM */
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){0, 200000}, sizeof(struct timeval));
  nmt_strbuf msg = {0}, answer = {0};
  char err[256];
  for (int code = 0, op; (op = next_message(&c, &msg, (size_t)a->max_request_bytes, &code)) != 0;) {
    if (op < 0 || op == OP_BIN) {
      send_close(fd, op < 0 ? code : 1003, op < 0 ? (code == 1009 ? "message over --max-request-bytes" : "bad frame")
                                                  : "text messages only");
      break;
    }
    int status = translate_lines(b, a, attention, &msg, &answer, err, sizeof err);
    if (status) {
      send_close(fd, status == 413 ? 1009 : status == 503 ? 1001 : 1007, err);
      break;
    }
    if (!send_frame(fd, OP_TEXT, answer.s ? answer.s : "", answer.len)) break;
  }
  if (atomic_load(stopping)) send_close(fd, 1001, "the server is shutting down");
  free(msg.s), free(answer.s);
}

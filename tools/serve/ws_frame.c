/* RFC 6455 frames from a byte stream (ws_frame.h). Every length a client
 * declares is checked against what is left of the message's limit before a
 * byte is stored, with subtraction, never by adding to it: a 64-bit length
 * cannot wrap a sum. */
#include "ws_frame.h"
#include "base/utf8.h"

size_t ws_frame_head(const uint8_t *p, size_t n, ws_frame *f) {
  if (n < 2) return 0;
  size_t ext = (p[1] & 0x7f) == 126 ? 2 : (p[1] & 0x7f) == 127 ? 8 : 0;
  bool masked = p[1] & 0x80;
  size_t h = 2 + ext + (masked ? 4 : 0);
  if (n < h) return 0;
  *f = (ws_frame){.fin = p[0] & 0x80, .rsv = p[0] >> 4 & 7, .op = p[0] & 0x0f, .masked = masked, .len = p[1] & 0x7f};
  if (ext) f->len = 0;
  for (size_t i = 0; i < ext; i++) f->len = f->len << 8 | p[2 + i]; /* longer encodings than needed are fine */
  if (masked) memcpy(f->mask, p + 2 + ext, 4);
  return h;
}

size_t ws_frame_encode(uint8_t head[10], int op, uint64_t n) {
  head[0] = (uint8_t)(0x80 | op);
  if (n < 126) return head[1] = (uint8_t)n, 2;
  if (n < 65536) return head[1] = 126, head[2] = (uint8_t)(n >> 8), head[3] = (uint8_t)n, 4;
  head[1] = 127;
  for (int i = 0; i < 8; i++) head[2 + i] = (uint8_t)(n >> (56 - 8 * i));
  return 10;
}

static int fail(ws_reader *r, int code, const char *why) {
  r->why = why;
  return code;
}

/* 0, or the close code of a header the protocol or the limit refuses. */
static int check(ws_reader *r, const ws_frame *f) {
  bool control = f->op >= WS_CLOSE;
  if (!f->masked) return fail(r, 1002, "an unmasked frame (a client must mask its frames)");
  if (f->rsv) return fail(r, 1002, "reserved bits set (no extension was agreed)");
  if ((f->op > WS_BIN && f->op < WS_CLOSE) || f->op > WS_PONG) return fail(r, 1002, "a reserved opcode");
  if (f->len >> 63) return fail(r, 1002, "a 64-bit length with its top bit set");
  if (control && f->len > sizeof r->ctl) return fail(r, 1002, "a control frame over 125 bytes");
  if (control && !f->fin) return fail(r, 1002, "a fragmented control frame");
  if (f->op == WS_CONT && !r->msg_op) return fail(r, 1002, "a continuation frame with no message begun");
  if (f->op != WS_CONT && !control && r->msg_op) return fail(r, 1002, "a new message inside a fragmented one");
  if (!control && f->len > r->max - r->msg.len) return fail(r, 1009, "a message over the size limit"); /* len <= max */
  return 0;
}

/* Header bytes from p[0..n) (*used of them): WS_MORE, or a close code. */
static int header(ws_reader *r, const uint8_t *p, size_t n, size_t *used) {
  size_t had = r->head_n, k = sizeof r->head - had < n ? sizeof r->head - had : n;
  memcpy(r->head + had, p, k);
  size_t h = ws_frame_head(r->head, had + k, &r->f);
  if (!h) return r->head_n += k, *used = k, WS_MORE; /* a header is 14 bytes at most: h > 0 then */
  *used = h - had;
  r->head_n = 0;
  int code = check(r, &r->f);
  if (code) return code;
  if (r->f.op == WS_TEXT || r->f.op == WS_BIN) r->msg_op = r->f.op;
  r->in_payload = true, r->got = 0;
  return WS_MORE;
}

/* A close frame's payload: none, or a code a peer may send and a UTF-8 reason. */
static int check_close(ws_reader *r) {
  if (!r->ctl_len) return WS_CONTROL;
  if (r->ctl_len == 1) return fail(r, 1002, "a close frame of 1 byte");
  int code = r->ctl[0] << 8 | r->ctl[1];
  if (!(code >= 1000 && code <= 1003) && !(code >= 1007 && code <= 1014) && !(code >= 3000 && code <= 4999))
    return fail(r, 1002, "a close code a peer may not send");
  size_t n = r->ctl_len - 2;
  if (nmt_utf8_invalid((const char *)r->ctl + 2, n) != n) return fail(r, 1007, "a close reason that is not UTF-8");
  return WS_CONTROL;
}

/* Payload bytes from p[0..n) (*used of them), unmasked into the message or
 * r->ctl: WS_MORE until the frame ends, then what it completed. */
static int payload(ws_reader *r, const uint8_t *p, size_t n, size_t *used) {
  uint64_t left = r->f.len - r->got;
  size_t k = left < n ? (size_t)left : n;
  bool control = r->f.op >= WS_CLOSE;
  /* control: got + k <= 125; data: got + k <= len <= max - msg.len, so no sum here can wrap */
  if (!control && nmt_strbuf_reserve(&r->msg, k)) return fail(r, 1011, "out of memory");
  uint8_t *to = control ? r->ctl + r->got : (uint8_t *)r->msg.s + r->msg.len;
  for (size_t i = 0; i < k; i++) to[i] = p[i] ^ r->f.mask[(r->got + i) & 3];
  r->got += k, *used = k;
  if (!control) r->msg.len += k, r->msg.s[r->msg.len] = '\0';
  if (r->got < r->f.len) return WS_MORE;
  r->in_payload = false;
  if (control) {
    r->ctl_op = r->f.op, r->ctl_len = (size_t)r->f.len;
    return r->ctl_op == WS_CLOSE ? check_close(r) : WS_CONTROL;
  }
  if (!r->f.fin) return WS_MORE;
  r->handed_out = true;
  return WS_MESSAGE;
}

int ws_read(ws_reader *r, const uint8_t *p, size_t n, size_t *used) {
  if (r->handed_out) { /* the message handed out last time is done with */
    r->msg.len = 0, r->msg_op = 0, r->handed_out = false;
    if (r->msg.s) r->msg.s[0] = '\0';
  }
  size_t at = 0;
  int ev = WS_MORE;
  /* each step takes a byte or ends a frame (one of 0 bytes ends without any) */
  while (ev == WS_MORE && (at < n || (r->in_payload && r->got == r->f.len))) {
    size_t k = 0;
    ev = r->in_payload ? payload(r, p + at, n - at, &k) : header(r, p + at, n - at, &k);
    at += k;
  }
  *used = at;
  return ev;
}

bool ws_reader_busy(const ws_reader *r) { return r->head_n || r->in_payload || (r->msg_op && !r->handed_out); }

void ws_reader_free(ws_reader *r) { nmt_strbuf_free(&r->msg); }

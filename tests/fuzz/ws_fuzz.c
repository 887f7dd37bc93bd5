/* libFuzzer target: nmt-serve's websocket reader (tools/serve/ws_frame.c), the
 * code its socket loop runs: the input's bytes are a client's, after the
 * handshake, fed to ws_read in pieces as recv would hand them over (the
 * first byte picks the pieces' size), with a message limit of 4 KB. Every
 * message and control frame handed out is checked against the limits, and
 * the header encoder the server writes with is read back. */
#include "serve/ws_frame.h"
#include <stdlib.h>
#include <string.h>

enum { MAX_MESSAGE = 4096 };

/* What the server relies on in what ws_read hands out. */
static void check(const ws_reader *r, int ev) {
  if (ev == WS_MESSAGE && (r->msg.len > r->max || r->msg.s[r->msg.len] || (r->msg_op != WS_TEXT && r->msg_op != WS_BIN)))
    abort();
  if (ev == WS_CONTROL && (r->ctl_len > sizeof r->ctl || r->ctl_op < WS_CLOSE || r->ctl_op > WS_PONG)) abort();
  if (ev >= 1000 && (!r->why || (ev != 1002 && ev != 1007 && ev != 1009 && ev != 1011))) abort();
}

/* Our own header for a length taken from the input parses back to it. */
static void round_trip(const uint8_t *data, size_t size) {
  uint64_t n = 0;
  for (size_t i = 0; i < size && i < 8; i++) n = n << 8 | data[i];
  n >>= size % 64; /* lengths of every magnitude */
  uint8_t head[14];
  size_t h = ws_frame_encode(head, WS_TEXT, n);
  ws_frame f;
  if (ws_frame_head(head, h, &f) != h || f.len != n || !f.fin || f.op != WS_TEXT || f.masked || f.rsv) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  size_t piece = data[0] < 128 ? (size_t)data[0] % 16 + 1 : (size_t)data[0] * 64; /* 1-16 bytes, or 8-16 KB */
  const uint8_t *p = data + 1, *end = data + size;
  ws_reader r = {.max = MAX_MESSAGE};
  for (int ev = WS_MORE; p < end && ev < 1000;) {
    size_t n = (size_t)(end - p) < piece ? (size_t)(end - p) : piece, used;
    ev = ws_read(&r, p, n, &used);
    if (used > n || (ev == WS_MORE && used != n)) abort();
    check(&r, ev);
    p += used;
  }
  ws_reader_free(&r);
  round_trip(data, size);
  return 0;
}

/* RFC 6455 frames read from a byte stream, without a socket: websocket.c feeds
 * the reader whatever bytes recv gave, and tests/fuzz/ws_fuzz.c feeds it
 * arbitrary ones, in pieces of any size. A client's frames must be masked;
 * what breaks the protocol is a close code, never an allocation first. */
#ifndef NMT_TOOLS_SERVE_WS_FRAME_H
#define NMT_TOOLS_SERVE_WS_FRAME_H
#include "base/strbuf.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { WS_CONT = 0, WS_TEXT = 1, WS_BIN = 2, WS_CLOSE = 8, WS_PING = 9, WS_PONG = 10 };

/* ws_read's answers; a close code (>= 1000) when the connection must end. */
enum { WS_MORE = 0, WS_MESSAGE = 1, WS_CONTROL = 2 };

/* A frame's header. */
typedef struct {
  bool fin, masked;
  int rsv, op;  /* the reserved bits (0 unless an extension was agreed: none here), the opcode */
  uint64_t len; /* payload bytes, as declared */
  uint8_t mask[4];
} ws_frame;

/* Zero-initialise, then set max; ws_reader_free when done. */
typedef struct {
  size_t max;       /* a data message's largest size in bytes */
  nmt_strbuf msg;   /* the data message being assembled, unmasked (NUL-terminated) */
  int msg_op;       /* its opcode, WS_TEXT or WS_BIN; 0: no message begun */
  uint8_t ctl[125]; /* the last control frame's payload, unmasked */
  size_t ctl_len;
  int ctl_op;
  const char *why; /* a close code's reason, one line */
  /* the frame being read: its header bytes so far, then the header and the payload bytes read */
  uint8_t head[14];
  size_t head_n;
  bool in_payload, handed_out;
  ws_frame f;
  uint64_t got;
} ws_reader;

/* The header at p[0..n): its size (2 to 14 bytes) with *f set, 0 when more bytes are needed. */
size_t ws_frame_head(const uint8_t *p, size_t n, ws_frame *f);
/* A server frame's header (FIN, unmasked) for op and n payload bytes into head: its size. */
size_t ws_frame_encode(uint8_t head[10], int op, uint64_t n);

/* Take bytes from p[0..n) (*used of them) until one of: WS_MORE (all taken: feed
 * more); WS_MESSAGE, a whole data message in r->msg (opcode r->msg_op), valid
 * until the next call; WS_CONTROL, a ping, pong or close in r->ctl (a close's
 * code checked); or a close code with r->why: 1002 for a protocol violation,
 * 1009 for a message over r->max, 1011 out of memory. After a close code the
 * reader must not be fed again. */
int ws_read(ws_reader *r, const uint8_t *p, size_t n, size_t *used);
/* Part of a frame or of a data message has arrived (the client is mid-message). */
bool ws_reader_busy(const ws_reader *r);
void ws_reader_free(ws_reader *r);

#endif

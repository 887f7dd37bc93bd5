/* nmt-serve's open connections and the watchdog that bounds the time to receive a
 * request (--receive-timeout). libmicrohttpd's own timeout is an idle one, which each
 * byte restarts: a client trickling its headers or its body would hold its thread
 * forever. A request's clock starts when its connection opens, or when the previous
 * answer on it was sent; the watchdog answers a request still arriving past the limit
 * itself and shuts its socket, which ends libmicrohttpd's read (conns.c). An answer
 * must likewise be taken whole within --send-timeout of being queued: the idle timeout
 * restarts with every byte sent too, so a client reading a byte a minute held its
 * thread and its --max-connections slot. */
#ifndef NMT_TOOLS_SERVE_CONNS_H
#define NMT_TOOLS_SERVE_CONNS_H
#include <stdbool.h>

typedef struct serve_conns serve_conns;
typedef struct serve_conn serve_conn;

typedef enum {
  SERVE_CONN_RECEIVING, /* a request arrives (or the next is awaited): on the clock */
  SERVE_CONN_ANSWERING, /* its request is complete: being translated */
  SERVE_CONN_SENDING,   /* its answer is queued: on the --send-timeout clock */
  SERVE_CONN_UPGRADED,  /* a websocket now, for good */
  SERVE_CONN_CLOSING,   /* the drain shut its sending side: its client's close is awaited */
} serve_conn_state;

/* The list and its watchdog thread. NMT_OK or an error (message set). */
int serve_conns_start(serve_conns **cs, double receive_timeout, double send_timeout);
/* A connection opened on socket fd (receiving); NULL when out of memory. */
serve_conn *serve_conn_open(serve_conns *cs, int fd);
/* Before its socket is closed. */
void serve_conn_close(serve_conns *cs, serve_conn *k);
/* Receiving restarts its clock; an upgraded or closing connection stays so. */
void serve_conn_set(serve_conns *cs, serve_conn *k, serve_conn_state s);
/* Answer every connection still receiving with status and message why, and shut it. */
void serve_conns_cut(serve_conns *cs, unsigned status, const char *why);
/* The end of a drain, no request left in flight: shut the sending side of every
 * connection awaiting its next request and wait, `seconds` at most, until their clients
 * have closed them. Closing one at once would reset a request its client sent as the
 * server closed it, unread (curl exit 55 or 56); read, it ends with the connection's
 * close, unanswered, and a client retries it on a new connection, refused. */
void serve_conns_linger(serve_conns *cs, double seconds);
/* The status a cut answered k's request with on its socket (408, or serve_conns_cut's);
 * 0 when none was. */
unsigned serve_conn_cut_status(serve_conns *cs, const serve_conn *k);
/* Stop the watchdog, free the list (its connections closed first). */
void serve_conns_stop(serve_conns *cs);

#endif

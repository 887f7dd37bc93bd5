/* nmt-serve: an HTTP/JSON translation server; the model (or an ensemble) is
 * loaded once, and the sentences of concurrent requests are decoded together
 * (batcher.c). */
#include "base/cli.h"
#include "base/err.h"
#include "decode/stream.h"
#include "nn/backend.h"
#include "text/bpe.h"
#include "serve_tool.h"
#include "tool.h"
#include <arpa/inet.h>
#include <cblas.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The exit status of a SIGTERM whose drain --drain-timeout cut short. */
enum { SERVE_EXIT_DRAIN_CUT = 4 };

static int parse_args(serve_args *a, int argc, char **argv) {
  *a = (serve_args){.host = "127.0.0.1", .port = 8080, .mini_batch = 64, .max_batch_words = 4096,
                    .max_request_bytes = 1 << 20, .max_sentence_words = 200, .max_length = 1000,
                    .max_alignment_cells = 200000, .max_answer_bytes = 32 << 20, .max_queued = 100000, .beam = 5,
                    .max_beam = 16, .normalize = 0.6, .max_length_factor = 3, .gemm_type = "float32",
                    .bpe_cache_bytes = NMT_BPE_CACHE_BYTES, .ws_idle_timeout = 300, .ws_message_timeout = 60,
                    .max_request_sentences = 20000, .max_connections = 64, .receive_timeout = 30, .send_timeout = 60,
                    .drain_timeout = 30};
  const nmt_opt opts[] = {
      {"model", 'm', NMT_OPT_LIST, &a->models, "FILE", "model or checkpoint from nmt-train (required); several: an ensemble",
       .once = true},
      {"weights", 0, NMT_OPT_LIST, &a->weights, "W", "an ensemble's weights, one per model, relative (equal)", .once = true},
      {"host", 0, NMT_OPT_STR, &a->host, "ADDR", "IPv4 address to listen on (127.0.0.1; 0.0.0.0: every interface)"},
      {"port", 'p', NMT_OPT_INT, &a->port, "N", "TCP port (8080); 0 picks a free one, told on stderr", .min = 0, .max = 65535},
      {"threads", 0, NMT_OPT_INT, &a->threads, "N", "decoding threads (the cores, at most 8)", .min = 1, .max = NMT_MAX_DECODE_THREADS},
      {"mini-batch", 0, NMT_OPT_INT, &a->mini_batch, "N", "sentences decoded together (64; up to 10000)", .min = 1, .max = 10000},
      {"max-batch-words", 0, NMT_OPT_INT, &a->max_batch_words, "N",
       "words of queued sentences taken into one round, a mini-batch (4096)", .min = 1, .max = 10000000},
      {"max-request-bytes", 0, NMT_OPT_INT, &a->max_request_bytes, "N", "larger request bodies get 413 (1048576)",
       .min = 16, .max = 1 << 30},
      {"max-request-sentences", 0, NMT_OPT_INT, &a->max_request_sentences, "N",
       "a request (websocket message) of more sentences gets 413 (20000)", .min = 1, .max = 10000000},
      {"max-connections", 0, NMT_OPT_INT, &a->max_connections, "N",
       "connections served at once; more wait to be accepted (64)", .min = 1, .max = 100000},
      {"receive-timeout", 0, NMT_OPT_DOUBLE, &a->receive_timeout, "S",
       "408 for a request not received in full within S seconds (30)", .min = 0,
       .max = 86400, .open_min = true},
      {"send-timeout", 0, NMT_OPT_DOUBLE, &a->send_timeout, "S",
       "an answer not taken whole by its client within S seconds: the connection is closed (60)", .min = 0,
       .max = 86400, .open_min = true},
      {"drain-timeout", 0, NMT_OPT_DOUBLE, &a->drain_timeout, "S",
       "SIGTERM's wait for the requests in flight; then 503, exit 4 (30)", .min = 0,
       .max = 86400},
      {"allow-origin", 0, NMT_OPT_STR, &a->allow_origin, "LIST",
       "origins whose pages may use it (CORS), comma-separated, or * (its own)"},
      {"ws-idle-timeout", 0, NMT_OPT_DOUBLE, &a->ws_idle_timeout, "S",
       "a websocket with no message for S seconds is closed, 1001 (300)", .min = 0, .max = 86400, .open_min = true},
      {"ws-message-timeout", 0, NMT_OPT_DOUBLE, &a->ws_message_timeout, "S",
       "a websocket message not received, or its answer not taken, within S seconds: close 1008 (60)", .min = 0,
       .max = 86400, .open_min = true},
      {"max-sentence-words", 0, NMT_OPT_INT, &a->max_sentence_words, "N", "a longer sentence gets 413 (200)", .min = 1,
       .max = 100000},
      {"max-length", 0, NMT_OPT_INT, &a->max_length, "N", "longer sources: translate the first N subwords, warn (1000)",
       .min = 1, .max = 100000},
      {"bpe-cache-bytes", 0, NMT_OPT_INT, &a->bpe_cache_bytes, "N",
       "plain-text requests: bytes of BPE'd words kept for reuse, all threads together (64 MiB; 0: none)", .min = 0,
       .max = 1L << 40},
      {"max-alignment-cells", 0, NMT_OPT_INT, &a->max_alignment_cells, "N",
       "an \"alignment\" whose grid, (subwords + 1) x the longest translation, could pass N gets 413 before decoding "
       "(200000)", .min = 1, .max = 1e9},
      {"max-answer-bytes", 0, NMT_OPT_INT, &a->max_answer_bytes, "N",
       "a request whose answer passes N bytes of JSON gets 413, its decoding stopped (33554432)", .min = 64, .max = 1L << 40},
      {"max-queued-sentences", 0, NMT_OPT_INT, &a->max_queued, "N",
       "sentences queued for decoding: a request past it gets 503, one over it alone 413 (100000)", .min = 1, .max = 1e8},
      {"beam-size", 'b', NMT_OPT_INT, &a->beam, "N", "beam size when a request names none (5)", .min = 1, .max = 1000},
      {"max-beam-size", 0, NMT_OPT_INT, &a->max_beam, "N", "the largest beam_size a request may ask (16)", .min = 1, .max = 1000},
      {"normalize", 'n', NMT_OPT_DOUBLE, &a->normalize, "ALPHA", "rank by score / length^ALPHA (0.6; 0 to 10)", .min = 0, .max = 10},
      {"max-length-factor", 0, NMT_OPT_DOUBLE, &a->max_length_factor, "F",
       "at most F x (source tokens + 1) target tokens (3; up to 100)", .min = 0, .max = 100, .open_min = true},
      {"bpe-input", 0, NMT_OPT_FLAG, &a->bpe_input, NULL, "requests hold BPE'd text (nmt-decode without --raw)"},
      {"no-postprocess", 0, NMT_OPT_FLAG, &a->no_postprocess, NULL, "answer subwords as the model writes them"},
      {"gemm-type", 0, NMT_OPT_STR, &a->gemm_type, "T", "float32, or int8: weights quantized per column (float32)"},
      {0}};
  const nmt_cli cli = {PROG, "-m MODEL [options]",
                       "Serve translations over HTTP: POST /translate {\"text\": \"a sentence\"} or {\"text\": [\"a\", \"b\"]}\n"
                       "(optional \"beam_size\", \"n_best\", \"alignment\": true, \"soft\" or \"svg\") answers {\"translation\": ...} in\n"
                       "the same shape; plain text is tokenized and BPE'd as nmt-decode --raw does. GET /health answers 200,\n"
                       "GET / is a page to try the model in a browser; ws://.../translate is marian-server's\n"
                       "websocket protocol (a message of lines in, their translations out).\n"
                       "A bad request gets a 4xx and {\"error\": \"...\"} (docs/serve.md lists every limit). SIGTERM\n"
                       "finishes the requests in flight and exits 0; those still in flight after --drain-timeout\n"
                       "get 503, and the exit status is 4. Exit 1 usage, 2 bad model, 3 I/O.",
                       PROG " -m fr-en.bin --port 8080 &\n"
                       "  curl -s localhost:8080/translate -d '{\"text\": \"Bonjour le monde !\"}'\n"
                       "  " PROG " -m a.bin b.bin --weights 0.6 0.4   (an ensemble, as nmt-decode's)",
                       opts, false};
  nmt_strlist pos = {0};
  int st = nmt_cli_parse(&cli, argc, argv, &pos);
  if (!st && pos.n) st = nmt_fail(NMT_EUSAGE, "unexpected argument '%s' (see --help)", pos.v[0]);
  free(pos.v);
  if (!st && !a->models.n) st = nmt_fail(NMT_EUSAGE, "-m/--model FILE is required");
  if (!st && a->beam > a->max_beam) st = nmt_fail(NMT_EUSAGE, "--beam-size %ld is over --max-beam-size %ld", a->beam, a->max_beam);
  struct in_addr ip;
  if (!st && inet_pton(AF_INET, a->host, &ip) != 1)
    st = nmt_fail(NMT_EUSAGE, "--host '%s': expected an IPv4 address such as 127.0.0.1", a->host);
  if (!st && strcmp(a->gemm_type, "float32") && strcmp(a->gemm_type, "int8"))
    st = nmt_fail(NMT_EUSAGE, "--gemm-type '%s': expected float32 or int8", a->gemm_type);
  return st;
}

/* SIGTERM and SIGINT write a byte here; main waits on it. A pipe, because the
 * signal may land in any thread (OpenBLAS starts its own before main). */
static int stop_pipe[2];

static void on_stop(int sig) {
  int saved = errno;
  (void)!write(stop_pipe[1], "", 1);
  errno = saved;
}

static void wait_for_stop(void) {
  char c;
  while (read(stop_pipe[0], &c, 1) < 0 && errno == EINTR) {}
}

int main(int argc, char **argv) {
  tool_init(PROG);
  serve_args a;
  int st = parse_args(&a, argc, argv);
  if (st) nmt_die(PROG, st);
  if (!a.threads) a.threads = openblas_get_num_threads() < NMT_MAX_DECODE_THREADS ? openblas_get_num_threads()
                                                                                 : NMT_MAX_DECODE_THREADS;
  if (pipe2(stop_pipe, O_CLOEXEC)) nmt_die(PROG, nmt_fail_errno(NMT_EIO, "pipe"));
  struct sigaction sa = {.sa_handler = on_stop};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL), sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN); /* a client that hangs up is that connection's problem only */
  nmt_ensemble e;
  if ((st = nmt_ensemble_load(&e, a.models.v, a.models.n, a.weights.v, a.weights.n))) nmt_die(PROG, st);
  const nmt_model *m = &e.model[0]; /* it reads the requests' text */
  if (!a.bpe_input && (!m->tok.src_lang[0] || !m->bpe_codes))
    nmt_die(PROG, nmt_fail(NMT_EUSAGE, "%s: plain-text requests need a model with tokenizer settings and BPE codes "
                                       "(nmt-train --src-lang, --tgt-lang, --bpe-codes); BPE'd requests: --bpe-input",
                           a.models.v[0]));
  for (int i = 0; i < e.n && !strcmp(a.gemm_type, "int8"); i++)
    if ((st = nn_params_quantize(&e.model[i].params))) nmt_die(PROG, st);
  if ((st = nmt_ensemble_upload(&e, &nn_cpu_backend))) nmt_die(PROG, st);
  serve_batcher *b;
  serve_http *h;
  int port;
  if ((st = serve_batcher_start(&b, &e, &a))) nmt_die(PROG, st);
  if ((st = serve_http_start(&h, b, &e, &a, &port))) nmt_die(PROG, st);
  fprintf(stderr, "%s: listening on http://%s:%d (%ld decoding threads)\n", PROG, a.host, port, a.threads);
  wait_for_stop();
  fprintf(stderr, "%s: stopping: finishing the requests in flight\n", PROG);
  bool cut = serve_http_stop(h);
  if (cut) nmt_warn(PROG, "requests still in flight after --drain-timeout %g s were answered 503", a.drain_timeout);
  serve_batcher_stop(b);
  nmt_ensemble_free(&e);
  free(a.models.v), free(a.weights.v);
  return cut ? SERVE_EXIT_DRAIN_CUT : 0;
}

/* A closed-loop load generator for nmt-serve (bench/serve_ops.sh): C clients, each
 * on its own kept-alive HTTP/1.1 connection, send one sentence after another to
 * POST /translate for S seconds; every answer is checked against nmt-decode's
 * translation of the sentence. A pthread and a plain socket a client: a Python or
 * curl client would take the cores the server needs.
 *
 *   serve_load [-c C] [-t S] [-p PID] [-k] [-w FILE] PORT SENTENCES WANT
 *
 * Client i starts at line i * N / C of SENTENCES (BPE'd, one a line) and goes on in
 * order, wrapping. A 503 is answered with the Retry-After wait (the server closes
 * the connection; the client opens another and sends the sentence again). -p PID:
 * the server's VmRSS and Threads each second (/proc/PID/status). -k: SIGTERM to PID
 * at the end, then each client goes on until the server refuses its connection, and
 * the drain's outcomes are counted. -w FILE: each request's "start_s latency_ms
 * status" line. The summary is "key value" lines on stdout. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
  double start; /* since the run began, s */
  float ms;     /* until the answer was read whole */
  short status; /* HTTP status; 0: the connection failed (no answer) */
  bool right;   /* a 200 whose translation is nmt-decode's */
  bool after;   /* sent after -k's SIGTERM */
} sample;

typedef struct {
  int id, fd, retry_s;
  sample *s;
  int n, cap;
  int refused; /* -k: its connection refused after SIGTERM (it ends there) */
  char buf[1 << 16];
} client;

static struct {
  int port, clients;
  double secs;
  int pid;
  bool term;
  char **body, **want; /* each sentence's request body and expected answer */
  size_t *body_n, *want_n;
  int n;
  struct timespec t0;
  atomic_bool termed; /* -k's SIGTERM sent */
  atomic_bool done;   /* the sampler stops */
  double term_at;     /* when -k's SIGTERM was sent */
  int rss[4096], threads[4096], nsamples;
} g;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - g.t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - g.t0.tv_nsec);
}

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) fprintf(stderr, "serve_load: out of memory\n"), exit(1);
  return p;
}

/* s[0..n) as the inside of a JSON string, as jansson writes one: '"', '\\' and \b \f \n \r
 * \t escaped as two characters, other controls as \u00XX, UTF-8 as it is. */
static char *json_escape(const char *s, size_t n, size_t *out_n) {
  char *o = xmalloc(6 * n + 1), *p = o;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *e = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                  : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
    if (e) p += sprintf(p, "%s", e);
    else if (c < 0x20) p += sprintf(p, "\\u%04x", c);
    else *p++ = (char)c;
  }
  *p = 0;
  *out_n = (size_t)(p - o);
  return o;
}

/* The lines of path, each wrapped as pre LINE post (the line escaped for JSON). */
static int read_lines(const char *path, const char *pre, const char *post, char ***out, size_t **len) {
  FILE *f = fopen(path, "r");
  if (!f) return perror(path), -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t k;
  int n = 0, room = 0;
  while ((k = getline(&line, &cap, f)) >= 0) {
    if (k && line[k - 1] == '\n') k--;
    if (n == room) room = room ? 2 * room : 1024, *out = realloc(*out, sizeof **out * (size_t)room),
                   *len = realloc(*len, sizeof **len * (size_t)room);
    size_t en;
    char *e = json_escape(line, (size_t)k, &en);
    (*out)[n] = xmalloc(strlen(pre) + en + strlen(post) + 1);
    (*len)[n] = (size_t)sprintf((*out)[n], "%s%s%s", pre, e, post);
    free(e), n++;
  }
  free(line), fclose(f);
  return n;
}

/* A connection to the server; -1 (errno set) when it cannot be made. */
static int dial(void) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)g.port)};
  inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
  if (fd < 0) return -1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) return fd;
  int e = errno;
  close(fd), errno = e;
  return -1;
}

static bool send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
    if (k <= 0) return false;
    p += k, n -= (size_t)k;
  }
  return true;
}

/* One answer read into c->buf: its status (0: the connection ended first), its body at
 * *body (length *body_n), whether the server closes the connection after it. */
static int read_answer(client *c, const char **body, size_t *body_n, bool *closes) {
  size_t have = 0, head = 0, len = 0;
  for (;;) {
    char *end = have ? memmem(c->buf, have, "\r\n\r\n", 4) : NULL;
    if (end && !head) {
      head = (size_t)(end - c->buf) + 4, c->buf[head - 1] = 0;
      char *cl = strcasestr(c->buf, "\r\nContent-Length:"), *ra = strcasestr(c->buf, "\r\nRetry-After:");
      len = cl ? strtoul(cl + 17, NULL, 10) : 0;
      *closes = strcasestr(c->buf, "\r\nConnection: close") != NULL;
      c->retry_s = ra ? atoi(ra + 14) : 0;
      if (head + len > sizeof c->buf) return 0;
    }
    if (head && have >= head + len) break;
    ssize_t k = recv(c->fd, c->buf + have, sizeof c->buf - have, 0);
    if (k <= 0) return 0;
    have += (size_t)k;
  }
  *body = c->buf + head, *body_n = len;
  return strncmp(c->buf, "HTTP/1.", 7) ? 0 : atoi(c->buf + 9);
}

static void record(client *c, sample s) {
  if (c->n == c->cap) c->cap = c->cap ? 2 * c->cap : 1024, c->s = realloc(c->s, sizeof *c->s * (size_t)c->cap);
  c->s[c->n++] = s;
}

/* Sentence k sent on c's connection (made first when there is none): its sample. A
 * refused connection after -k's SIGTERM sets c->refused. */
static sample request(client *c, int k) {
  sample s = {.start = now_s(), .after = atomic_load(&g.termed)};
  char head[160];
  int hn = snprintf(head, sizeof head, "POST /translate HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
                    "Content-Length: %zu\r\n\r\n", g.port, g.body_n[k]);
  if (c->fd < 0 && (c->fd = dial()) < 0) {
    c->refused = s.after && errno == ECONNREFUSED;
    s.ms = (float)(1e3 * (now_s() - s.start));
    return s;
  }
  const char *body = NULL;
  size_t body_n = 0;
  bool closes = true;
  if (send_all(c->fd, head, (size_t)hn) && send_all(c->fd, g.body[k], g.body_n[k]))
    s.status = (short)read_answer(c, &body, &body_n, &closes);
  s.ms = (float)(1e3 * (now_s() - s.start));
  s.right = s.status == 200 && body_n == g.want_n[k] && !memcmp(body, g.want[k], body_n);
  if (!s.status || closes) close(c->fd), c->fd = -1;
  return s;
}

static void *client_main(void *arg) {
  client *c = arg;
  int k = (int)((long long)c->id * g.n / g.clients);
  c->fd = -1;
  /* -k: until the server refuses the connection (two minutes at most), else S seconds */
  while (g.term ? !c->refused && now_s() < g.secs + 120 : now_s() < g.secs) {
    sample s = request(c, k);
    if (!c->refused) record(c, s);
    if (s.status == 503 && !s.after) {
      nanosleep(&(struct timespec){c->retry_s > 0 ? c->retry_s : 1, 0}, NULL); /* then the same sentence */
      continue;
    }
    if (!s.status && !s.after) nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL); /* a failure: not a spin */
    k = (k + 1) % g.n;
  }
  if (c->fd >= 0) close(c->fd);
  return NULL;
}

/* /proc/PID/status's field (kB for VmRSS), -1 when gone. */
static int proc_field(const char *name) {
  char path[64], line[256];
  snprintf(path, sizeof path, "/proc/%d/status", g.pid);
  FILE *f = fopen(path, "r");
  int v = -1;
  size_t n = strlen(name);
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, name, n)) v = atoi(line + n);
  if (f) fclose(f);
  return v;
}

/* Each second: the server's RSS and threads; at the end, -k's SIGTERM. */
static void *sampler_main(void *arg) {
  (void)arg;
  for (int i = 1; !atomic_load(&g.done); i++) {
    double wake = i < (int)g.secs + 1 ? i : g.secs;
    while (now_s() < wake && !atomic_load(&g.done)) nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    if (i <= (int)g.secs && g.nsamples < 4096) g.rss[g.nsamples] = proc_field("VmRSS:"), g.threads[g.nsamples++] = proc_field("Threads:");
    if (now_s() >= g.secs) break;
  }
  if (g.term) g.term_at = now_s(), atomic_store(&g.termed, true), kill(g.pid, SIGTERM);
  return NULL;
}

static int by_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* The latencies' summary under name: count, mean, p50, p99, max (ms). */
static void latencies(const char *name, float *v, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i];
  qsort(v, (size_t)n, sizeof *v, by_float);
  printf("%s_n %d\n", name, n);
  if (!n) return;
  printf("%s_mean_ms %.1f\n%s_p50_ms %.1f\n%s_p99_ms %.1f\n%s_max_ms %.1f\n", name, sum / n, name, v[(n - 1) / 2], name,
         v[(int)(0.99 * (n - 1) + 0.5)], name, v[n - 1]);
}

/* The samples from the 10th second on (all when fewer): RSS's and threads' first, least and most. */
static void resources(void) {
  int from = g.nsamples > 10 ? 9 : 0, rmin = 1 << 30, rmax = 0, tmin = 1 << 30, tmax = 0;
  for (int i = from; i < g.nsamples; i++) {
    rmin = g.rss[i] < rmin ? g.rss[i] : rmin, rmax = g.rss[i] > rmax ? g.rss[i] : rmax;
    tmin = g.threads[i] < tmin ? g.threads[i] : tmin, tmax = g.threads[i] > tmax ? g.threads[i] : tmax;
  }
  if (g.nsamples <= from) return;
  int z = g.nsamples - 1;
  printf("rss_first_kb %d\nrss_last_kb %d\nrss_min_kb %d\nrss_max_kb %d\n", g.rss[from], g.rss[z], rmin, rmax);
  printf("threads_first %d\nthreads_last %d\nthreads_min %d\nthreads_max %d\n", g.threads[from], g.threads[z], tmin, tmax);
}

/* Seconds from -k's SIGTERM until the server has exited (gone, or a zombie), a minute at most. */
static double exit_s(void) {
  char path[64], stat[512];
  snprintf(path, sizeof path, "/proc/%d/stat", g.pid);
  for (;;) {
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(stat, 1, sizeof stat - 1, f) : 0;
    if (f) fclose(f);
    stat[n] = 0;
    const char *p = strrchr(stat, ')'); /* the state follows the name, which may hold spaces */
    if (!p || p[2] == 'Z' || now_s() > g.term_at + 60) return now_s() - g.term_at;
    nanosleep(&(struct timespec){0, 5 * 1000 * 1000}, NULL);
  }
}

/* The summary: the run's answers by kind and their latencies, the drain's outcomes. */
static void summary(client *cl, FILE *w) {
  int total = 0, ok = 0, wrong = 0, busy = 0, failed = 0, other = 0, a_ok = 0, a_503 = 0, a_fail = 0, a_other = 0, refused = 0;
  double last = 0;
  for (int i = 0; i < g.clients; i++) total += cl[i].n, refused += cl[i].refused;
  float *lat = xmalloc(sizeof *lat * (size_t)total), *lat503 = xmalloc(sizeof *lat503 * (size_t)total);
  int nlat = 0, n503 = 0, in_right = 0, in_failed = 0;
  for (int i = 0; i < g.clients; i++)
    for (int j = 0; j < cl[i].n; j++) {
      const sample *s = &cl[i].s[j];
      if (w) fprintf(w, "%.4f %.2f %d\n", s->start, s->ms, s->status);
      double end = s->start + s->ms / 1e3;
      if (g.term && !s->after && end > g.term_at) in_right += s->right, in_failed += !s->right; /* in flight at SIGTERM */
      if (s->after) {
        a_ok += s->right, a_503 += s->status == 503, a_fail += !s->status, a_other += s->status && !s->right && s->status != 503;
        last = end > last ? end : last;
        continue;
      }
      ok += s->right, wrong += s->status == 200 && !s->right, failed += !s->status;
      other += s->status && s->status != 200 && s->status != 503;
      if (s->status == 200) lat[nlat++] = s->ms;
      if (s->status == 503) lat503[n503++] = s->ms, busy++;
    }
  printf("clients %d\nseconds %.1f\nanswered %d\nright %d\nwrong %d\nbusy_503 %d\nfailed %d\nother_status %d\n", g.clients,
         g.secs, ok + wrong, ok, wrong, busy, failed, other);
  printf("answered_per_s %.2f\n", ok / g.secs);
  latencies("lat", lat, nlat);
  latencies("lat503", lat503, n503);
  resources();
  if (g.term) printf("inflight_right %d\ninflight_failed %d\n", in_right, in_failed);
  if (g.term)
    printf("term_right %d\nterm_503 %d\nterm_failed %d\nterm_other %d\nterm_refused %d\nterm_last_s %.3f\nterm_exit_s %.3f\n",
           a_ok, a_503, a_fail, a_other, refused, last > g.term_at ? last - g.term_at : 0, exit_s());
  free(lat), free(lat503);
}

static int usage(void) {
  fprintf(stderr, "usage: serve_load [-c CLIENTS] [-t SECONDS] [-p PID] [-k] [-w FILE] PORT SENTENCES WANT\n");
  return 1;
}

int main(int argc, char **argv) {
  const char *wpath = NULL;
  int o;
  g.clients = 64, g.secs = 60;
  while ((o = getopt(argc, argv, "c:t:p:kw:")) != -1)
    if (o == 'c') g.clients = atoi(optarg);
    else if (o == 't') g.secs = atof(optarg);
    else if (o == 'p') g.pid = atoi(optarg);
    else if (o == 'k') g.term = true;
    else if (o == 'w') wpath = optarg;
    else return usage();
  if (argc - optind != 3 || g.clients < 1 || g.secs <= 0 || (g.term && !g.pid)) return usage();
  g.port = atoi(argv[optind]);
  g.n = read_lines(argv[optind + 1], "{\"text\":\"", "\"}", &g.body, &g.body_n);
  int nw = read_lines(argv[optind + 2], "{\"translation\":\"", "\"}\n", &g.want, &g.want_n);
  if (g.n < 1 || nw != g.n) return fprintf(stderr, "serve_load: %d sentences, %d translations\n", g.n, nw), 1;
  client *cl = calloc((size_t)g.clients, sizeof *cl);
  pthread_t *t = xmalloc(sizeof *t * (size_t)g.clients), sampler;
  clock_gettime(CLOCK_MONOTONIC, &g.t0);
  for (int i = 0; i < g.clients; i++) {
    cl[i].id = i;
    pthread_attr_t at;
    pthread_attr_init(&at), pthread_attr_setstacksize(&at, 256 << 10);
    if (pthread_create(&t[i], &at, client_main, &cl[i])) return fprintf(stderr, "serve_load: cannot start client %d\n", i), 1;
    pthread_attr_destroy(&at);
  }
  pthread_create(&sampler, NULL, sampler_main, NULL);
  for (int i = 0; i < g.clients; i++) pthread_join(t[i], NULL);
  atomic_store(&g.done, true), pthread_join(sampler, NULL);
  FILE *w = wpath ? fopen(wpath, "w") : NULL;
  summary(cl, w);
  if (w) fclose(w);
  return 0;
}

/* Tool start-up: standard descriptors and the signals that must not leave temp files. */
#include "tool.h"
#include "io/io.h"
#include <signal.h>

/* Async-signal-safe: unlink, then the default action (the exit status still says
 * which signal ended the tool). */
static void on_fatal_signal(int sig) {
  nmt_writers_abort_all();
  signal(sig, SIG_DFL);
  raise(sig);
}

void tool_init(const char *prog) {
  int st = nmt_io_hold_std();
  if (st) nmt_die(prog, st);
  struct sigaction sa = {.sa_handler = on_fatal_signal};
  sigemptyset(&sa.sa_mask);
  const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
  for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++) {
    struct sigaction old;
    /* a signal ignored at start stays ignored (nohup, a background job's SIGINT) */
    if (!sigaction(sigs[i], NULL, &old) && old.sa_handler != SIG_IGN) sigaction(sigs[i], &sa, NULL);
  }
}

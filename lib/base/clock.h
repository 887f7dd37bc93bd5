/* The monotonic clock in seconds: intervals (rates, timeouts, a run's elapsed
 * time) that a change of the wall clock must not bend. */
#ifndef NMT_BASE_CLOCK_H
#define NMT_BASE_CLOCK_H
#include <time.h>

static inline double nmt_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* nmt_seconds()'s time t (>= 0) as a timespec: the deadline of a timed wait on a condition
 * whose clock is CLOCK_MONOTONIC (pthread_condattr_setclock). */
static inline struct timespec nmt_timespec(double t) {
  time_t s = (time_t)t;
  return (struct timespec){s, (long)((t - (double)s) * 1e9)};
}

#endif

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

#endif

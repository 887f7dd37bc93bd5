/* Ranks that are threads of this test process: the communicator's table
 * (comm/comm.h) over a barrier, for tests of what the ranks exchange. Run
 * the ranks with nmt_pool_run(ranks, ...) between begin and end. */
#ifndef NMT_TESTS_COMM_THREAD_COMM_H
#define NMT_TESTS_COMM_THREAD_COMM_H
#include "comm/comm.h"

enum { THREAD_RANKS_MAX = 8 };

void thread_comm_begin(int ranks);
void thread_comm_end(void);
/* Rank `rank`'s communicator; free what the exchanges kept with thread_comm_free. */
nmt_comm thread_comm(int rank, int ranks);
void thread_comm_free(nmt_comm *c);

#endif

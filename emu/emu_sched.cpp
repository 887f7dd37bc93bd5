// The block scheduler of the CUDA emulator: launch checks, one fiber
// per CUDA thread, __syncthreads and warp shuffles as scheduler barriers, and
// per-block __shared__ storage. Blocks run one after another.
//
// NMT_EMU_SCHEDULE picks the order in which runnable threads go:
//   lockstep  every thread, in thread order, to its next barrier or shuffle (default);
//   warp      warp 0 to its next __syncthreads, then warp 1, ...;
//   reverse   as warp, with warps and the lanes inside them in reverse order.
// A kernel whose result depends on that order has an intra-block race; shared
// memory starts as NaN, so a read before the write it needed shows.
#include "cuda_emu.h"
#include "emu_control.h"
#include "emu_internal.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

// ThreadSanitizer: each fiber is a TSan fiber, switched without synchronisation, so two
// CUDA threads of a block are concurrent unless a barrier orders them (a release into the
// barrier's sync object, an acquire after it), whatever the schedule: a missing barrier
// is a reported data race. Launch start and block end order the host with the threads.
// The scheduler's own bookkeeping of the fibers is not instrumented (SCHEDULER).
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define EMU_TSAN 1
#define SCHEDULER __attribute__((no_sanitize_thread))
static char launched, finished, barrier[2]; // sync objects; barriers alternate by generation
static unsigned generation;
static void *sched_fiber;
#else
#define EMU_TSAN 0
#define SCHEDULER
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define EMU_ASAN 1
enum { STACK = 256 << 10 }; // ASan's redzones make frames larger
#else
#define EMU_ASAN 0
enum { STACK = 64 << 10 };
#endif

uint3 emu_thread_idx, emu_block_idx;
dim3 emu_block_dim, emu_grid_dim;

enum { MAX_THREADS = 1024, MAX_SHARED = 48 << 10, WARP = 32 };
enum state { READY, AT_BARRIER, AT_SHUFFLE, DONE };

// Switching fibers. glibc's swapcontext saves and restores the signal mask, a
// system call each way: 80% of an emulated run went there. On x86-64 a switch
// saves the callee-saved registers on the old stack and its stack pointer,
// then pops the new one's (the System V ABI's contract for a call); elsewhere
// it stays ucontext.
#if defined(__x86_64__)
extern "C" void emu_switch(void **save_sp, void *load_sp);
asm(".text\n"
    ".globl emu_switch\n"
    ".type emu_switch,@function\n"
    "emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size emu_switch, .-emu_switch\n");
struct context {
  void *sp;
};
SCHEDULER static void switch_context(context *save, context *load) { emu_switch(&save->sp, load->sp); }
// A fresh context that enters fn (which never returns) on the stack [base, base + size).
SCHEDULER static void make_context(context *c, char *base, size_t size, void (*fn)(void)) {
  uintptr_t top = ((uintptr_t)base + size) & ~(uintptr_t)15;
  void **sp = (void **)(top - 16); // fn's frame then sees the alignment of a call
  sp[1] = NULL;                    // fn's return address: it never returns
  sp[0] = (void *)fn;
  sp -= 6;                         // the six registers the first switch pops
  for (int i = 0; i < 6; i++) sp[i] = NULL;
  c->sp = sp;
}
static void init_context(context *) {}
#else
typedef ucontext_t context;
static void switch_context(context *save, context *load) { swapcontext(save, load); }
static void make_context(context *c, char *base, size_t size, void (*fn)(void)) {
  c->uc_stack.ss_sp = base;
  c->uc_stack.ss_size = size;
  c->uc_link = NULL;
  makecontext(c, fn, 0);
}
static void init_context(context *c) { getcontext(c); } // once: makecontext reuses it
#endif

struct fiber {
  context ctx;
  uint3 idx;
  state st;
  unsigned mask; // at a shuffle: its mask, source lane and value
  int src;
  uint64_t in, out;
#if EMU_TSAN
  void *tsan;
#endif
};

static fiber *fibers;
static char *stacks; // MAX_THREADS stacks, each above a PROT_NONE guard page
static size_t stack_span;
static context sched_ctx;
static int nthreads, running;
static void (*body_fn)(void *);
static void *body_ctx;
static char fault[400]; // what stopped the block, empty while it runs
static enum { LOCKSTEP, BY_WARP, REVERSE } schedule;
static bool schedule_set; // by emu_set_schedule, else from the environment at the first launch
#if EMU_ASAN
static const void *sched_stack;
static size_t sched_stack_size;
#endif

// ---- per-block __shared__ storage ----

enum { MAX_SHARED_DECLS = 64 };
static struct {
  const void *site;
  void *p;
} shared[MAX_SHARED_DECLS];
static int nshared;
static size_t shared_bytes, dynamic_shared;

SCHEDULER static void shared_reset(void) {
  while (nshared) free(shared[--nshared].p);
  shared_bytes = dynamic_shared;
}

// ---- fibers ----

static void fail_block(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
SCHEDULER static void fail_block(const char *fmt, ...) {
  if (fault[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(fault, sizeof fault, fmt, ap);
  va_end(ap);
}

// From a fiber back to the scheduler; returns when the scheduler resumes it.
SCHEDULER static void yield(state st) {
  fiber *f = &fibers[running];
  f->st = st;
#if EMU_TSAN
  char *sync = st == DONE ? &finished : st == AT_BARRIER ? &barrier[generation & 1] : NULL;
  if (sync) __tsan_release(sync);
  __tsan_switch_to_fiber(sched_fiber, __tsan_switch_to_fiber_no_sync);
#endif
#if EMU_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber(st == DONE ? NULL : &fake, sched_stack, sched_stack_size);
#endif
  switch_context(&f->ctx, &sched_ctx);
#if EMU_ASAN
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
#if EMU_TSAN
  if (sync) __tsan_acquire(sync); // the generation changed only after every thread released
#endif
}

static void fiber_main(void) {
#if EMU_ASAN
  __sanitizer_finish_switch_fiber(NULL, &sched_stack, &sched_stack_size);
#endif
#if EMU_TSAN
  __tsan_acquire(&launched);
#endif
  body_fn(body_ctx);
  yield(DONE);
}

// A fault inside a thread (shared memory over its limit): the block stops here.
static void fiber_fault(void) {
  yield(DONE);
  abort(); // the scheduler never resumes a faulted block
}

SCHEDULER static void run(int t) {
  running = t;
  emu_thread_idx = fibers[t].idx;
#if EMU_ASAN
  void *fake = NULL;
  __sanitizer_start_switch_fiber(&fake, stacks + (size_t)t * stack_span + getpagesize(), STACK);
#endif
#if EMU_TSAN
  sched_fiber = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(fibers[t].tsan, __tsan_switch_to_fiber_no_sync);
#endif
  switch_context(&sched_ctx, &fibers[t].ctx);
#if EMU_ASAN
  __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
}

static bool make_stacks(void) {
  if (stacks) return true;
  stack_span = STACK + getpagesize();
  void *m = mmap(NULL, stack_span * MAX_THREADS, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  fibers = (fiber *)calloc(MAX_THREADS, sizeof *fibers);
  if (m == MAP_FAILED || !fibers) return false;
  stacks = (char *)m;
  for (int t = 0; t < MAX_THREADS; t++) {
    mprotect(stacks + t * stack_span, getpagesize(), PROT_NONE);
    init_context(&fibers[t].ctx);
#if EMU_TSAN
    fibers[t].tsan = __tsan_create_fiber(0);
#endif
  }
  emu_note_region(stacks, stack_span * MAX_THREADS, "a CUDA thread's stack (overflow)");
  return true;
}

SCHEDULER static void start_fibers(void) {
  for (int t = 0; t < nthreads; t++) {
    fiber *f = &fibers[t];
    char *stack = stacks + t * stack_span + getpagesize();
#if EMU_ASAN
    // a fiber of an earlier block never returned: its frames' redzones are still poisoned
    // (swapcontext's interceptor cleared them; this switch is not intercepted)
    __asan_unpoison_memory_region(stack, STACK);
#endif
    make_context(&f->ctx, stack, STACK, fiber_main);
    f->st = READY;
    f->idx = {t % emu_block_dim.x, t / emu_block_dim.x % emu_block_dim.y,
              t / (emu_block_dim.x * emu_block_dim.y)};
  }
}

// ---- barriers ----

void emu_syncthreads(void) { yield(AT_BARRIER); }

SCHEDULER int emu_lane(void) { return running % WARP; }

SCHEDULER void emu_shuffle(unsigned mask, const void *in, void *out, size_t bytes, int src) {
  fiber *f = &fibers[running];
  f->mask = mask;
  f->src = src;
  __builtin_memcpy(&f->in, in, bytes);
  yield(AT_SHUFFLE);
  __builtin_memcpy(out, &f->out, bytes);
}

static const char *state_name(state s) {
  return s == DONE ? "had exited" : s == AT_BARRIER ? "waits at __syncthreads" : "runs";
}

// Completes the shuffle of warp w when every lane of its mask is there. Called when no
// thread of the warp can run: a lane of the mask elsewhere is a fault.
SCHEDULER static bool resolve_shuffle(int w) {
  int base = w * WARP, lanes = nthreads - base < WARP ? nthreads - base : WARP, first = -1;
  for (int l = 0; l < lanes && first < 0; l++)
    if (fibers[base + l].st == AT_SHUFFLE) first = l;
  if (first < 0) return false;
  unsigned mask = fibers[base + first].mask;
  for (int l = 0; l < WARP; l++) {
    if (!(mask >> l & 1)) continue;
    fiber *f = &fibers[base + l];
    if (l >= lanes) {
      fail_block("warp %d: shuffle with mask 0x%08x names lane %d, which does not exist (%d threads "
                 "in the block)", w, mask, l, nthreads);
      return false;
    }
    if (f->st != AT_SHUFFLE) {
      fail_block("warp %d: shuffle with mask 0x%08x while lane %d %s", w, mask, l, state_name(f->st));
      return false;
    }
    if (f->mask != mask) {
      fail_block("warp %d: lanes %d and %d shuffle with masks 0x%08x and 0x%08x", w, first, l, mask,
                 f->mask);
      return false;
    }
    if (!(mask >> f->src & 1)) {
      fail_block("warp %d: lane %d reads lane %d, outside the mask 0x%08x", w, l, f->src, mask);
      return false;
    }
  }
  for (int l = 0; l < lanes; l++)
    if (mask >> l & 1) fibers[base + l].out = fibers[base + fibers[base + l].src].in;
  for (int l = 0; l < lanes; l++)
    if (mask >> l & 1) fibers[base + l].st = READY;
  return true;
}

// Threads [lo, hi) in the schedule's order, until none of them can run without a block barrier.
SCHEDULER static void run_group(int lo, int hi) {
  bool rev = schedule == REVERSE;
  for (bool moved = true; moved && !fault[0];) {
    for (int i = 0; i < hi - lo && !fault[0]; i++) {
      int t = rev ? hi - 1 - i : lo + i;
      if (fibers[t].st == READY) run(t);
    }
    moved = false;
    for (int w = lo / WARP; w * WARP < hi && !fault[0]; w++) moved |= resolve_shuffle(w);
  }
}

SCHEDULER static void run_block(void) {
  start_fibers();
  shared_reset();
  int warps = (nthreads + WARP - 1) / WARP;
  for (;;) {
    if (schedule == LOCKSTEP) run_group(0, nthreads);
    for (int i = 0; i < warps && schedule != LOCKSTEP && !fault[0]; i++) {
      int w = schedule == REVERSE ? warps - 1 - i : i;
      run_group(w * WARP, (w + 1) * WARP < nthreads ? (w + 1) * WARP : nthreads);
    }
    if (fault[0]) break;
    int waiting = 0, done = -1;
    for (int t = 0; t < nthreads; t++) {
      if (fibers[t].st == AT_BARRIER) waiting++;
      if (fibers[t].st == DONE && done < 0) done = t;
      if (fibers[t].st == AT_SHUFFLE) // its warp has a lane at __syncthreads
        resolve_shuffle(t / WARP);
    }
    if (fault[0] || !waiting) break;
    if (done >= 0) {
      uint3 d = fibers[done].idx;
      fail_block("__syncthreads reached by %d of %d threads (thread (%u,%u,%u) had exited)", waiting,
                 nthreads, d.x, d.y, d.z);
      break;
    }
    for (int t = 0; t < nthreads; t++) fibers[t].st = READY;
#if EMU_TSAN
    generation++;
#endif
  }
#if EMU_TSAN
  __tsan_acquire(&finished); // before the block's shared memory is freed
#endif
#if EMU_ASAN
  // A stopped block leaves its frames' poisoning on the stacks the next block reuses.
  if (fault[0]) __asan_unpoison_memory_region(stacks, stack_span * MAX_THREADS);
#endif
  shared_reset();
}

SCHEDULER static void run_grid(dim3 grid) {
  for (unsigned z = 0; z < grid.z && !fault[0]; z++)
    for (unsigned y = 0; y < grid.y && !fault[0]; y++)
      for (unsigned x = 0; x < grid.x && !fault[0]; x++) {
        emu_block_idx = {x, y, z};
        run_block();
      }
}

SCHEDULER void *emu_shared_alloc(const void *site, size_t bytes) {
  for (int i = 0; i < nshared; i++)
    if (shared[i].site == site) {
#if EMU_TSAN
      __tsan_acquire(shared[i].p); // after the first thread's fill
#endif
      return shared[i].p;
    }
  shared_bytes += bytes;
  void *p = shared_bytes <= MAX_SHARED && nshared < MAX_SHARED_DECLS ? malloc(bytes) : NULL;
  if (!p) {
    fail_block("%zu bytes of shared memory (declaration %d of the block), more than the %d "
               "bytes or %d declarations a block may have", shared_bytes, nshared + 1, MAX_SHARED,
               MAX_SHARED_DECLS);
    fiber_fault();
  }
  memset(p, 0xff, bytes);
#if EMU_TSAN
  __tsan_release(p);
#endif
  shared[nshared++] = {site, p};
  return p;
}

// ---- launch ----

bool emu_set_schedule(const char *name) {
  if (!name) name = getenv("NMT_EMU_SCHEDULE");
  if (!name || !*name || !strcmp(name, "lockstep")) schedule = LOCKSTEP;
  else if (!strcmp(name, "warp")) schedule = BY_WARP;
  else if (!strcmp(name, "reverse")) schedule = REVERSE;
  else return false;
  return schedule_set = true;
}

static void read_schedule(void) {
  if (!schedule_set && !emu_set_schedule(NULL)) { // a typo must not test under another schedule than asked
    fprintf(stderr, "emu: NMT_EMU_SCHEDULE=%s: expected lockstep, warp or reverse\n",
            getenv("NMT_EMU_SCHEDULE"));
    exit(1);
  }
}

static const char *bad_config(const emu_config &c) {
  const dim3 &b = c.block, &g = c.grid;
  if (!b.x || !b.y || !b.z || !g.x || !g.y || !g.z) return "a zero grid or block dimension";
  if (b.x > 1024 || b.y > 1024 || b.z > 64 || (size_t)b.x * b.y * b.z > MAX_THREADS)
    return "more than 1024 threads in a block (or a block dimension over 1024, 1024, 64)";
  if (g.x > 2147483647u || g.y > 65535 || g.z > 65535)
    return "a grid dimension over its limit (2^31-1, 65535, 65535)";
  return NULL;
}

// NMT_EMU_FAULT_AT=N: launch N (from 1) faults the device, as a GPU error in the middle of a
// run would (sticky: every later call fails), so the tools' handling of one can be tested.
static bool injected_fault(const char *kernel, const char *file, int line) {
  static long launches, fault_at = -1;
  if (fault_at < 0) {
    const char *f = getenv("NMT_EMU_FAULT_AT");
    fault_at = f && *f ? strtol(f, NULL, 10) : 0;
  }
  if (!fault_at || ++launches != fault_at) return false;
  emu_report(cudaErrorLaunchFailure, "kernel %s (%s:%d): the device fault NMT_EMU_FAULT_AT=%ld asked for",
             kernel, file, line, fault_at);
  return true;
}

void emu_run(const char *kernel, const char *file, int line, const emu_config &c,
             void (*body)(void *), void *ctx) {
  read_schedule();
  if (emu_stopped() || !emu_stream_ok(c.stream, kernel) || injected_fault(kernel, file, line)) return;
  if (const char *why = bad_config(c)) {
    emu_report(cudaErrorInvalidConfiguration, "kernel %s (%s:%d): launch with grid (%u,%u,%u), "
               "block (%u,%u,%u): %s", kernel, file, line, c.grid.x, c.grid.y, c.grid.z, c.block.x,
               c.block.y, c.block.z, why);
    return;
  }
  if (c.shmem > MAX_SHARED) {
    emu_report(cudaErrorInvalidValue, "kernel %s (%s:%d): %zu bytes of dynamic shared memory, more "
               "than %d", kernel, file, line, c.shmem, MAX_SHARED);
    return;
  }
  if (!make_stacks()) {
    emu_report(cudaErrorMemoryAllocation, "kernel %s: no memory for the thread stacks", kernel);
    return;
  }
  emu_block_dim = c.block;
  emu_grid_dim = c.grid;
  nthreads = (int)(c.block.x * c.block.y * c.block.z);
  body_fn = body;
  body_ctx = ctx;
  dynamic_shared = c.shmem;
  fault[0] = 0;
  emu_device_access(true, kernel);
#if EMU_TSAN
  __tsan_release(&launched);
#endif
  run_grid(c.grid);
  emu_device_access(false, NULL);
  if (fault[0])
    emu_report(cudaErrorLaunchFailure, "kernel %s (%s:%d), block (%u,%u,%u): %s", kernel, file, line,
               emu_block_idx.x, emu_block_idx.y, emu_block_idx.z, fault);
}

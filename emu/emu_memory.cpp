// Device memory of the CUDA emulator: allocations (filled with 0xff bytes, a NaN
// in every float, as uninitialised memory deserves), copies and memsets checked
// against them, a capacity (NMT_EMU_MEMORY bytes, default 16 GiB), and the guard
// mode (NMT_EMU_GUARD=1): each allocation is its own pages in a reserved range,
// ending just before a PROT_NONE page, and every page is PROT_NONE except while
// a kernel, a copy or a GEMM runs. Host code that reads device memory (a
// forgotten copy), a kernel that runs past an allocation, and any use after
// cudaFree stop with SIGSEGV and a line naming the address and the allocation.
// Without guard, allocations come from malloc, so ASan sees their bounds.
#include "emu_control.h"
#include "emu_internal.h"
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include <map>

struct allocation {
  char *base; // guard mode: its first page (else == user)
  size_t span; // guard mode: its pages, without the guard page after them
  size_t bytes;
  bool live, guarded;
};
static std::map<uintptr_t, allocation> allocs; // by the address cudaMalloc returned
static size_t used, cap;
static int guard = -1; // for the next allocations
static char *arena; // guard mode: the reserved range, allocations never reuse an address
static size_t arena_used;
static const size_t ARENA = (size_t)1 << 38;
static int open_depth;
static const char *open_what;

struct region {
  const void *p;
  size_t bytes;
  const char *what;
};
static region regions[4];
static int nregions;
static struct sigaction chained; // the handler before ours (ASan's, or the default)

static size_t page(void) { return (size_t)getpagesize(); }
static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The allocation whose pages or guard page hold p, or NULL (a scan: only for a crash).
static const std::pair<const uintptr_t, allocation> *owner(uintptr_t p) {
  for (auto &kv : allocs) {
    const allocation &a = kv.second;
    if (p >= (uintptr_t)a.base && p < (uintptr_t)a.base + a.span + (a.guarded ? page() : 0)) return &kv;
  }
  return NULL;
}

static void on_segv(int, siginfo_t *info, void *) {
  uintptr_t p = (uintptr_t)info->si_addr;
  char msg[400] = "";
  if (auto o = owner(p)) {
    uintptr_t start = o->first;
    const allocation &a = o->second;
    char where[160];
    if (p < start) snprintf(where, sizeof where, "%zu bytes before", (size_t)(start - p));
    else if (p >= start + a.bytes)
      snprintf(where, sizeof where, "%zu bytes past the end of", (size_t)(p - start - a.bytes));
    else snprintf(where, sizeof where, "byte %zu of", (size_t)(p - start));
    snprintf(msg, sizeof msg, "emu: %s device memory at %p: %s the %s%zu-byte allocation at %p%s%s\n",
             !a.live ? "use after cudaFree of" : open_depth ? "out-of-bounds access to"
                                                            : "host code touched",
             (void *)p, where,
             a.live ? "" : "freed ", a.bytes, (void *)start, open_depth ? ", in " : "",
             open_depth ? open_what : " (guard mode: device memory is reachable only inside "
                                      "kernels, copies and GEMMs; copy it to the host first)");
  }
  for (int i = 0; i < nregions && !msg[0]; i++)
    if (p >= (uintptr_t)regions[i].p && p < (uintptr_t)regions[i].p + regions[i].bytes)
      snprintf(msg, sizeof msg, "emu: access at %p in %s\n", (void *)p, regions[i].what);
  if (msg[0] && write(2, msg, strlen(msg))) {}
  // The faulting access runs again under the previous handler: a crash, as on a GPU.
  sigaction(SIGSEGV, &chained, NULL);
}

static void install_handler(void) {
  static bool done;
  if (done) return;
  done = true;
  stack_t alt = {};
  alt.ss_size = 64 << 10; // a thread's stack overflow leaves no room on that stack
  alt.ss_sp = malloc(alt.ss_size);
  if (alt.ss_sp) sigaltstack(&alt, NULL);
  struct sigaction sa = {};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, &chained);
}

void emu_note_region(const void *p, size_t bytes, const char *what) {
  if (nregions < 4) regions[nregions++] = {p, bytes, what};
  install_handler();
}

static void read_env(void) {
  if (guard >= 0) return;
  const char *g = getenv("NMT_EMU_GUARD"), *m = getenv("NMT_EMU_MEMORY");
  guard = g && !strcmp(g, "1");
  cap = m && *m ? strtoull(m, NULL, 0) : (size_t)16 << 30;
  if (guard) install_handler();
}

static void protect(const allocation &a, bool rw) {
  mprotect(a.base, a.span, rw ? PROT_READ | PROT_WRITE : PROT_NONE);
}

void emu_set_guard(bool on) {
  read_env();
  guard = on;
  if (on) install_handler();
}

void emu_device_access(bool open, const char *what) {
  if (open ? open_depth++ : --open_depth) return; // only the outermost changes the pages
  open_what = what;
  for (auto &kv : allocs)
    if (kv.second.live && kv.second.guarded) protect(kv.second, open);
}

extern "C" bool emu_check_kernel_pointer(const char *kernel, int index, const void *p) {
  if (emu_is_device(p, 1)) return true;
  emu_report(cudaErrorLaunchFailure, "%s: argument %d (%p) is not device memory: a GPU would "
             "fault on it (a host array never copied to the device?)", kernel, index, p);
  return false;
}

bool emu_is_device(const void *p, size_t bytes) {
  auto it = allocs.upper_bound((uintptr_t)p);
  if (it == allocs.begin()) return false;
  --it;
  return it->second.live && (uintptr_t)p + bytes <= it->first + it->second.bytes;
}

size_t emu_memory_cap(void) {
  read_env();
  return cap;
}

cudaError_t cudaMalloc(void **p, size_t bytes) {
  read_env();
  *p = NULL;
  if (emu_stopped()) return emu_sticky();
  if (bytes > cap - used) return emu_error(cudaErrorMemoryAllocation); // not printed: running out is ordinary
  size_t n = bytes ? bytes : 1;
  allocation a = {};
  char *user;
  if (guard) {
    a.span = round_up(n, page());
    if (!arena) {
      void *m = mmap(NULL, ARENA, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      arena = m == MAP_FAILED ? NULL : (char *)m;
    }
    if (!arena || arena_used + a.span + page() > ARENA) return emu_error(cudaErrorMemoryAllocation);
    a.base = arena + arena_used;
    arena_used += a.span + page();
    user = a.base + a.span - round_up(n, 16); // 16-byte aligned, ending at the guard page
  } else {
    void *m = NULL;
    if (posix_memalign(&m, 256, n)) return emu_error(cudaErrorMemoryAllocation);
    a.base = user = (char *)m;
    a.span = n;
  }
  a.bytes = n;
  a.live = true;
  a.guarded = guard;
  allocs[(uintptr_t)user] = a;
  used += n;
  emu_device_access(true, "cudaMalloc");
  memset(user, 0xff, n);
  emu_device_access(false, NULL);
  *p = user;
  return cudaSuccess;
}

cudaError_t cudaFree(void *p) {
  if (!p) return cudaSuccess;
  auto it = allocs.find((uintptr_t)p);
  if (it == allocs.end() || !it->second.live) {
    emu_report(cudaErrorInvalidValue, "cudaFree(%p): not an address cudaMalloc returned, or freed twice", p);
    return cudaErrorInvalidValue;
  }
  allocation &a = it->second;
  used -= a.bytes;
  a.live = false;
  if (a.guarded) { // the pages go, the addresses stay reserved: a later use faults
    madvise(a.base, a.span, MADV_DONTNEED);
    protect(a, false);
  } else {
    free(a.base);
    allocs.erase(it);
  }
  return cudaSuccess;
}

static cudaError_t outside(const char *what, const char *which, const void *p, size_t bytes) {
  emu_report(cudaErrorInvalidValue, "%s: the %s [%p, +%zu bytes) is not inside one device allocation",
             what, which, p, bytes);
  return cudaErrorInvalidValue;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
  if (emu_stopped()) return emu_sticky();
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDeviceToDevice) {
    emu_report(cudaErrorInvalidValue, "cudaMemcpy: kind %d", (int)kind);
    return cudaErrorInvalidValue;
  }
  if (!bytes) return cudaSuccess;
  bool to_dev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  bool from_dev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (to_dev && !emu_is_device(dst, bytes)) return outside("cudaMemcpy", "destination", dst, bytes);
  if (from_dev && !emu_is_device(src, bytes)) return outside("cudaMemcpy", "source", src, bytes);
  emu_device_access(true, "cudaMemcpy");
  memmove(dst, src, bytes);
  emu_device_access(false, NULL);
  return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind, cudaStream_t s) {
  if (!emu_stream_ok(s, "cudaMemcpyAsync")) return cudaErrorInvalidResourceHandle;
  return cudaMemcpy(dst, src, bytes, kind);
}

cudaError_t cudaMemset(void *p, int value, size_t bytes) {
  if (emu_stopped()) return emu_sticky();
  if (!bytes) return cudaSuccess;
  if (!emu_is_device(p, bytes)) return outside("cudaMemset", "range", p, bytes);
  emu_device_access(true, "cudaMemset");
  memset(p, value, bytes);
  emu_device_access(false, NULL);
  return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t s) {
  if (!emu_stream_ok(s, "cudaMemsetAsync")) return cudaErrorInvalidResourceHandle;
  return cudaMemset(p, value, bytes);
}

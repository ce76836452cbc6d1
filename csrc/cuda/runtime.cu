// The runtime family of libpaddle_c_cuda.so (pd_cuda_api.h's pd_cuda_runtime): devices, the
// caching device allocator (Paddle's auto_growth strategy), pinned host memory, copies, streams,
// events and the thread-local error state every launcher of the library reports through
// (pd_cu_set_error / pd_cu_current_stream, internal to the library: hidden visibility).
//
// Stream model (the allocator relies on it): every kernel and copy this library issues for a
// thread runs on that thread's current stream of the current device, in order. A freed device
// block is therefore put back into the cache at once and may be handed to the next allocation
// without waiting: any later use of it is queued on the same stream behind the kernels that
// still read the old contents. A caller that uses a block on another stream (rt->set_current_stream
// switched in between, or a side stream) must order the streams itself (events) before freeing,
// as with Paddle's and PyTorch's caching allocators (record_stream is not offered).
//
// Host code only: the device passes of nvcc (one per -gencode target, __CUDA_ARCH__ defined) skip
// the whole file, which halves its compile time.
#include <cuda_runtime.h>
#if !defined(__CUDA_ARCH__)

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "pd_cuda_api.h"
#include "rt_internal.h"

#define PD_CU_INTERNAL __attribute__((visibility("hidden")))

namespace {

constexpr int kMaxDevices = 64;
constexpr size_t kAlign = 512;                  // every block size is a multiple of this
constexpr size_t kChunk = size_t(2) << 20;      // chunks are multiples of 2 MiB
constexpr size_t kMaxRequest = size_t(1) << 62; // larger requests fail without asking the driver

// ---------------------------------------------------------------- errors
thread_local char t_err[1024];
thread_local int t_code = PD_CU_OK;

void set_error_v(int code, const char *fmt, va_list ap) {
  vsnprintf(t_err, sizeof t_err, fmt, ap);
  t_code = code;
}

void set_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void set_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_error_v(code, fmt, ap);
  va_end(ap);
}

int code_of(cudaError_t e) {
  switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorInvalidDevice:
    case cudaErrorDevicesUnavailable:
      return PD_CU_ERR_NO_DEVICE;
    case cudaErrorMemoryAllocation:
      return PD_CU_ERR_OOM;
    case cudaErrorInvalidValue:
    case cudaErrorInvalidResourceHandle:
      return PD_CU_ERR_INVALID;
    default:
      return PD_CU_ERR_LAUNCH;
  }
}

// Records a failed CUDA call: "<function>: <cudaGetErrorString> (<cudaGetErrorName>)". The
// runtime also keeps a failed call's code as its "last error"; it is cleared here (sticky errors,
// a fault inside a kernel, stay) so that it does not reappear at the next launch check.
int fail(cudaError_t e, const char *fn) {
  set_error(code_of(e), "%s: %s (%s)", fn, cudaGetErrorString(e), cudaGetErrorName(e));
  (void)cudaGetLastError();
  return -1;
}

// For clean-up calls whose failure changes nothing for the caller: the error is not left behind.
void quiet(cudaError_t e) {
  if (e != cudaSuccess) (void)cudaGetLastError();
}

#define CU_TRY(call, fn)                  \
  do {                                    \
    cudaError_t e_ = (call);              \
    if (e_ != cudaSuccess) return fail(e_, fn); \
  } while (0)

void fmt_bytes(char *buf, size_t n, double v, int prec) {
  const char *unit = "B";
  double d = v;
  if (v >= double(1ull << 30)) { d = v / double(1ull << 30); unit = "GiB"; }
  else if (v >= double(1ull << 20)) { d = v / double(1ull << 20); unit = "MiB"; }
  else if (v >= 1024.0) { d = v / 1024.0; unit = "KiB"; }
  if (unit[0] == 'B') snprintf(buf, n, "%.0f B", v);
  else snprintf(buf, n, "%.*f %s", prec, d, unit);
}

// ---------------------------------------------------------------- devices
std::once_flag g_count_once;
int g_count = 0;

int device_count_impl() {
  std::call_once(g_count_once, [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    g_count = n < 0 ? 0 : (n > kMaxDevices ? kMaxDevices : n);
  });
  return g_count;
}

int check_dev(int dev) {
  int n = device_count_impl();
  if (dev < 0 || dev >= n) {
    set_error(PD_CU_ERR_NO_DEVICE, "invalid GPU ordinal %d (%d GPU%s visible)", dev, n, n == 1 ? "" : "s");
    return -1;
  }
  return 0;
}

// Makes dev current for the scope of one call and restores the previous device after it.
struct DeviceScope {
  int prev = -1;
  bool switched = false;
  int enter(int dev) {
    CU_TRY(cudaGetDevice(&prev), "cudaGetDevice");
    if (prev != dev) {
      CU_TRY(cudaSetDevice(dev), "cudaSetDevice");
      switched = true;
    }
    return 0;
  }
  ~DeviceScope() {
    if (switched) quiet(cudaSetDevice(prev));
  }
};

// This thread's current stream per device (NULL: the device's legacy default stream).
thread_local cudaStream_t t_stream[kMaxDevices];

cudaStream_t current_stream_of_current_device() {
  int d = 0;
  if (cudaGetDevice(&d) != cudaSuccess) {
    (void)cudaGetLastError();
    return nullptr;
  }
  return (d >= 0 && d < kMaxDevices) ? t_stream[d] : nullptr;
}

// ---------------------------------------------------------------- device allocator
struct Chunk;
struct Block {
  char *ptr;
  size_t size;
  bool free;
  Block *prev, *next; // neighbours inside the same chunk (address order)
  Chunk *chunk;
  std::multimap<size_t, Block *>::iterator it; // position in the free list while free
};
struct Chunk {
  char *base;
  size_t size;
  Block *first;
};

struct DeviceHeap {
  std::mutex mu;
  int dev = 0;
  std::multimap<size_t, Block *> free_list; // size-ordered: best fit = lower_bound(size)
  std::unordered_map<void *, Block *> used;
  std::vector<Chunk *> chunks;
  pd_cuda_mem_stats st{};

  void add_allocated(size_t n) {
    st.allocated += n;
    if (st.allocated > st.max_allocated) st.max_allocated = st.allocated;
  }

  void insert_free(Block *b) {
    b->free = true;
    b->it = free_list.emplace(b->size, b);
  }
  void erase_free(Block *b) {
    free_list.erase(b->it);
    b->free = false;
  }

  // Gives every fully free chunk back to the driver (after a device sync: no queued kernel may
  // still touch it). Called with mu held. Returns -1 on a CUDA error.
  int release_free_chunks() {
    bool any = false;
    for (Chunk *c : chunks)
      if (c->first->free && c->first->next == nullptr) any = true;
    if (!any) return 0;
    DeviceScope scope;
    if (scope.enter(dev)) return -1;
    CU_TRY(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    int rc = 0;
    std::vector<Chunk *> keep;
    for (Chunk *c : chunks) {
      Block *b = c->first;
      if (!(b->free && b->next == nullptr)) {
        keep.push_back(c);
        continue;
      }
      cudaError_t e = cudaFree(c->base);
      if (e != cudaSuccess) {
        rc = fail(e, "cudaFree");
        keep.push_back(c);
        continue;
      }
      erase_free(b);
      st.reserved -= c->size;
      delete b;
      delete c;
    }
    chunks.swap(keep);
    return rc;
  }

  void *alloc(size_t nbytes) {
    std::lock_guard<std::mutex> lock(mu);
    if (nbytes > kMaxRequest) return oom(nbytes, nullptr);
    size_t need = nbytes == 0 ? kAlign : (nbytes + kAlign - 1) / kAlign * kAlign;
    auto it = free_list.lower_bound(need);
    Block *b;
    if (it != free_list.end()) {
      b = it->second;
      erase_free(b);
    } else {
      b = new_chunk(need, nbytes);
      if (!b) return nullptr;
    }
    if (b->size > need) { // split: the rest stays free, right after b
      Block *r = new Block{b->ptr + need, b->size - need, true, b, b->next, b->chunk, {}};
      if (b->next) b->next->prev = r;
      b->next = r;
      b->size = need;
      insert_free(r);
    }
    b->free = false;
    used.emplace(b->ptr, b);
    add_allocated(b->size);
    return b->ptr;
  }

  // A new chunk holding one free-to-carve block (not in the free list). mu held.
  Block *new_chunk(size_t need, size_t nbytes) {
    // small requests share a 2 MiB chunk; larger ones get their own, rounded up to 2 MiB
    size_t size = (need + kChunk - 1) / kChunk * kChunk;
    DeviceScope scope;
    if (scope.enter(dev)) return nullptr;
    void *p = nullptr;
    cudaError_t e = cudaMalloc(&p, size);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      if (release_free_chunks()) return nullptr;
      e = cudaMalloc(&p, size);
      if (e == cudaErrorMemoryAllocation && size != need) { // the 2 MiB rounding may not fit
        (void)cudaGetLastError();
        size = need;
        e = cudaMalloc(&p, size);
      }
    }
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      oom(nbytes, &scope);
      return nullptr;
    }
    if (e != cudaSuccess) {
      fail(e, "cudaMalloc");
      return nullptr;
    }
    Chunk *c = new Chunk{static_cast<char *>(p), size, nullptr};
    Block *b = new Block{c->base, size, false, nullptr, nullptr, c, {}};
    c->first = b;
    chunks.push_back(c);
    st.reserved += size;
    if (st.reserved > st.max_reserved) st.max_reserved = st.reserved;
    st.n_device_allocs++;
    return b;
  }

  // Sets the out-of-memory error. mu held; scope: dev is current (the total is asked for).
  void *oom(size_t nbytes, DeviceScope *scope) {
    size_t cached = 0;
    for (auto &kv : free_list) cached += kv.first;
    char req[32], a[32], r[32], c[32], t[32];
    fmt_bytes(req, sizeof req, double(nbytes), 2);
    fmt_bytes(a, sizeof a, double(st.allocated), 1);
    fmt_bytes(r, sizeof r, double(st.reserved), 1);
    fmt_bytes(c, sizeof c, double(cached), 1);
    size_t fr = 0, total = 0;
    bool have_total = false;
    if (scope) {
      if (cudaMemGetInfo(&fr, &total) == cudaSuccess) have_total = true;
      else (void)cudaGetLastError();
    }
    fmt_bytes(t, sizeof t, double(total), 1);
    set_error(PD_CU_ERR_OOM,
              "out of memory on GPU %d: tried to allocate %s (%zu bytes); %s allocated, %s reserved, "
              "%s cached free%s%s%s",
              dev, req, nbytes, a, r, c, have_total ? " (of " : "", have_total ? t : "", have_total ? " total)" : "");
    return nullptr;
  }

  bool free(void *p) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = used.find(p);
    if (it == used.end()) return false;
    Block *b = it->second;
    used.erase(it);
    st.allocated -= b->size;
    // merge with free neighbours (same chunk by construction)
    if (b->prev && b->prev->free) {
      Block *l = b->prev;
      erase_free(l);
      l->size += b->size;
      l->next = b->next;
      if (b->next) b->next->prev = l;
      delete b;
      b = l;
    }
    if (b->next && b->next->free) {
      Block *r = b->next;
      erase_free(r);
      b->size += r->size;
      b->next = r->next;
      if (r->next) r->next->prev = b;
      delete r;
    }
    insert_free(b);
    return true;
  }
};

// One heap per visible GPU, created on first use and never destroyed (a tensor freed while the
// process exits must not find a destroyed mutex; the driver takes the memory back at exit).
std::once_flag g_heaps_once;
DeviceHeap *g_heaps = nullptr;
int g_nheaps = 0;

void heaps_init() {
  std::call_once(g_heaps_once, [] {
    g_nheaps = device_count_impl();
    g_heaps = new DeviceHeap[g_nheaps > 0 ? g_nheaps : 1];
    for (int i = 0; i < g_nheaps; i++) g_heaps[i].dev = i;
  });
}

DeviceHeap *heap(int dev) {
  if (check_dev(dev)) return nullptr;
  heaps_init();
  return &g_heaps[dev];
}

// ---------------------------------------------------------------- pinned host memory
// Page-locked blocks cached by power-of-two size bucket. A freed block may still be the source
// or target of a queued asynchronous copy, and the host (unlike the device) does not wait in
// stream order: host_free records an event on the current stream, and the block is handed out
// again only once that event completed.
struct PinBlock {
  void *ptr;
  size_t size;
  cudaEvent_t ev; // recorded at free time (nullptr: nothing to wait for)
  int ev_dev;
};
struct PinnedHeap {
  std::mutex mu;
  std::map<size_t, std::vector<PinBlock *>> free_lists;
  std::unordered_map<void *, PinBlock *> used;
};
PinnedHeap &pinned() {
  static PinnedHeap *h = new PinnedHeap; // never destroyed: no teardown order problem at exit
  return *h;
}

size_t pin_bucket(size_t n) {
  size_t b = kAlign;
  while (b < n) b <<= 1;
  return b;
}

bool pin_ready(PinBlock *b) {
  if (!b->ev) return true;
  cudaError_t e = cudaEventQuery(b->ev);
  if (e == cudaSuccess) return true;
  (void)cudaGetLastError(); // cudaErrorNotReady (or a sticky fault, which stays)
  return false;
}

} // namespace

// ---------------------------------------------------------------- internal API of the library
extern "C" PD_CU_INTERNAL void pd_cu_set_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  set_error_v(code, fmt, ap);
  va_end(ap);
}

extern "C" PD_CU_INTERNAL void *pd_cu_current_stream(void) { return (void *)current_stream_of_current_device(); }

// ---------------------------------------------------------------- the table's functions
namespace {

int rt_device_count(void) { return device_count_impl(); }

int rt_set_device(int dev) {
  if (check_dev(dev)) return -1;
  CU_TRY(cudaSetDevice(dev), "cudaSetDevice");
  return 0;
}

int rt_get_device(void) {
  int d = -1;
  CU_TRY(cudaGetDevice(&d), "cudaGetDevice");
  return d;
}

int rt_get_props(int dev, pd_cuda_props *out) {
  if (check_dev(dev)) return -1;
  if (!out) {
    set_error(PD_CU_ERR_INVALID, "get_props: out is NULL");
    return -1;
  }
  cudaDeviceProp p;
  CU_TRY(cudaGetDeviceProperties(&p, dev), "cudaGetDeviceProperties");
  memset(out, 0, sizeof *out);
  snprintf(out->name, sizeof out->name, "%s", p.name);
  out->major = p.major;
  out->minor = p.minor;
  out->multi_processor_count = p.multiProcessorCount;
  out->total_memory = p.totalGlobalMem;
  out->l2_cache_size = p.l2CacheSize;
  out->max_threads_per_multi_processor = p.maxThreadsPerMultiProcessor;
  out->shared_mem_per_block_optin = p.sharedMemPerBlockOptin;
  out->warp_size = p.warpSize;
  return 0;
}

int rt_versions(int *driver, int *runtime) {
  int d = 0, r = 0;
  CU_TRY(cudaDriverGetVersion(&d), "cudaDriverGetVersion");
  CU_TRY(cudaRuntimeGetVersion(&r), "cudaRuntimeGetVersion");
  if (driver) *driver = d;
  if (runtime) *runtime = r;
  return 0;
}

void *rt_alloc(int dev, size_t nbytes) {
  DeviceHeap *h = heap(dev);
  return h ? h->alloc(nbytes) : nullptr;
}

void rt_free(int dev, void *p) {
  if (!p) return;
  heaps_init();
  DeviceHeap *h = heap(dev);
  if (h && h->free(p)) return;
  // not ours on dev: maybe on another device (the caller named the wrong one)
  for (int d = 0; d < g_nheaps; d++)
    if (d != dev && g_heaps[d].free(p)) return;
  set_error(PD_CU_ERR_INVALID, "free: %p was not allocated by this allocator (GPU %d)", p, dev);
  fprintf(stderr, "paddle-c CUDA allocator: free of %p, which it did not allocate (GPU %d); ignored\n", p, dev);
}

int rt_mem_stats(int dev, pd_cuda_mem_stats *out) {
  DeviceHeap *h = heap(dev);
  if (!h) return -1;
  if (!out) {
    set_error(PD_CU_ERR_INVALID, "mem_stats: out is NULL");
    return -1;
  }
  std::lock_guard<std::mutex> lock(h->mu);
  *out = h->st;
  return 0;
}

void rt_reset_peak(int dev) {
  DeviceHeap *h = heap(dev);
  if (!h) return;
  std::lock_guard<std::mutex> lock(h->mu);
  h->st.max_allocated = h->st.allocated;
  h->st.max_reserved = h->st.reserved;
}

int rt_empty_cache(void) {
  heaps_init();
  int rc = 0;
  for (int d = 0; d < g_nheaps; d++) {
    std::lock_guard<std::mutex> lock(g_heaps[d].mu);
    if (g_heaps[d].release_free_chunks()) rc = -1;
  }
  return rc;
}

void *rt_host_alloc(size_t nbytes) {
  if (nbytes > kMaxRequest) {
    set_error(PD_CU_ERR_OOM, "out of pinned host memory: tried to allocate %zu bytes", nbytes);
    return nullptr;
  }
  size_t size = pin_bucket(nbytes);
  PinnedHeap &h = pinned();
  std::lock_guard<std::mutex> lock(h.mu);
  auto fl = h.free_lists.find(size);
  if (fl != h.free_lists.end()) {
    auto &v = fl->second;
    for (size_t i = 0; i < v.size(); i++) {
      PinBlock *b = v[i];
      if (!pin_ready(b)) continue;
      v.erase(v.begin() + long(i));
      h.used.emplace(b->ptr, b);
      return b->ptr;
    }
  }
  void *p = nullptr;
  cudaError_t e = cudaHostAlloc(&p, size, cudaHostAllocPortable);
  if (e == cudaErrorMemoryAllocation) { // give the ready cached blocks back, then retry once
    (void)cudaGetLastError();
    for (auto &kv : h.free_lists) {
      std::vector<PinBlock *> keep;
      for (PinBlock *b : kv.second) {
        if (pin_ready(b) && cudaFreeHost(b->ptr) == cudaSuccess) {
          if (b->ev) quiet(cudaEventDestroy(b->ev));
          delete b;
        } else {
          (void)cudaGetLastError();
          keep.push_back(b);
        }
      }
      kv.second.swap(keep);
    }
    e = cudaHostAlloc(&p, size, cudaHostAllocPortable);
  }
  if (e == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    char req[32];
    fmt_bytes(req, sizeof req, double(nbytes), 2);
    set_error(PD_CU_ERR_OOM, "out of pinned host memory: tried to allocate %s (%zu bytes)", req, nbytes);
    return nullptr;
  }
  if (e != cudaSuccess) {
    fail(e, "cudaHostAlloc");
    return nullptr;
  }
  h.used.emplace(p, new PinBlock{p, size, nullptr, -1});
  return p;
}

void rt_host_free(void *p) {
  if (!p) return;
  PinnedHeap &h = pinned();
  std::lock_guard<std::mutex> lock(h.mu);
  auto it = h.used.find(p);
  if (it == h.used.end()) {
    set_error(PD_CU_ERR_INVALID, "host_free: %p was not allocated by host_alloc", p);
    fprintf(stderr, "paddle-c pinned allocator: free of %p, which it did not allocate; ignored\n", p);
    return;
  }
  PinBlock *b = it->second;
  h.used.erase(it);
  // the event goes on the current device's current stream (where this thread's copies ran)
  int d = 0;
  bool ok = cudaGetDevice(&d) == cudaSuccess;
  if (ok && b->ev && b->ev_dev != d) {
    quiet(cudaEventDestroy(b->ev));
    b->ev = nullptr;
  }
  if (ok && !b->ev) {
    ok = cudaEventCreateWithFlags(&b->ev, cudaEventDisableTiming) == cudaSuccess;
    if (!ok) b->ev = nullptr;
    b->ev_dev = d;
  }
  if (ok) ok = cudaEventRecord(b->ev, (d >= 0 && d < kMaxDevices) ? t_stream[d] : nullptr) == cudaSuccess;
  if (!ok) { // no event: wait for the device instead, so that reuse stays safe
    (void)cudaGetLastError();
    if (b->ev) quiet(cudaEventDestroy(b->ev));
    b->ev = nullptr;
    quiet(cudaDeviceSynchronize());
  }
  h.free_lists[b->size].push_back(b);
}

int rt_memcpy(void *dst, const void *src, size_t nbytes, int kind) {
  if (nbytes == 0) return 0;
  if (!dst || !src) {
    set_error(PD_CU_ERR_INVALID, "memcpy: NULL %s pointer", dst ? "source" : "destination");
    return -1;
  }
  cudaStream_t s = current_stream_of_current_device();
  switch (kind) {
    case PD_CU_H2D: {
      // from pinned memory: asynchronous; from pageable memory: return only once the source
      // may be reused (cudaMemcpyAsync may return before it read the whole source)
      cudaPointerAttributes a;
      bool is_pinned = false;
      if (cudaPointerGetAttributes(&a, src) == cudaSuccess) is_pinned = a.type == cudaMemoryTypeHost;
      else (void)cudaGetLastError();
      CU_TRY(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyHostToDevice, s), "cudaMemcpyAsync (host to device)");
      if (!is_pinned) CU_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (after a host to device copy)");
      return 0;
    }
    case PD_CU_D2H:
      CU_TRY(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDeviceToHost, s), "cudaMemcpyAsync (device to host)");
      CU_TRY(cudaStreamSynchronize(s), "cudaStreamSynchronize (after a device to host copy)");
      return 0;
    case PD_CU_D2D: // cudaMemcpyDefault: the two pointers may be on different GPUs (UVA)
      CU_TRY(cudaMemcpyAsync(dst, src, nbytes, cudaMemcpyDefault, s), "cudaMemcpyAsync (device to device)");
      return 0;
    case PD_CU_H2H:
      memcpy(dst, src, nbytes);
      return 0;
    default:
      set_error(PD_CU_ERR_INVALID, "memcpy: unknown kind %d (expected PD_CU_H2D, D2H, D2D or H2H)", kind);
      return -1;
  }
}

int rt_memset(void *dst, int byte, size_t nbytes) {
  if (nbytes == 0) return 0;
  CU_TRY(cudaMemsetAsync(dst, byte, nbytes, current_stream_of_current_device()), "cudaMemsetAsync");
  return 0;
}

void *rt_stream_create(int dev, int priority) {
  if (check_dev(dev)) return nullptr;
  DeviceScope scope;
  if (scope.enter(dev)) return nullptr;
  cudaStream_t s = nullptr;
  cudaError_t e = cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, priority);
  if (e != cudaSuccess) {
    fail(e, "cudaStreamCreateWithPriority");
    return nullptr;
  }
  return (void *)s;
}

int rt_stream_destroy(void *s) {
  if (!s) {
    set_error(PD_CU_ERR_INVALID, "stream_destroy: the default stream (NULL) cannot be destroyed");
    return -1;
  }
  for (int d = 0; d < kMaxDevices; d++) // this thread no longer uses it
    if (t_stream[d] == (cudaStream_t)s) t_stream[d] = nullptr;
  CU_TRY(cudaStreamDestroy((cudaStream_t)s), "cudaStreamDestroy");
  return 0;
}

int rt_stream_sync(void *s) {
  CU_TRY(cudaStreamSynchronize((cudaStream_t)s), "cudaStreamSynchronize");
  return 0;
}

int rt_stream_query(void *s) {
  cudaError_t e = cudaStreamQuery((cudaStream_t)s);
  if (e == cudaSuccess) return 1;
  if (e == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return 0;
  }
  return fail(e, "cudaStreamQuery");
}

void *rt_current_stream(int dev) {
  if (check_dev(dev)) return nullptr;
  return (void *)t_stream[dev];
}

int rt_set_current_stream(int dev, void *s) {
  if (check_dev(dev)) return -1;
  if (s) {
    int sd = -1;
    CU_TRY(cudaStreamGetDevice((cudaStream_t)s, &sd), "cudaStreamGetDevice");
    if (sd != dev) {
      set_error(PD_CU_ERR_INVALID, "set_current_stream: the stream belongs to GPU %d, not GPU %d", sd, dev);
      return -1;
    }
  }
  t_stream[dev] = (cudaStream_t)s;
  return 0;
}

int rt_stream_wait_event(void *s, void *e) {
  CU_TRY(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0), "cudaStreamWaitEvent");
  return 0;
}

void *rt_event_create(int enable_timing, int blocking, int interprocess) {
  unsigned flags = cudaEventDefault;
  if (!enable_timing) flags |= cudaEventDisableTiming;
  if (blocking) flags |= cudaEventBlockingSync;
  if (interprocess) flags |= cudaEventInterprocess | cudaEventDisableTiming;
  cudaEvent_t ev = nullptr;
  cudaError_t e = cudaEventCreateWithFlags(&ev, flags);
  if (e != cudaSuccess) {
    fail(e, "cudaEventCreateWithFlags");
    return nullptr;
  }
  return (void *)ev;
}

int rt_event_destroy(void *e) {
  if (!e) return 0;
  CU_TRY(cudaEventDestroy((cudaEvent_t)e), "cudaEventDestroy");
  return 0;
}

int rt_event_record(void *e, void *s) {
  CU_TRY(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s), "cudaEventRecord");
  return 0;
}

int rt_event_sync(void *e) {
  CU_TRY(cudaEventSynchronize((cudaEvent_t)e), "cudaEventSynchronize");
  return 0;
}

int rt_event_query(void *e) {
  cudaError_t r = cudaEventQuery((cudaEvent_t)e);
  if (r == cudaSuccess) return 1;
  if (r == cudaErrorNotReady) {
    (void)cudaGetLastError();
    return 0;
  }
  return fail(r, "cudaEventQuery");
}

int rt_event_elapsed_ms(void *start, void *end, float *ms) {
  float v = 0.f;
  CU_TRY(cudaEventElapsedTime(&v, (cudaEvent_t)start, (cudaEvent_t)end), "cudaEventElapsedTime");
  if (ms) *ms = v;
  return 0;
}

int rt_device_sync(void) {
  CU_TRY(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  return 0;
}

// An error found here comes from an earlier launch or a fault inside a kernel: PD_CU_ERR_LAUNCH.
int rt_check(int sync) {
  const char *where = "cudaGetLastError";
  cudaError_t e = cudaSuccess;
  if (sync) {
    e = cudaStreamSynchronize(current_stream_of_current_device());
    where = "cudaStreamSynchronize";
  }
  cudaError_t last = cudaGetLastError(); // clears a non-sticky error
  if (e == cudaSuccess) e = last;
  if (e == cudaSuccess) return 0;
  set_error(PD_CU_ERR_LAUNCH, "CUDA error at %s: %s (%s)", where, cudaGetErrorString(e), cudaGetErrorName(e));
  return -1;
}

const char *rt_last_error(void) { return t_err; }
int rt_last_error_code(void) { return t_code; }

// Filled by name (a positional initializer would not notice two swapped int (*)(void *)).
constexpr pd_cuda_runtime make_table() {
  pd_cuda_runtime t{};
  t.device_count = rt_device_count;
  t.set_device = rt_set_device;
  t.get_device = rt_get_device;
  t.get_props = rt_get_props;
  t.versions = rt_versions;
  t.alloc = rt_alloc;
  t.free = rt_free;
  t.mem_stats = rt_mem_stats;
  t.reset_peak = rt_reset_peak;
  t.empty_cache = rt_empty_cache;
  t.host_alloc = rt_host_alloc;
  t.host_free = rt_host_free;
  t.memcpy = rt_memcpy;
  t.memset = rt_memset;
  t.stream_create = rt_stream_create;
  t.stream_destroy = rt_stream_destroy;
  t.stream_sync = rt_stream_sync;
  t.stream_query = rt_stream_query;
  t.current_stream = rt_current_stream;
  t.set_current_stream = rt_set_current_stream;
  t.stream_wait_event = rt_stream_wait_event;
  t.event_create = rt_event_create;
  t.event_destroy = rt_event_destroy;
  t.event_record = rt_event_record;
  t.event_sync = rt_event_sync;
  t.event_query = rt_event_query;
  t.event_elapsed_ms = rt_event_elapsed_ms;
  t.device_sync = rt_device_sync;
  t.check = rt_check;
  t.last_error = rt_last_error;
  t.last_error_code = rt_last_error_code;
  return t;
}

} // namespace

extern "C" const pd_cuda_runtime pd_cuda_rt_table = make_table(); // constant-initialised

#endif // !__CUDA_ARCH__

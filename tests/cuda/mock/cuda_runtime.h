// A host-only stand-in for the CUDA runtime, just what csrc/cuda/runtime.cu calls, so that the
// allocator / copy / stream / error logic of runtime.cu can be compiled with g++ and checked by
// tests/cuda/rt_check.c on a machine without a GPU (`make cuda-mock-check`). "Device" memory is
// host memory (a 2 GiB budget: a 1 TiB request fails as on a GPU); copies are memcpy; streams and
// events are tokens (work completes at once); one mock GPU. Not the real semantics of asynchrony:
// the GPU run of rt_check is the real test.
// MOCK_CUDA_STRICT=1: "device" memory is mapped PROT_NONE and opened only inside the mock's own
// copies and memsets, so host code that reads or writes device memory directly (as a real GPU
// would not allow) faults at once instead of passing (tests/python/test_gpu_static.py runs so).
#ifndef PD_MOCK_CUDA_RUNTIME_H
#define PD_MOCK_CUDA_RUNTIME_H
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <map>
#include <sys/mman.h>

enum cudaError_t {
  cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorMemoryAllocation = 2, cudaErrorInvalidDevice = 101,
  cudaErrorNoDevice = 100, cudaErrorInsufficientDriver = 35, cudaErrorDevicesUnavailable = 46,
  cudaErrorInvalidResourceHandle = 400, cudaErrorNotReady = 600,
};
enum cudaMemcpyKind { cudaMemcpyHostToHost = 0, cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2,
                      cudaMemcpyDeviceToDevice = 3, cudaMemcpyDefault = 4 };
enum cudaMemoryType { cudaMemoryTypeUnregistered = 0, cudaMemoryTypeHost = 1, cudaMemoryTypeDevice = 2 };
struct cudaPointerAttributes { cudaMemoryType type; int device; void *devicePointer; void *hostPointer; };
struct CUstream_mock { int dev; unsigned flags; };
struct CUevent_mock { unsigned flags; bool recorded; double t; };
typedef CUstream_mock *cudaStream_t;
typedef CUevent_mock *cudaEvent_t;
#define cudaStreamNonBlocking 0x01u
#define cudaEventDefault 0x00u
#define cudaEventBlockingSync 0x01u
#define cudaEventDisableTiming 0x02u
#define cudaEventInterprocess 0x04u
#define cudaHostAllocPortable 0x01u
struct cudaDeviceProp {
  char name[256]; int major, minor, multiProcessorCount; size_t totalGlobalMem; int l2CacheSize;
  int maxThreadsPerMultiProcessor; size_t sharedMemPerBlockOptin; int warpSize;
};

namespace mockcuda {
constexpr size_t kTotal = size_t(2) << 30;
inline std::mutex &mu() { static std::mutex m; return m; }
inline size_t &used() { static size_t u = 0; return u; }
inline std::map<void *, size_t> &dev_blocks() { static std::map<void *, size_t> m; return m; }
inline std::set<void *> &pinned() { static std::set<void *> s; return s; }
inline thread_local cudaError_t last = cudaSuccess;
inline thread_local int cur_dev = 0;
inline double clock_ms = 0;
inline cudaError_t ret(cudaError_t e) { if (e != cudaSuccess && e != cudaErrorNotReady) last = e; return e; }
inline bool strict() {
  static const bool on = [] { const char *v = getenv("MOCK_CUDA_STRICT"); return v && v[0] == '1'; }();
  return on;
}
inline size_t pages(size_t n) { return (n ? n + 4095 : 4096) / 4096 * 4096; }
// strict mode: opens (prot RW) or closes (PROT_NONE) the device block holding p, if any (mu() held)
inline void gate(const void *p, int prot) {
  if (!strict() || !p) return;
  auto &m = dev_blocks();
  auto it = m.upper_bound(const_cast<void *>(p));
  if (it == m.begin()) return;
  --it;
  if ((const char *)p >= (const char *)it->first + pages(it->second)) return;
  mprotect(it->first, pages(it->second), prot);
}
} // namespace mockcuda

inline const char *cudaGetErrorString(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotReady: return "device not ready";
    default: return "mock error";
  }
}
inline const char *cudaGetErrorName(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    default: return "cudaErrorMock";
  }
}
inline cudaError_t cudaGetLastError() { cudaError_t e = mockcuda::last; mockcuda::last = cudaSuccess; return e; }
inline cudaError_t cudaGetDeviceCount(int *n) {
  const char *v = getenv("MOCK_CUDA_DEVICES");
  *n = v ? atoi(v) : 1;
  return *n ? cudaSuccess : mockcuda::ret(cudaErrorNoDevice);
}
inline cudaError_t cudaGetDevice(int *d) { *d = mockcuda::cur_dev; return cudaSuccess; }
inline cudaError_t cudaSetDevice(int d) {
  int n = 0;
  cudaGetDeviceCount(&n);
  if (d < 0 || d >= n) return mockcuda::ret(cudaErrorInvalidDevice);
  mockcuda::cur_dev = d;
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaMalloc(void **p, size_t n) {
  std::lock_guard<std::mutex> l(mockcuda::mu());
  if (n > mockcuda::kTotal - mockcuda::used()) return mockcuda::ret(cudaErrorMemoryAllocation);
  if (mockcuda::strict()) {
    void *m = mmap(nullptr, mockcuda::pages(n), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    *p = m == MAP_FAILED ? nullptr : m;
  } else {
    *p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
  }
  if (!*p) return mockcuda::ret(cudaErrorMemoryAllocation);
  mockcuda::used() += n;
  mockcuda::dev_blocks()[*p] = n;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void *p) {
  std::lock_guard<std::mutex> l(mockcuda::mu());
  auto it = mockcuda::dev_blocks().find(p);
  if (it == mockcuda::dev_blocks().end()) return mockcuda::ret(cudaErrorInvalidValue);
  mockcuda::used() -= it->second;
  size_t n = it->second;
  mockcuda::dev_blocks().erase(it);
  if (mockcuda::strict()) munmap(p, mockcuda::pages(n));
  else free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t *fr, size_t *total) {
  *total = mockcuda::kTotal;
  *fr = mockcuda::kTotal - mockcuda::used();
  return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d) {
  if (d != 0) return mockcuda::ret(cudaErrorInvalidDevice);
  memset(p, 0, sizeof *p);
  strcpy(p->name, "mock GPU (host memory)");
  p->major = 9; p->minor = 0; p->multiProcessorCount = 132; p->totalGlobalMem = mockcuda::kTotal;
  p->l2CacheSize = 50 << 20; p->maxThreadsPerMultiProcessor = 2048; p->sharedMemPerBlockOptin = 227 << 10; p->warpSize = 32;
  return cudaSuccess;
}
inline cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }
inline cudaError_t cudaHostAlloc(void **p, size_t n, unsigned) {
  *p = aligned_alloc(4096, (n + 4095) / 4096 * 4096);
  if (!*p) return mockcuda::ret(cudaErrorMemoryAllocation);
  std::lock_guard<std::mutex> l(mockcuda::mu());
  mockcuda::pinned().insert(*p);
  return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) {
  std::lock_guard<std::mutex> l(mockcuda::mu());
  if (!mockcuda::pinned().erase(p)) return mockcuda::ret(cudaErrorInvalidValue);
  free(p);
  return cudaSuccess;
}
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *a, const void *p) {
  std::lock_guard<std::mutex> l(mockcuda::mu());
  memset(a, 0, sizeof *a);
  a->type = mockcuda::pinned().count(const_cast<void *>(p)) ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered;
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t) {
  if (!d || !s) return mockcuda::ret(cudaErrorInvalidValue);
  if (mockcuda::strict()) {
    std::lock_guard<std::mutex> l(mockcuda::mu());
    mockcuda::gate(d, PROT_READ | PROT_WRITE);
    mockcuda::gate(s, PROT_READ | PROT_WRITE);
    memmove(d, s, n);
    mockcuda::gate(d, PROT_NONE);
    mockcuda::gate(s, PROT_NONE);
  } else {
    memmove(d, s, n);
  }
  mockcuda::clock_ms += double(n) / 1e9;
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t) {
  if (!d) return mockcuda::ret(cudaErrorInvalidValue);
  if (mockcuda::strict()) {
    std::lock_guard<std::mutex> l(mockcuda::mu());
    mockcuda::gate(d, PROT_READ | PROT_WRITE);
    memset(d, v, n);
    mockcuda::gate(d, PROT_NONE);
  } else {
    memset(d, v, n);
  }
  mockcuda::clock_ms += double(n) / 1e9;
  return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned flags, int) {
  *s = new CUstream_mock{mockcuda::cur_dev, flags};
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s) {
  if (!s) return mockcuda::ret(cudaErrorInvalidResourceHandle);
  delete s;
  return cudaSuccess;
}
inline cudaError_t cudaStreamQuery(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamGetDevice(cudaStream_t s, int *d) { *d = s ? s->dev : mockcuda::cur_dev; return cudaSuccess; }
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t e, unsigned) {
  return e ? cudaSuccess : mockcuda::ret(cudaErrorInvalidResourceHandle);
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned flags) {
  *e = new CUevent_mock{flags, false, 0};
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  if (!e) return mockcuda::ret(cudaErrorInvalidResourceHandle);
  delete e;
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (!e) return mockcuda::ret(cudaErrorInvalidResourceHandle);
  e->recorded = true;
  e->t = mockcuda::clock_ms;
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t e) { return e ? cudaSuccess : mockcuda::ret(cudaErrorInvalidResourceHandle); }
inline cudaError_t cudaEventQuery(cudaEvent_t e) { return e ? cudaSuccess : mockcuda::ret(cudaErrorInvalidResourceHandle); }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
  if (!a || !b || (a->flags & cudaEventDisableTiming) || (b->flags & cudaEventDisableTiming) || !a->recorded || !b->recorded)
    return mockcuda::ret(cudaErrorInvalidResourceHandle);
  *ms = float(b->t - a->t);
  return cudaSuccess;
}
#endif

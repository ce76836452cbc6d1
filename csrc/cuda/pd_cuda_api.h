/* The one interface between paddle._C (C11, built everywhere) and libpaddle_c_cuda.so (built by
 * nvcc where nvcc is present, dlopen'd at run time by csrc/core/pd_device.c only when a GPU is
 * found, so the CPU build never needs the CUDA runtime). Plain C, valid C11 and CUDA C++, no
 * CUDA header: both sides include it.
 *
 * Conventions for every function pointer below:
 *  - int results: 0 = success; -1 = failure, with a message for rt->last_error() (thread-local)
 *    and a code for rt->last_error_code() (PD_CU_ERR_*).
 *  - Devices are CUDA ordinals. Kernels run on the CURRENT device's CURRENT stream of the calling
 *    thread (rt->set_device, rt->set_current_stream) and are asynchronous: a launcher checks the
 *    launch (cudaGetLastError) and returns; a fault inside the kernel shows at the next
 *    synchronising call (rt->check / memcpy to host), or at once when the environment variable
 *    PADDLE_C_CUDA_SYNC=1 (the runner then synchronises after every GPU op and names the op).
 *  - pd_cuda_tensor describes an n-d strided view: data points at element [0, ..., 0] (offset
 *    already applied), strides in ELEMENTS (0 on broadcast dims, negative allowed), dtype a
 *    PD_CU_* code (the same numbers as csrc/core/pd_dtype.h's pd_dtype; pd_device.c checks).
 *
 * The table is split into families, one header and one owner each:
 *   rt  (this file)                runtime: devices, caching allocator, copies, streams, events
 *   ew  (pd_cuda_elementwise.h)    elementwise / broadcasting / casts / fills / compare / where
 *   nn  (pd_cuda_nn.h)             matmul (cuBLAS), reductions, softmax, losses, norms
 *   misc (pd_cuda_misc.h)          random + dropout, optimizer updates, embedding, index ops
 *   dnn (pd_cuda_dnn.h)            convolutions (cuDNN 9, dlopen'd) and pooling
 * A family may be NULL (not built); a NULL function pointer means "not available". */
#ifndef PD_CUDA_API_H
#define PD_CUDA_API_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PD_CUDA_API_VERSION 1
#define PD_CUDA_MAX_DIMS 9

enum {
  PD_CU_BOOL = 0, PD_CU_UINT8, PD_CU_INT8, PD_CU_INT16, PD_CU_INT32, PD_CU_INT64,
  PD_CU_FLOAT16, PD_CU_BFLOAT16, PD_CU_FLOAT32, PD_CU_FLOAT64, PD_CU_COMPLEX64, PD_CU_COMPLEX128,
  PD_CU_NUM_DTYPES
};

enum { /* rt->last_error_code() */
  PD_CU_OK = 0,
  PD_CU_ERR_NO_DEVICE = 1,   /* no driver / no GPU / bad ordinal -> RuntimeError */
  PD_CU_ERR_OOM = 2,         /* allocation failed after emptying the cache -> MemoryError */
  PD_CU_ERR_INVALID = 3,     /* bad argument (dtype/shape the kernel cannot take) -> ValueError */
  PD_CU_ERR_UNSUPPORTED = 4, /* this dtype/op is not implemented on GPU -> NotImplementedError */
  PD_CU_ERR_LAUNCH = 5,      /* CUDA error from a launch or an asynchronous fault -> RuntimeError */
  PD_CU_ERR_LIBRARY = 6,     /* cuBLAS / cuDNN missing or failing -> RuntimeError */
};

enum { PD_CU_H2D = 1, PD_CU_D2H = 2, PD_CU_D2D = 3, PD_CU_H2H = 4 };

typedef struct pd_cuda_tensor {
  void *data;
  int dtype;
  int ndim;
  int64_t numel;
  int64_t shape[PD_CUDA_MAX_DIMS];
  int64_t strides[PD_CUDA_MAX_DIMS];
} pd_cuda_tensor;

typedef struct pd_cuda_props {
  char name[256];
  int major, minor;
  int multi_processor_count;
  size_t total_memory;
  int l2_cache_size;
  int max_threads_per_multi_processor;
  size_t shared_mem_per_block_optin;
  int warp_size;
} pd_cuda_props;

typedef struct pd_cuda_mem_stats {
  size_t allocated;      /* bytes handed out to tensors now */
  size_t reserved;       /* bytes held from cudaMalloc now (allocated + cached) */
  size_t max_allocated;  /* peaks since start or the last reset_peak */
  size_t max_reserved;
  uint64_t n_device_allocs; /* cudaMalloc calls so far */
} pd_cuda_mem_stats;

typedef struct pd_cuda_runtime {
  /* Number of usable GPUs; 0 (never an error) when there is no driver or no device. */
  int (*device_count)(void);
  int (*set_device)(int dev);
  int (*get_device)(void);
  int (*get_props)(int dev, pd_cuda_props *out);
  int (*versions)(int *driver, int *runtime); /* CUDA versions as 1000*major + 10*minor */

  /* The caching allocator (Paddle's auto_growth strategy): blocks carved from cudaMalloc'd
   * chunks, best fit, split and merged, never given back to the driver except by empty_cache
   * or when a cudaMalloc fails (then the cache is emptied and the call retried once). NULL with
   * PD_CU_ERR_OOM and a message naming the request and what is allocated / reserved / cached.
   * A block is reusable by the stream it was freed on at once (stream order). nbytes 0 gives a
   * valid unique pointer. Thread-safe. */
  void *(*alloc)(int dev, size_t nbytes);
  void (*free)(int dev, void *p);
  int (*mem_stats)(int dev, pd_cuda_mem_stats *out);
  void (*reset_peak)(int dev);
  int (*empty_cache)(void);
  /* Page-locked host memory (CUDAPinnedPlace), cached the same way. */
  void *(*host_alloc)(size_t nbytes);
  void (*host_free)(void *p);

  /* Copies of nbytes on the current stream. H2D from pageable memory and every D2H return once
   * the host buffer may be reused / read (D2H waits for the stream); D2D and H2D from pinned
   * memory are asynchronous. */
  int (*memcpy)(void *dst, const void *src, size_t nbytes, int kind);
  int (*memset)(void *dst, int byte, size_t nbytes);

  /* Streams and events are opaque handles (cudaStream_t / cudaEvent_t). NULL stream = the
   * device's default (legacy) stream. */
  void *(*stream_create)(int dev, int priority);
  int (*stream_destroy)(void *s);
  int (*stream_sync)(void *s);
  int (*stream_query)(void *s);          /* 1 finished, 0 pending, -1 error */
  void *(*current_stream)(int dev);      /* this thread's current stream of dev */
  int (*set_current_stream)(int dev, void *s);
  int (*stream_wait_event)(void *s, void *e);
  void *(*event_create)(int enable_timing, int blocking, int interprocess);
  int (*event_destroy)(void *e);
  int (*event_record)(void *e, void *s);
  int (*event_sync)(void *e);
  int (*event_query)(void *e);           /* 1 finished, 0 pending, -1 error */
  int (*event_elapsed_ms)(void *start, void *end, float *ms);
  int (*device_sync)(void);
  /* Reports a pending asynchronous error (cudaGetLastError after a synchronize of the current
   * stream when sync != 0, else without waiting). */
  int (*check)(int sync);

  const char *(*last_error)(void);
  int (*last_error_code)(void);
} pd_cuda_runtime;

struct pd_cuda_elementwise; /* pd_cuda_elementwise.h */
struct pd_cuda_nn;          /* pd_cuda_nn.h */
struct pd_cuda_misc;        /* pd_cuda_misc.h */
struct pd_cuda_dnn;         /* pd_cuda_dnn.h */

typedef struct pd_cuda_api {
  int version;              /* PD_CUDA_API_VERSION */
  int max_dims;             /* PD_CUDA_MAX_DIMS */
  const pd_cuda_runtime *rt;
  const struct pd_cuda_elementwise *ew;
  const struct pd_cuda_nn *nn;
  const struct pd_cuda_misc *misc;
  const struct pd_cuda_dnn *dnn;
} pd_cuda_api;

/* Exported by libpaddle_c_cuda.so (the only exported symbol). */
const pd_cuda_api *pd_cuda_get_api(void);
typedef const pd_cuda_api *(*pd_cuda_get_api_fn)(void);

#ifdef __cplusplus
}
#endif
#endif

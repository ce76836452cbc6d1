/* Devices: where a storage's bytes live, and the CUDA backend as seen from the C core.
 * A storage lives on the CPU (device PD_CPU) or on GPU n (device n >= 0). The CUDA code is in
 * libpaddle_c_cuda.so (csrc/cuda/), loaded at run time by pd_cuda_load() only when the library
 * is there and a GPU is found; until then pd_cuda is NULL and every tensor is on the CPU.
 * See docs/arch/cuda.md, "CUDA backend". */
#ifndef PD_DEVICE_H
#define PD_DEVICE_H
#include "pd_tensor.h"
#include "../cuda/pd_cuda_api.h"

#define PD_CPU (-1)

/* The loaded backend (NULL: none). Read-only after pd_cuda_load succeeded. */
extern const pd_cuda_api *pd_cuda;
/* Called once when the backend loads, before pd_cuda is published (the op layer sets it to
 * register its GPU kernels: csrc/ops/gpu_dispatch.c; the core never calls up into it). */
extern void (*pd_cuda_on_load)(const pd_cuda_api *api);
/* Loads libpaddle_c_cuda.so (the paddle/libs/ directory of the running _C, or
 * $PADDLE_C_CUDA_LIB) and registers the GPU kernels; idempotent and thread-safe. Returns
 * PD_ERR_UNAVAILABLE with the reason when there is no library, no driver or no GPU. */
pd_status pd_cuda_load(void);
/* Number of GPUs (loads the backend on first use); 0 when none. */
int pd_cuda_device_count(void);
/* Why the backend is not loaded ("" when it is). */
const char *pd_cuda_unavailable_reason(void);

static inline int pd_storage_device(const pd_storage *s) { return s ? s->device : PD_CPU; }
static inline int pd_tensor_device(const pd_tensor *t) { return t->storage ? t->storage->device : PD_CPU; }
static inline int pd_tensor_on_gpu(const pd_tensor *t) { return t->storage && t->storage->device >= 0; }

/* The device new storages go to: this thread's override when set (the runner sets it to the
 * running op's device, autograd to the loss's), else the process default (paddle.set_device). */
int pd_device_current(void);
void pd_device_set_default(int dev);
int pd_device_get_default(void);
/* Sets this thread's override (PD_DEVICE_NONE clears it) and returns the previous one. */
#define PD_DEVICE_NONE (-2)
int pd_device_swap_current(int dev);

/* The device of an op without tensor inputs (full, randn, arange ...): this thread's override
 * when set (autograd sets the loss's device), else the process default. */
int pd_device_creation(void);
/* Makes dev the CUDA current device of this thread (cached; a no-op for the CPU). */
pd_status pd_device_activate(int dev);

/* A storage / contiguous tensor on an explicit device. */
pd_status pd_storage_new_on(int dev, size_t nbytes, pd_storage **out);
pd_status pd_tensor_empty_on(int dev, pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out);
/* A contiguous copy of t on dev (t itself, retained, when it is already there and contiguous
 * and force_copy is 0). Host <-> device and device <-> device. */
pd_status pd_tensor_to_device(pd_tensor *t, int dev, int force_copy, pd_tensor **out);
/* Copies nbytes between any two places (dst_dev / src_dev PD_CPU or a GPU). */
pd_status pd_device_memcpy(void *dst, int dst_dev, const void *src, int src_dev, size_t nbytes);

/* pd_tensor_copy_ / fill_ when either side lives on a GPU (pd_tensor_copy.c routes here):
 * broadcasting and casting as on the CPU, through the elementwise family's copy / fill. */
pd_status pd_device_copy_(pd_tensor *dst, pd_tensor *src);
pd_status pd_device_fill_(pd_tensor *t, double re, double im);
/* Waits for the current stream and reports an asynchronous fault (PADDLE_C_CUDA_SYNC=1 makes the
 * runner call it after every GPU op, naming the op). */
pd_status pd_device_check(const char *op, int sync);
extern int pd_cuda_sync_each; /* PADDLE_C_CUDA_SYNC=1 */

/* *out: host-readable bytes of the element at storage offset off (in elements) of t: t's own
 * memory on the CPU, else a copy into buf (16 bytes). For the few places that read tensor values
 * on the host (shape tensors, int arguments given as tensors, item, bool). */
pd_status pd_elem_host(const pd_tensor *t, int64_t off, unsigned char *buf, const void **out);

/* ---- for the GPU kernel glue (csrc/kernels/gpu/) ---- */
/* The launcher's view of t (data at t's offset, t's own strides). */
pd_cuda_tensor pd_cu_view(const pd_tensor *t);
/* t broadcast (numpy rules, right-aligned) to shape[0..ndim): stride 0 on broadcast dims. */
pd_cuda_tensor pd_cu_bcast(const pd_tensor *t, int ndim, const int64_t *shape);
/* rc from a launcher -> pd_status: 0 -> PD_OK; else the backend's code mapped to a pd_status
 * (OOM -> PD_ERR_RESOURCE_EXHAUSTED, unsupported -> PD_ERR_UNIMPLEMENTED, invalid ->
 * PD_ERR_INVALID_ARGUMENT, else PD_ERR_EXTERNAL) with the message "[op] <backend message>". */
pd_status pd_cu_status(int rc, const char *op);
/* Unsupported-on-GPU error naming op and dtype (NotImplementedError). */
pd_status pd_cu_unsupported(const char *op, pd_dtype dt);

#endif

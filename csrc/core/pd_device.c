/* Devices and the CUDA backend as seen from the C core (pd_device.h): loading
 * libpaddle_c_cuda.so, GPU storages, copies between places, and the launcher views the GPU
 * kernel glue (csrc/kernels/gpu/) builds. Nothing here needs a CUDA header: the library's one
 * table (csrc/cuda/pd_cuda_api.h) is all the core sees. */
#include "pd_device.h"
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../cuda/pd_cuda_elementwise.h"

_Static_assert(PD_CU_FLOAT32 == (int)PD_FLOAT32 && PD_CU_BFLOAT16 == (int)PD_BFLOAT16 &&
                   PD_CU_COMPLEX128 == (int)PD_COMPLEX128 && PD_CU_NUM_DTYPES == (int)PD_NUM_DTYPES,
               "pd_cuda_api.h's dtype codes must be pd_dtype's");
_Static_assert(PD_CUDA_MAX_DIMS == PD_MAX_DIMS, "pd_cuda_api.h's PD_CUDA_MAX_DIMS must be PD_MAX_DIMS");

const pd_cuda_api *pd_cuda = NULL;
void (*pd_cuda_on_load)(const pd_cuda_api *api) = NULL;
int pd_cuda_sync_each = 0;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_reason[1024] = "the CUDA backend was not loaded yet";
static int n_gpus = 0;

/* ---- the current device ---- */
static _Thread_local int tl_dev = PD_DEVICE_NONE;
static int default_dev = PD_CPU;

int pd_device_current(void) { return tl_dev >= 0 ? tl_dev : PD_CPU; }
int pd_device_swap_current(int dev) {
  int old = tl_dev;
  tl_dev = dev;
  return old;
}
void pd_device_set_default(int dev) { default_dev = dev; }
int pd_device_creation(void) { return tl_dev != PD_DEVICE_NONE ? tl_dev : default_dev; }

/* the CUDA current device of this thread as last set here: every set_device of the core and of
 * paddle._C goes through pd_device_activate, so the cache stays true and the hot paths (each
 * allocation, copy and GPU op) skip the call */
static _Thread_local int tl_active = -1;
pd_status pd_device_activate(int dev) {
  if (dev < 0 || dev == tl_active) return PD_OK;
  PD_TRY(pd_cuda_load());
  if (pd_cuda->rt->set_device(dev) != 0) return pd_set_error(PD_ERR_EXTERNAL, "%s", pd_cuda->rt->last_error());
  tl_active = dev;
  return PD_OK;
}
int pd_device_get_default(void) { return default_dev; }

/* ---- loading ---- */
static void *open_lib(char *why, size_t n) {
  const char *env = getenv("PADDLE_C_CUDA_LIB");
  if (env && *env) {
    void *h = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, n, "PADDLE_C_CUDA_LIB=%s cannot be loaded: %s", env, dlerror());
    return h;
  }
  Dl_info info;
  if (!dladdr((void *)&pd_cuda_load, &info) || !info.dli_fname) {
    snprintf(why, n, "cannot locate the paddle._C library to find libpaddle_c_cuda.so beside it");
    return NULL;
  }
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", info.dli_fname);
  char *slash = strrchr(dir, '/');
  if (slash) *slash = 0;
  else snprintf(dir, sizeof dir, ".");
  /* _C*.so lives in paddle/ (the library in paddle/libs/); libpaddle_inference_c.so in libs/ */
  const char *cands[2] = {"%s/libs/libpaddle_c_cuda.so", "%s/libpaddle_c_cuda.so"};
  char path[PATH_MAX + 32];
  const char *err = "";
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, cands[i], dir);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    err = dlerror();
    if (!err) err = "";
  }
  snprintf(why, n, "this build has no CUDA backend (libpaddle_c_cuda.so is built where nvcc is present): %.600s",
           err);
  return NULL;
}

static void do_load(void) {
  const char *off = getenv("PADDLE_C_CUDA");
  if (off && strcmp(off, "0") == 0) {
    snprintf(load_reason, sizeof load_reason, "the CUDA backend is disabled (PADDLE_C_CUDA=0)");
    return;
  }
  void *h = open_lib(load_reason, sizeof load_reason);
  if (!h) return;
  pd_cuda_get_api_fn get = (pd_cuda_get_api_fn)dlsym(h, "pd_cuda_get_api");
  const pd_cuda_api *api = get ? get() : NULL;
  if (!api || api->version != PD_CUDA_API_VERSION || api->max_dims != PD_MAX_DIMS || !api->rt ||
      !api->rt->device_count) {
    snprintf(load_reason, sizeof load_reason,
             "libpaddle_c_cuda.so does not match this paddle._C (table version %d, expected %d)",
             api ? api->version : -1, PD_CUDA_API_VERSION);
    dlclose(h);
    return;
  }
  int n = api->rt->device_count();
  if (n <= 0) {
    snprintf(load_reason, sizeof load_reason, "no CUDA GPU was found (%s)",
             api->rt->last_error ? api->rt->last_error() : "");
    return; /* keep the library mapped: cudart's static state may hold it */
  }
  const char *sync = getenv("PADDLE_C_CUDA_SYNC");
  pd_cuda_sync_each = sync && strcmp(sync, "1") == 0;
  n_gpus = n;
  /* published before the op layer registers its kernels (they read it); no tensor can be on a
   * GPU before pthread_once returns, so no op is routed there half-registered */
  pd_cuda = api;
  if (pd_cuda_on_load) pd_cuda_on_load(api);
  load_reason[0] = 0;
}

pd_status pd_cuda_load(void) {
  pthread_once(&load_once, do_load);
  if (pd_cuda) return PD_OK;
  return pd_set_error(PD_ERR_UNAVAILABLE, "%s", load_reason);
}

int pd_cuda_device_count(void) {
  pthread_once(&load_once, do_load);
  return pd_cuda ? n_gpus : 0;
}

const char *pd_cuda_unavailable_reason(void) {
  pthread_once(&load_once, do_load);
  return load_reason;
}

static pd_status need_gpu(int dev) {
  PD_TRY(pd_cuda_load());
  if (dev < 0 || dev >= n_gpus)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT,
                        "Place(gpu:%d) does not exist: this machine has %d GPU(s) (gpu:0 ... gpu:%d)", dev,
                        n_gpus, n_gpus - 1);
  return PD_OK;
}

static pd_status rt_status(const char *what) {
  int code = pd_cuda->rt->last_error_code ? pd_cuda->rt->last_error_code() : PD_CU_ERR_LAUNCH;
  pd_status s = code == PD_CU_ERR_OOM           ? PD_ERR_RESOURCE_EXHAUSTED
                : code == PD_CU_ERR_INVALID     ? PD_ERR_INVALID_ARGUMENT
                : code == PD_CU_ERR_UNSUPPORTED ? PD_ERR_UNIMPLEMENTED
                                                : PD_ERR_EXTERNAL;
  return pd_set_error(s, "[%s] %s", what, pd_cuda->rt->last_error());
}

pd_status pd_cu_status(int rc, const char *op) { return rc == 0 ? PD_OK : rt_status(op); }

pd_status pd_cu_unsupported(const char *op, pd_dtype dt) {
  return pd_set_error(PD_ERR_UNIMPLEMENTED,
                      "(Unimplemented) [%s] has no GPU kernel for data type %s (or for these attributes) "
                      "yet; move the inputs to the CPU (x.cpu()) to run it there",
                      op, pd_dtype_name(dt));
}

pd_status pd_device_check(const char *op, int sync) {
  if (!pd_cuda) return PD_OK;
  return pd_cuda->rt->check(sync) == 0 ? PD_OK : rt_status(op);
}

/* ---- storages ---- */
static void gpu_deleter(void *ctx, void *data) {
  if (pd_cuda) pd_cuda->rt->free((int)(intptr_t)ctx - 1, data);
}

pd_status pd_storage_new_on(int dev, size_t nbytes, pd_storage **out) {
  if (dev < 0) {
    int old = pd_device_swap_current(PD_CPU);
    pd_status s = pd_storage_new(nbytes, out);
    pd_device_swap_current(old);
    return s;
  }
  PD_TRY(need_gpu(dev));
  PD_TRY(pd_device_activate(dev));
  void *p = pd_cuda->rt->alloc(dev, nbytes);
  if (!p) return rt_status("alloc");
  pd_storage *s;
  pd_status st = pd_storage_wrap(p, nbytes, gpu_deleter, (void *)(intptr_t)(dev + 1), &s);
  if (st != PD_OK) {
    pd_cuda->rt->free(dev, p);
    return st;
  }
  s->device = dev;
  *out = s;
  return PD_OK;
}

pd_status pd_tensor_empty_on(int dev, pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out) {
  int old = pd_device_swap_current(dev);
  pd_status s = pd_tensor_empty(dtype, ndim, shape, out);
  pd_device_swap_current(old);
  return s;
}

pd_status pd_device_memcpy(void *dst, int dst_dev, const void *src, int src_dev, size_t nbytes) {
  if (nbytes == 0) return PD_OK;
  if (dst_dev < 0 && src_dev < 0) {
    memmove(dst, src, nbytes);
    return PD_OK;
  }
  PD_TRY(pd_cuda_load());
  int kind = dst_dev < 0 ? PD_CU_D2H : src_dev < 0 ? PD_CU_H2D : PD_CU_D2D;
  int dev = src_dev >= 0 ? src_dev : dst_dev;
  PD_TRY(pd_device_activate(dev));
  if (pd_cuda->rt->memcpy(dst, src, nbytes, kind) != 0) return rt_status("memcpy");
  return PD_OK;
}

pd_status pd_elem_host(const pd_tensor *t, int64_t off, unsigned char *buf, const void **out) {
  const char *p = (const char *)t->storage->data + off * (int64_t)pd_dtype_size(t->dtype);
  *out = p;
  if (t->storage->device < 0) return PD_OK;
  *out = buf;
  return pd_device_memcpy(buf, PD_CPU, p, t->storage->device, pd_dtype_size(t->dtype));
}

/* ---- launcher views ---- */
pd_cuda_tensor pd_cu_view(const pd_tensor *t) {
  pd_cuda_tensor v;
  v.data = t->storage ? pd_tensor_data(t) : NULL;
  v.dtype = (int)t->dtype;
  v.ndim = t->ndim;
  v.numel = t->numel;
  for (int d = 0; d < PD_CUDA_MAX_DIMS; d++) {
    v.shape[d] = d < t->ndim ? t->shape[d] : 1;
    v.strides[d] = d < t->ndim ? t->strides[d] : 0;
  }
  return v;
}

pd_cuda_tensor pd_cu_bcast(const pd_tensor *t, int ndim, const int64_t *shape) {
  pd_cuda_tensor v;
  v.data = t->storage ? pd_tensor_data(t) : NULL;
  v.dtype = (int)t->dtype;
  v.ndim = ndim;
  v.numel = pd_shape_numel(ndim, shape);
  int off = ndim - t->ndim;
  for (int d = 0; d < PD_CUDA_MAX_DIMS; d++) {
    if (d >= ndim) {
      v.shape[d] = 1;
      v.strides[d] = 0;
      continue;
    }
    v.shape[d] = shape[d];
    int sd = d - off;
    v.strides[d] = (sd >= 0 && t->shape[sd] != 1) ? t->strides[sd] : 0;
  }
  return v;
}

/* ---- copies between places ---- */
static const pd_cuda_elementwise *ew(void) { return pd_cuda ? pd_cuda->ew : NULL; }

static int same_geometry_contig(const pd_tensor *dst, const pd_tensor *src) {
  if (dst->dtype != src->dtype || dst->numel != src->numel || !pd_tensor_is_contiguous(dst) ||
      !pd_tensor_is_contiguous(src) || dst->ndim < src->ndim)
    return 0;
  int off = dst->ndim - src->ndim;
  for (int d = 0; d < src->ndim; d++)
    if (src->shape[d] != dst->shape[d + off]) return 0;
  return 1;
}

/* A tensor with t's geometry over a host copy of t's whole storage (a new reference). */
static pd_status host_image(pd_tensor *t, pd_tensor **out) {
  pd_storage *h;
  PD_TRY(pd_storage_new_on(PD_CPU, t->storage->nbytes, &h));
  pd_status s = pd_device_memcpy(h->data, PD_CPU, t->storage->data, t->storage->device, t->storage->nbytes);
  if (s == PD_OK) s = pd_tensor_from_storage(h, t->dtype, t->ndim, t->shape, t->strides, t->offset, out);
  pd_storage_release(h);
  return s;
}

/* A strided or casting copy between views of one GPU without the elementwise family (a library
 * built without it, e.g. the host-only mock of tests/cuda/mock): both storages through the host. */
static pd_status staged_copy(pd_tensor *dst, pd_tensor *src) {
  pd_tensor *hs = NULL, *hd = NULL;
  pd_status s = host_image(src, &hs);
  if (s == PD_OK) s = host_image(dst, &hd);
  if (s == PD_OK) s = pd_tensor_copy_(hd, hs);
  if (s == PD_OK)
    s = pd_device_memcpy(dst->storage->data, dst->storage->device, hd->storage->data, PD_CPU, dst->storage->nbytes);
  pd_tensor_release(hs);
  pd_tensor_release(hd);
  return s;
}

/* dst and src on the same GPU */
static pd_status gpu_copy(pd_tensor *dst, pd_tensor *src) {
  int dev = pd_tensor_device(dst);
  PD_TRY(pd_device_activate(dev));
  if (same_geometry_contig(dst, src)) {
    if (pd_cuda->rt->memcpy(pd_tensor_data(dst), pd_tensor_data(src),
                            (size_t)dst->numel * pd_dtype_size(dst->dtype), PD_CU_D2D) != 0)
      return rt_status("copy");
    return PD_OK;
  }
  if (!ew() || !ew()->copy) return staged_copy(dst, src);
  if (pd_dtype_is_complex(dst->dtype) || pd_dtype_is_complex(src->dtype))
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[copy] complex tensors are not supported on the GPU yet");
  /* src must broadcast to dst */
  if (src->ndim > dst->ndim)
    return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[copy] cannot broadcast a %d-D tensor into a %d-D one",
                        src->ndim, dst->ndim);
  for (int d = 0; d < src->ndim; d++) {
    int64_t a = src->shape[d], b = dst->shape[d + dst->ndim - src->ndim];
    if (a != b && a != 1)
      return pd_set_error(PD_ERR_INVALID_ARGUMENT, "[copy] shape mismatch at axis %d: %lld into %lld", d,
                          (long long)a, (long long)b);
  }
  pd_cuda_tensor dv = pd_cu_view(dst), sv = pd_cu_bcast(src, dst->ndim, dst->shape);
  return pd_cu_status(ew()->copy(&dv, &sv), "copy");
}

pd_status pd_device_copy_(pd_tensor *dst, pd_tensor *src) {
  if (dst->numel == 0) return PD_OK;
  int dd = pd_tensor_device(dst), sd = pd_tensor_device(src);
  PD_TRY(pd_cuda_load());
  if (dd >= 0 && sd >= 0 && dd == sd) return gpu_copy(dst, src);
  if (same_geometry_contig(dst, src))
    return pd_device_memcpy(pd_tensor_data(dst), dd, pd_tensor_data(src), sd,
                            (size_t)dst->numel * pd_dtype_size(dst->dtype));
  pd_status s;
  pd_tensor *tmp = NULL;
  if (sd >= 0) {
    /* GPU -> elsewhere: a contiguous copy of src on its GPU, moved, then copied into dst */
    pd_tensor *c = NULL;
    PD_TRY(pd_tensor_contiguous(src, &c));
    s = pd_tensor_empty_on(dd, src->dtype, src->ndim, src->shape, &tmp);
    if (s == PD_OK)
      s = pd_device_memcpy(pd_tensor_data(tmp), dd, pd_tensor_data(c), sd,
                           (size_t)c->numel * pd_dtype_size(c->dtype));
    pd_tensor_release(c);
    if (s == PD_OK) s = pd_tensor_copy_(dst, tmp);
  } else {
    /* CPU -> GPU: src cast and broadcast on the CPU into dst's dtype and shape, then moved */
    s = pd_tensor_empty_on(PD_CPU, dst->dtype, dst->ndim, dst->shape, &tmp);
    if (s == PD_OK) s = pd_tensor_copy_(tmp, src);
    if (s == PD_OK) {
      if (pd_tensor_is_contiguous(dst)) {
        s = pd_device_memcpy(pd_tensor_data(dst), dd, pd_tensor_data(tmp), PD_CPU,
                             (size_t)tmp->numel * pd_dtype_size(tmp->dtype));
      } else {
        pd_tensor *g = NULL;
        s = pd_tensor_to_device(tmp, dd, 1, &g);
        if (s == PD_OK) s = gpu_copy(dst, g);
        pd_tensor_release(g);
      }
    }
  }
  pd_tensor_release(tmp);
  return s;
}

pd_status pd_device_fill_(pd_tensor *t, double re, double im) {
  if (t->numel == 0) return PD_OK;
  PD_TRY(pd_cuda_load());
  if (pd_dtype_is_complex(t->dtype))
    return pd_set_error(PD_ERR_UNIMPLEMENTED, "[fill] complex tensors are not supported on the GPU yet");
  PD_TRY(pd_device_activate(pd_tensor_device(t)));
  if (re == 0.0 && !__builtin_signbit(re) && pd_tensor_is_contiguous(t)) {
    if (pd_cuda->rt->memset(pd_tensor_data(t), 0, (size_t)t->numel * pd_dtype_size(t->dtype)) != 0)
      return rt_status("fill");
    return PD_OK;
  }
  if (!ew() || !ew()->fill) { /* a library without the elementwise family: through the host */
    pd_tensor *h = NULL;
    pd_status s = host_image(t, &h);
    if (s == PD_OK) s = pd_tensor_fill_(h, re, im);
    if (s == PD_OK) s = pd_device_memcpy(t->storage->data, t->storage->device, h->storage->data, PD_CPU, t->storage->nbytes);
    pd_tensor_release(h);
    return s;
  }
  pd_cuda_tensor v = pd_cu_view(t);
  return pd_cu_status(ew()->fill(&v, re), "fill");
}

pd_status pd_tensor_to_device(pd_tensor *t, int dev, int force_copy, pd_tensor **out) {
  int sd = pd_tensor_device(t);
  if (!t->storage) return pd_set_error(PD_ERR_PRECONDITION_NOT_MET, "[to] the tensor holds no data");
  if (sd == dev && !force_copy && pd_tensor_is_contiguous(t)) {
    pd_tensor_retain(t);
    *out = t;
    return PD_OK;
  }
  if (dev >= 0) PD_TRY(need_gpu(dev));
  pd_tensor *o;
  PD_TRY(pd_tensor_empty_on(dev, t->dtype, t->ndim, t->shape, &o));
  pd_status s = pd_tensor_copy_(o, t);
  if (s != PD_OK) {
    pd_tensor_release(o);
    return s;
  }
  o->stop_gradient = t->stop_gradient;
  *out = o;
  return PD_OK;
}

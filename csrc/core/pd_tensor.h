/* Tensors and storages. A storage is a refcounted byte buffer (from pd_alloc, or external
 * memory with a deleter, e.g. a numpy array or a DLPack capsule). A tensor is a refcounted
 * view: dtype, up to PD_MAX_DIMS dims, strides and offset in ELEMENTS, and one storage.
 * Views share storage, so in-place writes through any view are seen by all of them.
 * Ownership: every function returning a pd_tensor* through an out-parameter hands the caller
 * one reference, released with pd_tensor_release. */
#ifndef PD_TENSOR_H
#define PD_TENSOR_H
#include <stdatomic.h>
#include <stdint.h>
#include "pd_dtype.h"
#include "pd_status.h"

#define PD_MAX_DIMS 9

typedef struct pd_storage {
  atomic_long refcount;
  void *data;
  size_t nbytes;
  void (*deleter)(void *ctx, void *data); /* NULL: data came from pd_alloc */
  void *deleter_ctx;
  uint64_t version; /* bumped by in-place writes (autograd's saved-tensor check) */
  int device;       /* PD_CPU (-1) or a GPU ordinal: csrc/core/pd_device.h */
} pd_storage;

struct pd_autograd_meta;
struct pd_var;

typedef struct pd_tensor {
  atomic_long refcount;
  pd_dtype dtype;
  int ndim;
  int64_t shape[PD_MAX_DIMS];
  int64_t strides[PD_MAX_DIMS]; /* in elements */
  int64_t offset;               /* in elements, into storage */
  int64_t numel;
  pd_storage *storage;          /* NULL for a meta-only tensor (static shape inference) */
  int stop_gradient;            /* Paddle's flag: 1 = no gradient flows into this tensor */
  int is_view;                  /* made by a view op: shares storage with the tensor it views */
  void *pyobj;                  /* borrowed back-pointer to the Python wrapper, or NULL */
  struct pd_autograd_meta *autograd; /* owned by the autograd engine; NULL if none */
  struct pd_var *var;           /* static programs: the variable this meta tensor stands for
                                   (owned reference, csrc/graph/pd_program.h); NULL in eager */
  int layout;                   /* 0: the plain layout its strides say. 8 / 16: oneDNN's blocked
                                   nChw8c / nChw16c of a contiguous float32 [N, C, H, W] (channels
                                   interleaved in blocks; with C not a multiple of the block the
                                   storage holds ceil(C / b) * b channels, the padding lanes zero);
                                   only the inference executor's layout-aware instructions make or
                                   read these (docs/arch/inference.md, "Blocked activations in the
                                   predictor", csrc/kernels/cpu/layout_dnnl.h) */
} pd_tensor;

/* ---- storage ---- */
pd_status pd_storage_new(size_t nbytes, pd_storage **out);
pd_status pd_storage_wrap(void *data, size_t nbytes, void (*deleter)(void *, void *),
                          void *ctx, pd_storage **out);
void pd_storage_retain(pd_storage *s);
void pd_storage_release(pd_storage *s);

/* ---- tensors ---- */
/* A new contiguous tensor with uninitialised data. shape may be NULL when ndim == 0. */
pd_status pd_tensor_empty(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out);
/* A meta tensor (no storage); pd_tensor_alloc gives it contiguous storage later. */
pd_status pd_tensor_meta(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out);
pd_status pd_tensor_alloc(pd_tensor *t);
/* A meta tensor with t's dtype and dims (unknown -1 dims allowed) standing for the same program
 * variable as t (csrc/graph), without t's autograd history. */
pd_status pd_tensor_meta_like_var(const pd_tensor *t, pd_tensor **out);
pd_status pd_tensor_zeros(pd_dtype dtype, int ndim, const int64_t *shape, pd_tensor **out);
/* A view of base's storage with the given geometry (checked against the storage size). */
pd_status pd_tensor_view(pd_tensor *base, int ndim, const int64_t *shape,
                         const int64_t *strides, int64_t offset, pd_tensor **out);
/* A tensor over an existing storage (takes a new reference to it). */
pd_status pd_tensor_from_storage(pd_storage *s, pd_dtype dtype, int ndim, const int64_t *shape,
                                 const int64_t *strides, int64_t offset, pd_tensor **out);
void pd_tensor_retain(pd_tensor *t);
void pd_tensor_release(pd_tensor *t);

int pd_tensor_is_contiguous(const pd_tensor *t);
/* Returns t itself (retained) if contiguous, else a contiguous copy. */
pd_status pd_tensor_contiguous(pd_tensor *t, pd_tensor **out);
/* A contiguous copy, always. */
pd_status pd_tensor_clone(pd_tensor *t, pd_tensor **out);
/* Writes src into dst: src broadcast to dst's shape, cast to dst's dtype; strided both sides. */
pd_status pd_tensor_copy_(pd_tensor *dst, pd_tensor *src);
/* Returns src cast to dtype (src retained if already that dtype). */
pd_status pd_tensor_cast(pd_tensor *src, pd_dtype dtype, pd_tensor **out);
/* Fills every element of t with value (cast to t's dtype). */
pd_status pd_tensor_fill_(pd_tensor *t, double re, double im);
void pd_tensor_bump_version(pd_tensor *t);

static inline void *pd_tensor_data(const pd_tensor *t) {
  return (char *)t->storage->data + t->offset * (int64_t)pd_dtype_size(t->dtype);
}
static inline int64_t pd_shape_numel(int ndim, const int64_t *shape) {
  int64_t n = 1;
  for (int i = 0; i < ndim; i++) n *= shape[i];
  return n;
}
void pd_contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
/* Normalises a possibly negative axis into [0, ndim); error names op. */
pd_status pd_norm_axis(const char *op, int64_t axis, int ndim, int *out);
/* the same check with another error class (gather / index_select: Paddle says OutOfRange) */
pd_status pd_norm_axis_as(pd_status code, const char *op, int64_t axis, int ndim, int *out);
/* numpy broadcast of two shapes. */
pd_status pd_broadcast_shapes(const char *op, int na, const int64_t *a, int nb, const int64_t *b,
                              int *nout, int64_t *out);
/* "[2, 3]" into buf. */
const char *pd_shape_str(int ndim, const int64_t *shape, char *buf, size_t n);

/* Element read/write as double/complex, for slow generic paths (printing, item, casts). */
double pd_load_as_double(const void *p, pd_dtype t);
void pd_load_as_complex(const void *p, pd_dtype t, double *re, double *im);
void pd_store_from_double(void *p, pd_dtype t, double v);
void pd_store_from_complex(void *p, pd_dtype t, double re, double im);
int64_t pd_load_as_int64(const void *p, pd_dtype t);
void pd_store_from_int64(void *p, pd_dtype t, int64_t v);

#endif

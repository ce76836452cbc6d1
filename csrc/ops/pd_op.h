/* The op layer: argument value types, the op definition record the generator emits for each
 * op in the yaml files under ops/, infer_meta and kernel signatures, and the generic runner that eager mode
 * (and later the static executor) call. See docs/arch/core.md, "One op table". */
#ifndef PD_OP_H
#define PD_OP_H
#include <stddef.h>
#include "../core/pd_tensor.h"

/* ---- argument value types (fields of the generated pd_<op>_args structs) ---- */
typedef struct { const int64_t *data; int64_t n; } pd_int_array;   /* int[] */
typedef struct { const double *data; int64_t n; } pd_float_array;  /* float[] */
typedef struct { pd_tensor *const *data; int64_t n; } pd_tensor_list; /* Tensor[] */
typedef enum { PD_SCALAR_BOOL, PD_SCALAR_INT, PD_SCALAR_FLOAT, PD_SCALAR_COMPLEX } pd_scalar_kind;
typedef struct {                                                    /* Scalar */
  pd_scalar_kind kind;
  int64_t i;    /* valid for BOOL and INT */
  double f;     /* always valid (real part) */
  double imag;  /* COMPLEX only */
} pd_scalar;

typedef enum {
  PD_ARG_TENSOR,      /* pd_tensor *            (Tensor)   */
  PD_ARG_TENSOR_OPT,  /* pd_tensor * or NULL    (Tensor?)  */
  PD_ARG_TENSOR_LIST, /* pd_tensor_list         (Tensor[]) */
  PD_ARG_INT,         /* int64_t                (int)      */
  PD_ARG_FLOAT,       /* double                 (float)    */
  PD_ARG_BOOL,        /* int                    (bool)     */
  PD_ARG_STR,         /* const char *           (str)      */
  PD_ARG_INT_ARRAY,   /* pd_int_array           (int[])    */
  PD_ARG_FLOAT_ARRAY, /* pd_float_array         (float[])  */
  PD_ARG_SCALAR,      /* pd_scalar              (Scalar)   */
  PD_ARG_DTYPE,       /* int: pd_dtype or -1    (DataType) */
} pd_arg_kind;

typedef struct {
  const char *name;
  pd_arg_kind kind;
  size_t offset;        /* offset of the field in the op's args struct */
  const char *deflt;    /* default as written in the yaml, or NULL */
} pd_arg_def;

/* Output metadata from infer_meta. ndim < 0 or a dim < 0: not known before running. */
typedef struct {
  pd_dtype dtype;
  int ndim;
  int64_t shape[PD_MAX_DIMS];
} pd_meta;

typedef struct {
  int n;
  pd_meta *m;        /* points at inline_m or at heap memory */
  pd_meta inline_m[4];
} pd_meta_list;
/* Sets the number of outputs (allocating when > 4); returns NULL on out-of-memory. */
pd_meta *pd_meta_list_resize(pd_meta_list *l, int n);
void pd_meta_list_free(pd_meta_list *l);

typedef pd_status (*pd_infer_fn)(const void *args, pd_meta_list *out);
/* A kernel writes outputs out[0..n_out). Outputs the runner allocated are non-NULL; for view
 * ops and outputs with unknown shape, out[i] is NULL and the kernel creates it. */
typedef pd_status (*pd_kernel_fn)(const void *args, pd_tensor **out, int n_out);

#define PD_OP_VIEW 1u         /* outputs alias an input's storage */
#define PD_OP_NONDIFF 2u      /* no backward rule (integer/bool results, sampling ...) */
#define PD_OP_INPLACE 4u      /* writes into its first tensor argument */
#define PD_OP_RANDOM 8u       /* consumes the global generator */
#define PD_OP_NOAMP 16u       /* auto_cast never casts its inputs (writes into them, e.g. unscaling) */
#define PD_OP_PROMOTE 32u     /* (x, y) of different float/complex dtypes are cast to the promoted one */
#define PD_OP_TRUEDIV 64u     /* integer/bool (x, y) are cast to float32 (true division) */

typedef struct pd_op_def {
  const char *name;
  int n_args;
  const pd_arg_def *args;
  int n_outputs;            /* -1: a Tensor[] output, count from infer_meta */
  const char *const *output_names;
  size_t args_size;
  pd_infer_fn infer_meta;
  int dtype_arg;            /* index of the arg whose dtype selects the kernel; -1: output 0's */
  pd_kernel_fn kernels[PD_NUM_DTYPES]; /* NULL where the dtype is not supported */
  unsigned flags;
  const char *backward;     /* name of the backward op (grad rule), or NULL */
  void (*defaults)(void *args); /* fills every defaulted field of an args struct */
} pd_op_def;

extern const pd_op_def pd_op_defs[];
extern const int pd_num_ops;
/* -1 if not found. */
int pd_op_lookup(const char *name);

/* ---- GPU kernels (csrc/kernels/gpu/, registered when libpaddle_c_cuda.so loads) ----
 * The runner sends an op to the GPU when one of its tensor inputs lives on a GPU (or, for ops
 * without tensor inputs, when the current device is a GPU) and then runs only a kernel
 * registered here: an op or dtype without a GPU kernel raises NotImplementedError, never runs
 * its CPU kernel on device memory. Exceptions: view ops (flags: view) run their CPU kernel,
 * which only makes a view of the same storage. A GPU kernel gets args whose tensors all live
 * on that GPU and outputs the runner allocated there (pd_device_current() is that GPU while
 * the kernel runs, so pd_tensor_empty inside it allocates there too). */
void pd_gpu_register(const char *op, pd_dtype dtype, pd_kernel_fn fn);
/* Registers fn for every dtype whose bit (1u << dtype) is set in mask. */
void pd_gpu_register_mask(const char *op, unsigned mask, pd_kernel_fn fn);
pd_kernel_fn pd_gpu_kernel(int op, pd_dtype dtype);
#define PD_DT_BIT(t) (1u << (t))
#define PD_DT_FLOATS (PD_DT_BIT(PD_FLOAT16) | PD_DT_BIT(PD_BFLOAT16) | PD_DT_BIT(PD_FLOAT32) | PD_DT_BIT(PD_FLOAT64))
#define PD_DT_INTS (PD_DT_BIT(PD_UINT8) | PD_DT_BIT(PD_INT8) | PD_DT_BIT(PD_INT16) | PD_DT_BIT(PD_INT32) | PD_DT_BIT(PD_INT64))
#define PD_DT_REALS (PD_DT_FLOATS | PD_DT_INTS)
/* Each family file in csrc/kernels/gpu/ defines one of these; pd_cuda_load calls them all. */
void pd_gpu_register_elementwise(void);
void pd_gpu_register_nn(void);
void pd_gpu_register_misc(void);
void pd_gpu_register_dnn(void);

/* Paddle's tensor-tensor type promotion ("Introduction to Data Type Promotion"): among
 * bfloat16/float16/float32/float64 the larger type (bfloat16 with float16 -> float32); complex
 * with any real type -> complex wide enough for both (complex64 with float64 -> complex128).
 * With truediv, two integer/bool inputs give float32. Returns 1 and sets *out when the pair
 * promotes, 0 when it does not (equal dtypes, or integer/bool mixed with another category:
 * the op's own dtype check decides). The runner applies it to ops flagged promote/truediv;
 * the Python operators ask it (_C._promote_types) which pairs to leave to the runner. */
int pd_promote_types(pd_dtype a, pd_dtype b, int truediv, pd_dtype *out);

/* Runs op `op` on a filled args struct. On success *outs (malloc'd, caller frees the array and
 * releases each tensor) holds *n_out tensors. For ops with a fixed output count <= 4 the caller
 * may pass a buffer in *outs with capacity 4 (set *n_out = -4) to avoid the malloc. */
pd_status pd_op_run(int op, const void *args, pd_tensor ***outs, int *n_out);

/* Static programs (csrc/graph): while a thread has a tracer, pd_op_run hands every op to it
 * instead of running a kernel (the program recorder appends an op desc, the executor's compiler
 * captures an instruction, append_backward replays a program into autograd nodes). The tracer
 * returns outputs as pd_op_run would (meta tensors bound to program variables). */
typedef pd_status (*pd_trace_fn)(void *ctx, int op, const void *args, pd_tensor ***outs, int *n_out);
typedef struct { pd_trace_fn fn; void *ctx; } pd_tracer;
/* Installs t on this thread and returns the previous tracer ({NULL, NULL}: run kernels). */
pd_tracer pd_trace_swap(pd_tracer t);
pd_tracer pd_trace_current(void);
/* Non-zero while csrc/graph's shape inference runs infer_meta with placeholder sizes for a
 * program's unknown dims: an unknown dim that stands for a product of others (layer_norm's
 * flattened mean over [-1, T, D] inputs) gets the same placeholder, so checks that relate the
 * element counts of different inputs (not the outputs' shapes) must be skipped then. */
int pd_trace_placeholders_active(void);
/* Runs the kernel path only: no tracer, no auto_cast, no autograd record (the executor). */
pd_status pd_op_exec(int op, const void *args, pd_tensor ***outs, int *n_out);
/* pd_op_exec writing output i into pre[i] when pre[i] is non-NULL and has exactly the output's
 * dtype and shape (contiguous, offset 0); other outputs are allocated as usual. */
pd_status pd_op_exec_into(int op, const void *args, pd_tensor *const *pre, int n_pre, pd_tensor ***outs,
                          int *n_out);

/* Autograd hook: called after a differentiable op ran in eager mode (set by csrc/autograd). */
typedef pd_status (*pd_autograd_record_fn)(int op, const void *args, pd_tensor **outs, int n_out);
extern pd_autograd_record_fn pd_autograd_record;

/* ---- the API level (FLAGS_set_to_1d, issue 23) ----
 * 1 (the default): Paddle 2.3 shapes, a result left with no dims (a full reduction, a scalar
 * index, squeezing every dim, a reduced loss) has shape [1]; 0: Paddle 2.6 semantics, it is 0-D.
 * Set from Python by paddle.set_flags({'FLAGS_set_to_1d': ...}) through _C.set_api_level. */
extern int pd_set_to_1d;
/* > 0 while this thread's ops must keep 0-D results whatever the level (autograd giving a 0-D
 * input its 0-D gradient). */
extern _Thread_local int pd_scalar_keep_0d;
/* The one rule: every infer_meta (and kernel) that removes dims calls it on its result shape. */
static inline void pd_scalar_dims(int *ndim, int64_t *shape) {
  if (*ndim == 0 && pd_set_to_1d && !pd_scalar_keep_0d) {
    *ndim = 1;
    shape[0] = 1;
  }
}
static inline void pd_scalar_meta(pd_meta *m) { pd_scalar_dims(&m->ndim, m->shape); }

/* ---- helpers for infer_meta and kernels ---- */
static inline void pd_meta_set(pd_meta *m, pd_dtype dt, int ndim, const int64_t *shape) {
  m->dtype = dt;
  m->ndim = ndim;
  for (int i = 0; i < ndim; i++) m->shape[i] = shape[i];
}
static inline void pd_meta_like(pd_meta *m, const pd_tensor *t) { pd_meta_set(m, t->dtype, t->ndim, t->shape); }
/* Error "[op] expected x to have dtype ..., received ..." when a and b differ. */
pd_status pd_check_same_dtype(const char *op, const char *na, const pd_tensor *a, const char *nb,
                              const pd_tensor *b);
pd_status pd_check_not_null(const char *op, const char *name, const pd_tensor *t);
/* Scalar helpers */
static inline pd_scalar pd_scalar_float(double v) { pd_scalar s = {PD_SCALAR_FLOAT, (int64_t)v, v, 0}; return s; }
static inline pd_scalar pd_scalar_int(int64_t v) { pd_scalar s = {PD_SCALAR_INT, v, (double)v, 0}; return s; }

#endif

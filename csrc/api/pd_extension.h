/* Paddle-C custom operators: the C interface a user's operator library implements.
 *
 * A library describes its operators in a table of PD_CustomOp and exports the table with
 * PD_CUSTOM_OP_LIBRARY(table). The library needs no Paddle-C symbol at link time: it is built
 * with `cc -shared -fPIC -I$(python -c 'import paddle; print(paddle.sysconfig.get_include())')`
 * (paddle.utils.cpp_extension.load / setup do this) and is found
 *   - from Python by paddle.utils.cpp_extension.load(name, sources) (or load_op_library(path)),
 *     which registers the operators and returns a module with one function per operator; they
 *     run eagerly with autograd, record into static programs, and survive paddle.jit.save;
 *   - from a C program serving a model through the inference API (pd_inference_api.h) either by
 *     linking the library (its PD_CustomOpLibrary is found when the model names an operator the
 *     program does not know; link it with -Wl,--no-as-needed, since the program calls nothing
 *     in it) or by PD_LoadCustomOpLibrary(path) before creating the predictor.
 *
 * In a program (.pdmodel) an operator appears as Paddle writes custom operators: its type is the
 * operator's name, its input and output slots the names given here, its attributes by name; the
 * gradient operator is "<name>_grad" with the forward inputs, outputs and "<out>@GRAD" slots.
 *
 * Kernels see contiguous row-major tensors and write their outputs, which the framework allocated
 * from the shapes the infer function gave. Return 0 on success; on failure, write a message into
 * ctx->error (ctx->error_cap bytes) and return non-zero: the caller gets an error (ValueError in
 * Python, PD_ERROR_INVALID_ARGUMENT in the C API) naming the operator and that message. */
#ifndef PD_EXTENSION_H
#define PD_EXTENSION_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PD_EXT_MAX_DIMS 9
#define PD_EXT_ABI_VERSION 1

/* the element types (the same codes as Paddle-C's pd_dtype) */
typedef enum {
  PD_EXT_BOOL = 0,
  PD_EXT_UINT8 = 1,
  PD_EXT_INT8 = 2,
  PD_EXT_INT16 = 3,
  PD_EXT_INT32 = 4,
  PD_EXT_INT64 = 5,
  PD_EXT_FLOAT16 = 6,  /* raw IEEE binary16 bits (uint16_t) */
  PD_EXT_BFLOAT16 = 7, /* raw bfloat16 bits (uint16_t) */
  PD_EXT_FLOAT32 = 8,
  PD_EXT_FLOAT64 = 9,
  PD_EXT_COMPLEX64 = 10,
  PD_EXT_COMPLEX128 = 11
} PD_ExtDataType;

typedef struct PD_ExtTensor {
  void *data;      /* contiguous, row-major; NULL in infer functions */
  int dtype;       /* PD_ExtDataType */
  int ndim;
  int64_t shape[PD_EXT_MAX_DIMS]; /* in infer functions a dim may be -1: unknown until run */
  int64_t numel;   /* product of shape (-1 when a dim is unknown) */
} PD_ExtTensor;

typedef struct PD_ExtContext {
  const PD_ExtTensor *ins; /* forward: the inputs; backward: inputs, then outputs, then the
                              outputs' gradients (zeros where an output got none) */
  int n_ins;
  PD_ExtTensor *outs;      /* forward: the outputs; backward: the inputs' gradients */
  int n_outs;
  const double *attrs;     /* attribute values in the order of PD_CustomOp.attrs */
  int n_attrs;
  char *error;             /* message buffer for failures */
  size_t error_cap;
  int num_threads;         /* threads the framework would use (the op may use fewer) */
} PD_ExtContext;

/* Kernels return 0 on success. An infer function fills outs[k].dtype / ndim / shape (data is
 * NULL); when it is NULL, every output takes input 0's dtype and shape. */
typedef int (*PD_ExtFn)(PD_ExtContext *ctx);

typedef struct PD_CustomOp {
  const char *name;                 /* operator type, e.g. "custom_relu" */
  int n_inputs;
  const char *const *inputs;        /* slot names, e.g. {"X"} (at least one input) */
  int n_outputs;
  const char *const *outputs;       /* slot names, e.g. {"Out"} */
  int n_attrs;
  const char *const *attrs;         /* "name: type" with type int, int64, float, bool (numbers) */
  PD_ExtFn infer;                   /* output dtypes and shapes, or NULL */
  PD_ExtFn forward;
  PD_ExtFn backward;                /* the inputs' gradients, or NULL (no gradient flows) */
} PD_CustomOp;

/* What PD_CUSTOM_OP_LIBRARY exports: the table, its length and the ABI version. */
typedef struct PD_CustomOpTable {
  int abi_version;
  int n_ops;
  const PD_CustomOp *ops;
} PD_CustomOpTable;

#define PD_CUSTOM_OP_LIBRARY(table)                                                         \
  __attribute__((visibility("default"))) const PD_CustomOpTable *PD_CustomOpLibrary(void) { \
    static const PD_CustomOpTable t = {PD_EXT_ABI_VERSION, (int)(sizeof(table) / sizeof((table)[0])), (table)}; \
    return &t;                                                                              \
  }

#ifdef __cplusplus
}
#endif
#endif

/* N-operand strided iteration with numpy broadcasting. Operand 0 is the output and fixes the
 * iteration shape; inputs broadcast to it (stride 0 on broadcast dims). Dims are coalesced, and
 * the work runs as calls of an inner-loop function over 1-D runs, split across the OpenMP pool
 * when the tensor is large. Inner loops get byte strides. */
#ifndef PD_ITER_H
#define PD_ITER_H
#include "pd_tensor.h"

#define PD_ITER_MAX_OPS 4
/* Elements below which an elementwise loop stays on one thread. */
#define PD_PARALLEL_GRAIN 32768

typedef void (*pd_loop_fn)(char **data, const int64_t *strides, int64_t n, void *ctx);

typedef struct {
  int nops;
  int ndim;                                  /* after coalescing (>= 1) */
  int64_t shape[PD_MAX_DIMS];                /* innermost last */
  int64_t strides[PD_ITER_MAX_OPS][PD_MAX_DIMS]; /* bytes */
  char *data[PD_ITER_MAX_OPS];
  int64_t numel;
} pd_iter;

/* ops[0] is the output (already allocated, shape = iteration shape); others must broadcast
 * to it. op names the caller in error messages. */
pd_status pd_iter_init(pd_iter *it, const char *op, int nops, pd_tensor **ops);
/* Runs fn over every element; parallel when numel >= grain (grain <= 0: default). */
void pd_iter_run(const pd_iter *it, pd_loop_fn fn, void *ctx, int64_t grain);
/* Runs fn over the linear element range [begin, end) (row-major over the iteration shape). */
void pd_iter_run_range(const pd_iter *it, int64_t begin, int64_t end, pd_loop_fn fn, void *ctx);
/* True when every operand is contiguous with no broadcast (strides == itemsize). */
int pd_iter_is_contiguous(const pd_iter *it, const size_t *itemsizes);

/* OpenMP helpers: the number of threads of the one pool. */
int pd_num_threads(void);
void pd_set_num_threads(int n);

#endif

/* The runner's GPU routing (gpu_dispatch.c). */
#ifndef PD_GPU_DISPATCH_H
#define PD_GPU_DISPATCH_H
#include "pd_op.h"

typedef struct {
  int dev;          /* the device the op runs on: PD_CPU or a GPU ordinal */
  int any_tensor;   /* the op has at least one tensor input */
  char *args;       /* non-NULL: a copy of the args with CPU inputs moved to dev */
  pd_tensor **hold; /* the moved inputs (released by pd_gpu_route_free) */
  int n_hold;
  void **lists;     /* replaced Tensor[] arrays */
  int n_lists;
} pd_gpu_route;

/* Only called once the CUDA backend is loaded (before that every tensor is on the CPU). */
pd_status pd_gpu_route_args(const pd_op_def *d, const void *args, pd_gpu_route *r);
void pd_gpu_route_free(pd_gpu_route *r);

/* Paddle's kernel fallback (FLAGS_enable_api_kernel_fallback): an op with GPU inputs but no GPU
 * kernel for the dtype runs its CPU kernel on host copies of its inputs; the outputs are copied
 * to the GPU, and an in-place op's tensor inputs are copied back (it may write any of them).
 * *outs / *n_out as pd_op_run's (a malloc'd array). On by default; pd_gpu_fallback_enabled = 0
 * (PADDLE_C_GPU_FALLBACK=0, _C.set_gpu_fallback(False)) makes such an op raise
 * NotImplementedError instead. Each fallback is counted per op (pd_gpu_fallback_count). */
extern int pd_gpu_fallback_enabled;
pd_status pd_gpu_fallback(int op, const void *args, int dev, pd_tensor ***outs, int *n_out);
long pd_gpu_fallback_count(int op);

#endif

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

#endif

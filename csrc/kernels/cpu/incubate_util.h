/* Shared by the paddle.incubate kernels (incubate.c, incubate_graph.c). */
#ifndef PD_INCUBATE_UTIL_H
#define PD_INCUBATE_UTIL_H
#include "../../core/pd_tensor.h"
/* An int32/int64 index tensor as a malloc'd int64 array of its numel elements. */
pd_status pd_incubate_load_idx(const pd_tensor *t, int64_t **out);
#endif

/* The 'elementwise' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions). */
#ifndef PD_CUDA_ELEMENTWISE_H
#define PD_CUDA_ELEMENTWISE_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct pd_cuda_elementwise {
  /* dst = src cast to dst's dtype, src already broadcast to dst's shape (strides) */
  int (*copy)(const pd_cuda_tensor *dst, const pd_cuda_tensor *src);
  int (*fill)(const pd_cuda_tensor *dst, double value);
} pd_cuda_elementwise;

#ifdef __cplusplus
}
#endif
#endif

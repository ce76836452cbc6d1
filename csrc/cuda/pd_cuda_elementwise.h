/* The 'elementwise' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions). */
#ifndef PD_CUDA_ELEMENTWISE_H
#define PD_CUDA_ELEMENTWISE_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct pd_cuda_elementwise {
  int reserved; /* launchers are added here */
} pd_cuda_elementwise;

#ifdef __cplusplus
}
#endif
#endif

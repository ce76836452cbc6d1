/* The 'nn' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions). */
#ifndef PD_CUDA_NN_H
#define PD_CUDA_NN_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct pd_cuda_nn {
  int reserved; /* launchers are added here */
} pd_cuda_nn;

#ifdef __cplusplus
}
#endif
#endif

/* The 'misc' family of libpaddle_c_cuda.so (see pd_cuda_api.h for the conventions). */
#ifndef PD_CUDA_MISC_H
#define PD_CUDA_MISC_H
#include "pd_cuda_api.h"
#ifdef __cplusplus
extern "C" {
#endif

typedef struct pd_cuda_misc {
  int reserved; /* launchers are added here */
} pd_cuda_misc;

#ifdef __cplusplus
}
#endif
#endif

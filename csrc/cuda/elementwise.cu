// The 'elementwise' family (pd_cuda_elementwise.h). Placeholder until its kernels land.
#include "pd_cuda_elementwise.h"
extern "C" const pd_cuda_elementwise pd_cuda_ew_table = {0};

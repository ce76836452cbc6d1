// The 'nn' family (pd_cuda_nn.h). Placeholder until its kernels land.
#include "pd_cuda_nn.h"
extern "C" const pd_cuda_nn pd_cuda_nn_table = {0};

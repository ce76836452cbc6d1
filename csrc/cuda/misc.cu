// The 'misc' family (pd_cuda_misc.h). Placeholder until its kernels land.
#include "pd_cuda_misc.h"
extern "C" const pd_cuda_misc pd_cuda_misc_table = {0};

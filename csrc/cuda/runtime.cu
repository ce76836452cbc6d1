// The runtime family (pd_cuda_api.h's pd_cuda_runtime). Placeholder until it lands.
#include "pd_cuda_api.h"
extern "C" const pd_cuda_runtime pd_cuda_rt_table = {};

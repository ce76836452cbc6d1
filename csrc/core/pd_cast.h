/* Per (src, dst) dtype inner loops for pd_iter: data[0] is dst, data[1] is src. Conversions
 * follow C's rules (float -> int truncates, complex -> real keeps the real part, nonzero ->
 * true), with correctly rounded float16/bfloat16. */
#ifndef PD_CAST_H
#define PD_CAST_H
#include "pd_iter.h"
pd_loop_fn pd_cast_loop(pd_dtype src, pd_dtype dst);
#endif

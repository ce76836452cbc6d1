/* The eager kernel of print (ops/callback.yaml): the input passed through. In a program the
 * executor runs print as a special that formats the value in Python (csrc/graph/
 * pd_exec_callback.c); eagerly paddle.static.Print is refused as in Paddle, so this only serves
 * the op table (sweep, replay). */
#include "pd_kernel_util.h"

static pd_status print_impl(const void *args, pd_tensor **out, int n_out) {
  (void)n_out;
  const pd_print_args *a = (const pd_print_args *)args;
  return pd_tensor_copy_(out[0], a->x);
}

#define PRINT_K(SUF, T, CT) \
  pd_status pd_kernel_print_##SUF(const void *a, pd_tensor **o, int n) { return print_impl(a, o, n); }
PD_FOR_ALL(PRINT_K)

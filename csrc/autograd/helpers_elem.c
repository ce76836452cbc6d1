/* Helpers for the elementwise backward rules. Each runs forward ops through pd_op_run, so the
 * rules that use them stay differentiable under create_graph. */
#include "helpers_elem.h"
#include "../ops/generated/pd_ops_gen.h"

pd_status pd_bw_sgn(pd_tensor *x, pd_tensor **out) {
  if (!pd_dtype_is_complex(x->dtype)) {
    pd_sign_args a = {x};
    return pd_bw_run1(PD_OP_SIGN, &a, out);
  }
  /* x / (|x| + (|x| == 0)): x / |x| away from 0, and 0 / 1 = 0 at 0 */
  pd_tensor *mag = NULL, *zero = NULL, *isz = NULL, *iszf = NULL, *den = NULL, *denc = NULL;
  pd_status st;
  pd_abs_args aa = {x};
  if ((st = pd_bw_run1(PD_OP_ABS, &aa, &mag)) != PD_OK) goto done;
  if ((st = pd_bw_scalar(0.0, mag, &zero)) != PD_OK) goto done;
  {
    pd_equal_args e = {mag, zero};
    if ((st = pd_bw_run1(PD_OP_EQUAL, &e, &isz)) != PD_OK) goto done;
  }
  {
    pd_cast_args c = {isz, (int)mag->dtype};
    if ((st = pd_bw_run1(PD_OP_CAST, &c, &iszf)) != PD_OK) goto done;
  }
  {
    pd_add_args ad = {mag, iszf};
    if ((st = pd_bw_run1(PD_OP_ADD, &ad, &den)) != PD_OK) goto done;
  }
  {
    pd_cast_args c = {den, (int)x->dtype};
    if ((st = pd_bw_run1(PD_OP_CAST, &c, &denc)) != PD_OK) goto done;
  }
  {
    pd_divide_args d = {x, denc};
    st = pd_bw_run1(PD_OP_DIVIDE, &d, out);
  }
done:
  pd_tensor_release(mag);
  pd_tensor_release(zero);
  pd_tensor_release(isz);
  pd_tensor_release(iszf);
  pd_tensor_release(den);
  pd_tensor_release(denc);
  return st;
}

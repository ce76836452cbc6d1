/* Ops the executor handles itself rather than through a converter: control flow over
 * sub-blocks, tensor arrays, and ops that call back into Python. Each has a compile function
 * that emits special instructions into the plan (pd_exec_internal.h). */
#include <string.h>
#include "pd_control_flow.h"
#include "pd_exec_callback.h"

typedef struct {
  const char *type;
  pd_special_compile_fn fn;
} special;

static const special k_specials[] = {
  /* control flow and tensor arrays: pd_control_flow.c, pd_control_flow_while.c */
  {"conditional_block", pd_cf_compile_conditional_block},
  {"conditional_block_grad", pd_cf_compile_conditional_block_grad},
  {"select_input", pd_cf_compile_select_input},
  {"select_output", pd_cf_compile_select_output},
  {"while", pd_cf_compile_while},
  {"while_grad", pd_cf_compile_while_grad},
  {"increment", pd_cf_compile_increment},
  {"write_to_array", pd_cf_compile_write_to_array},
  {"read_from_array", pd_cf_compile_read_from_array},
  {"lod_array_length", pd_cf_compile_array_length},
  PD_EXEC_CALLBACK_SPECIALS /* print, py_func: pd_exec_callback.c */
  {NULL, NULL},
};

pd_special_compile_fn pd_exec_special_for(const char *type) {
  for (const special *s = k_specials; s->type; s++)
    if (strcmp(s->type, type) == 0) return s->fn;
  return NULL;
}

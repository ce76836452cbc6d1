/* Ops the executor handles itself rather than through a converter: control flow over
 * sub-blocks, tensor arrays, and ops that call back into Python. Each has a compile function
 * that emits special instructions into the plan (pd_exec_internal.h). */
#include <string.h>
#include "pd_exec_internal.h"
#include "pd_exec_callback.h"

typedef struct {
  const char *type;
  pd_special_compile_fn fn;
} special;

static const special k_specials[] = {
  PD_EXEC_CALLBACK_SPECIALS /* print, py_func: pd_exec_callback.c */
  {NULL, NULL},
};

pd_special_compile_fn pd_exec_special_for(const char *type) {
  for (const special *s = k_specials; s->type; s++)
    if (strcmp(s->type, type) == 0) return s->fn;
  return NULL;
}

/* The executor's ops that call back into Python: print and py_func (pd_exec_callback.c). Their
 * compile functions join the special table through PD_EXEC_CALLBACK_SPECIALS (pd_exec_special.c). */
#ifndef PD_EXEC_CALLBACK_H
#define PD_EXEC_CALLBACK_H
#include "pd_exec_internal.h"

pd_status pd_exec_compile_print(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
pd_status pd_exec_compile_py_func(pd_plan *p, int list, const pd_block *b, const pd_opdesc *op);
#define PD_EXEC_CALLBACK_SPECIALS {"print", pd_exec_compile_print}, {"py_func", pd_exec_compile_py_func},

#endif

/* Paddle-style unique names (pd_program_text.c): the thread-local, stacked per-key counters
 * behind paddle.utils.unique_name and the static recorder's variable names. */
#ifndef PD_NAMES_H
#define PD_NAMES_H
#include <stddef.h>
#include <stdint.h>
#include "../core/pd_status.h"

/* key_N into buf (N counts per key from 0 in the current table). */
pd_status pd_unique_name(const char *key, char *buf, size_t n);
/* guard(): a fresh table on top of the stack; pop returns to the previous one. */
pd_status pd_unique_name_push(void);
void pd_unique_name_pop(void);
/* switch(): read, clear and fill the current table. */
int pd_unique_name_count(void);
const char *pd_unique_name_entry(int i, int64_t *count);
void pd_unique_name_reset(void);
pd_status pd_unique_name_set(const char *key, int64_t count);

#endif

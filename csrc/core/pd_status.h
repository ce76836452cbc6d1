/* Status codes and the thread-local last-error slot.
 * Fallible C functions return pd_status; the message (op name in brackets, what was
 * expected, what was received) is stored with pd_set_error and read with pd_last_error. */
#ifndef PD_STATUS_H
#define PD_STATUS_H

typedef enum {
  PD_OK = 0,
  PD_ERR_INVALID_ARGUMENT,   /* -> ValueError */
  PD_ERR_NOT_FOUND,          /* -> RuntimeError */
  PD_ERR_OUT_OF_RANGE,       /* -> IndexError */
  PD_ERR_ALREADY_EXISTS,     /* -> RuntimeError */
  PD_ERR_RESOURCE_EXHAUSTED, /* -> MemoryError */
  PD_ERR_PRECONDITION_NOT_MET, /* -> RuntimeError */
  PD_ERR_PERMISSION_DENIED,  /* -> RuntimeError */
  PD_ERR_EXECUTION_TIMEOUT,  /* -> RuntimeError */
  PD_ERR_UNIMPLEMENTED,      /* -> NotImplementedError */
  PD_ERR_UNAVAILABLE,        /* -> RuntimeError */
  PD_ERR_FATAL,              /* -> SystemError */
  PD_ERR_EXTERNAL,           /* -> OSError */
  PD_ERR_TYPE,               /* -> TypeError */
  PD_NUM_STATUS
} pd_status;

/* Records a formatted message for the calling thread and returns code. */
pd_status pd_set_error(pd_status code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The calling thread's last message ("" if none). Valid until the next pd_set_error. */
const char *pd_last_error(void);
pd_status pd_last_status(void);
void pd_clear_error(void);
const char *pd_status_name(pd_status s);

#define PD_TRY(expr)              \
  do {                            \
    pd_status _pd_s = (expr);     \
    if (_pd_s != PD_OK) return _pd_s; \
  } while (0)

#endif

/* Thread-local last-error slot for pd_status codes. */
#include "pd_status.h"
#include <stdarg.h>
#include <stdio.h>

static _Thread_local char tl_msg[2048];
static _Thread_local pd_status tl_code;

pd_status pd_set_error(pd_status code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tl_msg, sizeof tl_msg, fmt, ap);
  va_end(ap);
  tl_code = code;
  return code;
}

const char *pd_last_error(void) { return tl_msg; }
pd_status pd_last_status(void) { return tl_code; }
void pd_clear_error(void) { tl_msg[0] = 0; tl_code = PD_OK; }

const char *pd_status_name(pd_status s) {
  static const char *names[PD_NUM_STATUS] = {
      "OK", "InvalidArgument", "NotFound", "OutOfRange", "AlreadyExists",
      "ResourceExhausted", "PreconditionNotMet", "PermissionDenied",
      "ExecutionTimeout", "Unimplemented", "Unavailable", "Fatal", "External",
      "TypeError"};
  return (s >= 0 && s < PD_NUM_STATUS) ? names[s] : "Unknown";
}

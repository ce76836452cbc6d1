/* A minimal C test harness: CHECK records failures with file:line, RUN runs a test function,
 * PD_TEST_MAIN prints "N passed, N failed" (the line CI reads) and sets the exit code. */
#ifndef PD_TEST_H
#define PD_TEST_H
#include <stdio.h>

static int pd_t_failed_checks = 0, pd_t_passed = 0, pd_t_failed = 0;

#define CHECK(cond)                                                               \
  do {                                                                            \
    if (!(cond)) {                                                                \
      fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
      pd_t_failed_checks++;                                                       \
    }                                                                             \
  } while (0)

#define RUN(fn)                                         \
  do {                                                  \
    int before = pd_t_failed_checks;                    \
    fn();                                               \
    if (pd_t_failed_checks == before) {                 \
      pd_t_passed++;                                    \
      printf("  %-40s ok\n", #fn);                      \
    } else {                                            \
      pd_t_failed++;                                    \
      printf("  %-40s FAILED\n", #fn);                  \
    }                                                   \
  } while (0)

#define PD_TEST_RESULT()                                         \
  (printf("%d passed, %d failed\n", pd_t_passed, pd_t_failed), pd_t_failed ? 1 : 0)

#endif

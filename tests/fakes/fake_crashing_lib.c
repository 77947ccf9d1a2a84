/* A library that crashes as soon as it is loaded (its constructor raises SIGSEGV): the probe
 * must survive asking it for its version. */
#include <signal.h>
#include <stddef.h>
__attribute__((constructor)) static void crash_on_load(void) { raise(SIGSEGV); }
size_t cudnnGetVersion(void) { return 8907; }

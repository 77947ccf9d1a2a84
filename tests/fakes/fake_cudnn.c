/* A fake cuDNN shim: cudnnGetVersion() returns the CUDNN_VERSION given at compile time
 * (-DFAKE_CUDNN_VERSION=8907 for 8.9.7, 90300 for 9.3.0, as cudnn_version.h encodes them). */
#include <stddef.h>
size_t cudnnGetVersion(void) { return FAKE_CUDNN_VERSION; }

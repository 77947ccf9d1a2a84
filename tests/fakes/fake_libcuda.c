/* A fake libcuda.so.1 for tests: the driver API calls the probe makes, answering from
 * environment variables.
 *   FAKE_CUDA_VERSION   cuDriverGetVersion result, e.g. 12020
 *   FAKE_CUINIT         a CUresult number, or "hang" (sleeps forever) or "crash" (SIGSEGV)
 *   FAKE_CUDA_GPUS      ';'-separated "name|major.minor|memory_mib" entries
 */
#include <signal.h>
#include <unistd.h>

#include "fake_gpu_table.h"

int cuDriverGetVersion(int *version) { *version = atoi(env_or("FAKE_CUDA_VERSION", "12020")); return 0; }
int cuInit(unsigned int flags) {
    (void)flags;
    const char *mode = env_or("FAKE_CUINIT", "0");
    if (strcmp(mode, "hang") == 0) for (;;) sleep(60);
    if (strcmp(mode, "crash") == 0) raise(SIGSEGV);
    return atoi(mode);
}
int cuDeviceGetCount(int *count) {
    *count = (int)gpu_count("FAKE_CUDA_GPUS");
    return 0;
}
int cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
int cuDeviceGetName(char *name, int length, int device) {
    return gpu_field("FAKE_CUDA_GPUS", device, 0, name, (size_t)length) ? 0 : 101;
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    char cc[32];
    int major = 0, minor = 0;
    if (!gpu_field("FAKE_CUDA_GPUS", device, 1, cc, sizeof cc) || sscanf(cc, "%d.%d", &major, &minor) != 2) return 101;
    if (attribute == 75) { *value = major; return 0; }
    if (attribute == 76) { *value = minor; return 0; }
    return 1;
}
int cuDeviceTotalMem_v2(size_t *bytes, int device) {
    char mib[32];
    if (!gpu_field("FAKE_CUDA_GPUS", device, 2, mib, sizeof mib)) return 101;
    *bytes = (size_t)strtoull(mib, NULL, 10) * 1024u * 1024u;
    return 0;
}

/* A fake libcuda.so.1 for tests: the driver API calls the probe makes, answering from
 * environment variables.
 *   FAKE_CUDA_VERSION   cuDriverGetVersion result, e.g. 12020
 *   FAKE_CUINIT         a CUresult number, or "hang" (sleeps forever) or "crash" (SIGSEGV)
 *   FAKE_CUDA_GPUS      ';'-separated "name|major.minor|memory_mib" entries
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *env_or(const char *key, const char *fallback) {
    const char *value = getenv(key);
    return value ? value : fallback;
}

static int gpu_field(int index, int field, char *out, size_t size) {
    char buffer[4096];
    strncpy(buffer, env_or("FAKE_CUDA_GPUS", ""), sizeof buffer - 1);
    buffer[sizeof buffer - 1] = 0;
    char *save_gpu = NULL;
    char *gpu = strtok_r(buffer, ";", &save_gpu);
    for (int i = 0; gpu && i < index; i++) gpu = strtok_r(NULL, ";", &save_gpu);
    if (!gpu) return 0;
    char *save_field = NULL;
    char *part = strtok_r(gpu, "|", &save_field);
    for (int i = 0; part && i < field; i++) part = strtok_r(NULL, "|", &save_field);
    if (!part) return 0;
    snprintf(out, size, "%s", part);
    return 1;
}

int cuDriverGetVersion(int *version) { *version = atoi(env_or("FAKE_CUDA_VERSION", "12020")); return 0; }
int cuInit(unsigned int flags) {
    (void)flags;
    const char *mode = env_or("FAKE_CUINIT", "0");
    if (strcmp(mode, "hang") == 0) for (;;) sleep(60);
    if (strcmp(mode, "crash") == 0) raise(SIGSEGV);
    return atoi(mode);
}
int cuDeviceGetCount(int *count) {
    const char *gpus = env_or("FAKE_CUDA_GPUS", "");
    int n = 0;
    if (*gpus) { n = 1; for (const char *c = gpus; *c; c++) if (*c == ';') n++; }
    *count = n;
    return 0;
}
int cuDeviceGet(int *device, int ordinal) { *device = ordinal; return 0; }
int cuDeviceGetName(char *name, int length, int device) {
    return gpu_field(device, 0, name, (size_t)length) ? 0 : 101;
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    char cc[32];
    int major = 0, minor = 0;
    if (!gpu_field(device, 1, cc, sizeof cc) || sscanf(cc, "%d.%d", &major, &minor) != 2) return 101;
    if (attribute == 75) { *value = major; return 0; }
    if (attribute == 76) { *value = minor; return 0; }
    return 1;
}
int cuDeviceTotalMem_v2(size_t *bytes, int device) {
    char mib[32];
    if (!gpu_field(device, 2, mib, sizeof mib)) return 101;
    *bytes = (size_t)strtoull(mib, NULL, 10) * 1024u * 1024u;
    return 0;
}

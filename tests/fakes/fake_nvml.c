/* A fake libnvidia-ml.so.1 for tests: exports the symbols nvidia-ml-py calls and answers from
 * environment variables, so one build serves every scenario.
 *   FAKE_NVML_INIT_RC   return code of nvmlInitWithFlags/nvmlInit_v2 (18 = version mismatch)
 *   FAKE_NVML_DRIVER    driver release, e.g. 535.104.05
 *   FAKE_NVML_CUDA      CUDA driver version encoded as 12020
 *   FAKE_NVML_GPUS      ';'-separated "name|major.minor|memory_mib|uuid" entries
 *   FAKE_NVML_INIT_SLEEP seconds nvmlInit sleeps first: an NVML that hangs (a GPU fallen off
 *                        the bus), for the doctor's --deadline
 */
#include <unistd.h>

#include "fake_gpu_table.h"

typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef void *nvmlDevice_t;

int nvmlInitWithFlags(unsigned int flags) {
    (void)flags;
    sleep((unsigned int)atoi(env_or("FAKE_NVML_INIT_SLEEP", "0")));
    return atoi(env_or("FAKE_NVML_INIT_RC", "0"));
}
int nvmlInit_v2(void) { return nvmlInitWithFlags(0); }
int nvmlInit(void) { return nvmlInitWithFlags(0); }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int result) {
    switch (result) {
    case 9: return "Driver Not Loaded";
    case 18: return "Driver/library version mismatch";
    default: return "Unknown Error";
    }
}
int nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    snprintf(version, length, "%s", env_or("FAKE_NVML_DRIVER", "535.104.05"));
    return 0;
}
int nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    snprintf(version, length, "12.%s", env_or("FAKE_NVML_DRIVER", "535.104.05"));
    return 0;
}
int nvmlSystemGetCudaDriverVersion(int *version) { *version = atoi(env_or("FAKE_NVML_CUDA", "12020")); return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *version) { return nvmlSystemGetCudaDriverVersion(version); }
int nvmlDeviceGetCount_v2(unsigned int *count) {
    *count = (unsigned int)gpu_count("FAKE_NVML_GPUS");
    return 0;
}
int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    *device = (nvmlDevice_t)(size_t)(index + 1);
    return 0;
}
static int index_of(nvmlDevice_t device) { return (int)(size_t)device - 1; }
int nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    return gpu_field("FAKE_NVML_GPUS", index_of(device), 0, name, length) ? 0 : 999;
}
int nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    char cc[32];
    if (!gpu_field("FAKE_NVML_GPUS", index_of(device), 1, cc, sizeof cc)) return 999;
    return sscanf(cc, "%d.%d", major, minor) == 2 ? 0 : 999;
}
int nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    char mib[32];
    if (!gpu_field("FAKE_NVML_GPUS", index_of(device), 2, mib, sizeof mib)) return 999;
    memory->total = strtoull(mib, NULL, 10) * 1024ULL * 1024ULL;
    memory->free = memory->total;
    memory->used = 0;
    return 0;
}
int nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    return gpu_field("FAKE_NVML_GPUS", index_of(device), 3, uuid, length) ? 0 : 999;
}

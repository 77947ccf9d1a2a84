/* The fake drivers' shared GPU table: GPUs described in an environment variable as
 * ';'-separated entries of '|'-separated fields ("name|major.minor|memory_mib|uuid"). */
#ifndef FAKE_GPU_TABLE_H
#define FAKE_GPU_TABLE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *env_or(const char *key, const char *fallback) {
    const char *value = getenv(key);
    return value ? value : fallback;
}

/* Field `field` of GPU `index` in the table held by `variable`; 0 when there is none. */
static int gpu_field(const char *variable, int index, int field, char *out, size_t size) {
    char buffer[4096];
    strncpy(buffer, env_or(variable, ""), sizeof buffer - 1);
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

static int gpu_count(const char *variable) {
    const char *gpus = env_or(variable, "");
    int n = 0;
    if (*gpus) { n = 1; for (const char *c = gpus; *c; c++) if (*c == ';') n++; }
    return n;
}

#endif

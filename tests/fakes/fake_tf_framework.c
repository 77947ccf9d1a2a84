/* Stands in for libtensorflow_framework.so.2: its RUNPATH, and a dlopen() made from inside it.
 *
 * TensorFlow's DSO loader lives in this library and calls dlopen(name, RTLD_NOW | RTLD_LOCAL)
 * with a bare name, so ld.so searches with this object's RUNPATH (tsl/platform/default/
 * dso_loader.cc). tf_dlopen() makes the same call, which lets a test ask the real glibc loader
 * which copy it opens: the path in the link map, or dlerror()'s words. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <string.h>

int tf_framework_marker(void) { return 2; }

static void copy_out(char *out, int size, const char *text) {
    strncpy(out, text ? text : "?", (size_t)size - 1);
    out[size - 1] = '\0';
}

int tf_dlopen(const char *name, char *out, int size) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    struct link_map *map = 0;
    if (handle == 0) {
        copy_out(out, size, dlerror());
        return 0;
    }
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) == 0 && map != 0) {
        copy_out(out, size, map->l_name);
    } else {
        copy_out(out, size, "?");
    }
    return 1;
}

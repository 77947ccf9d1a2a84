/* Just enough of libnvJitLink.so.12 to link against. */
int nvJitLinkVersion(unsigned int *major, unsigned int *minor) { *major = 12; *minor = 2; return 0; }

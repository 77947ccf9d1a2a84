/* Stands in for libcusparse.so.12, which needs libnvJitLink.so.12 (DT_NEEDED). */
extern int nvJitLinkVersion(unsigned int *major, unsigned int *minor);
int cusparse_marker(void) { unsigned int a, b; return nvJitLinkVersion(&a, &b); }

/* Stands in for libtensorflow_framework.so.2: only its RUNPATH matters to the probe. */
int tf_framework_marker(void) { return 2; }

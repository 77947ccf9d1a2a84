/* A Windows DLL for the probe's PE reading: cross-compiled with mingw-w64 as 32 or 64 bit. */
__declspec(dllexport) unsigned long long cudnnGetVersion(void) { return 8100; }

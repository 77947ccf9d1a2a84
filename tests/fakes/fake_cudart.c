/* A fake CUDA runtime: cudaRuntimeGetVersion() reports -DFAKE_CUDART_VERSION (12020 = 12.2). */
int cudaRuntimeGetVersion(int *version) { *version = FAKE_CUDART_VERSION; return 0; }

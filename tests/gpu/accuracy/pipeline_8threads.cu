// pipeline_8threads: HtoD -> kernel -> DtoH with host callbacks between, on 8 threads with a stream each.
// 30 rounds per thread; built with -cudart shared.
#include "pipeline.cuh"

int main() { return run_pipeline("pipeline_8threads", 8, 30); }

// pipeline_1thread: HtoD -> kernel -> DtoH on one stream, 50 rounds, with host callbacks between.
#include "pipeline.cuh"

int main() { return run_pipeline("pipeline_1thread", 1, 50); }

/* fake_cupti.c: a stand-in for CUPTI's libcupti.so.13 with only its activity switches (enable, disable,
 * per context, finalize), each answering CUPTI_SUCCESS (0) for any kind, as the real ones do for kernel
 * kinds.  The prototypes are CUPTI's with its enums read as ints (cupti_activity.h, CUDA 13).  A program
 * linked against it calls them as torch.profiler's Kineto calls the real ones, through the dynamic linker,
 * so that a preloaded libkprof sees them first. */
#include <cuda.h>

int cuptiActivityEnable(int kind) { (void)kind; return 0; }
int cuptiActivityEnableAndDump(int kind) { (void)kind; return 0; }
int cuptiActivityDisable(int kind) { (void)kind; return 0; }
int cuptiActivityEnableContext(CUcontext c, int kind) { (void)c; (void)kind; return 0; }
int cuptiActivityDisableContext(CUcontext c, int kind) { (void)c; (void)kind; return 0; }
int cuptiFinalize(void) { return 0; }

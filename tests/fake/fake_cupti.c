/* fake_cupti.c: a stand-in for CUPTI's libcupti.so.13 with only its activity switches (enable, disable,
 * per context, finalize), each answering CUPTI_SUCCESS (0) for any kind, as the real ones do for kernel
 * kinds, and remembering what is on (fakecupti_kind_on), so that a test sees the calls reach it.  The
 * prototypes are CUPTI's with its enums read as ints (cupti_activity.h, CUDA 13).  Programs and libraries
 * linked against it call them as torch.profiler's Kineto calls the real ones, through the dynamic linker,
 * so that a preloaded libkprof sees them first. */
#include <cuda.h>

static int on[64]; /* per kind: process-wide switch (bit 0), contexts switched on (from bit 1) */

static int ok(int kind) { return kind >= 0 && kind < 64; }

int cuptiActivityEnable(int kind) { if (ok(kind)) on[kind] |= 1; return 0; }
int cuptiActivityEnableAndDump(int kind) { return cuptiActivityEnable(kind); }
int cuptiActivityDisable(int kind) { if (ok(kind)) on[kind] &= ~1; return 0; }
int cuptiActivityEnableContext(CUcontext c, int kind) { (void)c; if (ok(kind)) on[kind] += 2; return 0; }
int cuptiActivityDisableContext(CUcontext c, int kind) { (void)c; if (ok(kind) && on[kind] >= 2) on[kind] -= 2; return 0; }
int cuptiFinalize(void) { for (int i = 0; i < 64; i++) on[i] = 0; return 0; }

/* The fake's own: 1 while kind is switched on, process-wide or for a context. */
int fakecupti_kind_on(int kind) { return ok(kind) && on[kind] != 0; }

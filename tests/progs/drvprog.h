/* drvprog.h: what the driver-API test programs share: CK, which exits 1 with the call's text and error
 * when a driver call fails. */
#ifndef KPROF_TESTS_DRVPROG_H
#define KPROF_TESTS_DRVPROG_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            fprintf(stderr, "%s:%d: %s: error %d\n", __FILE__, __LINE__, #call, (int)r_);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif

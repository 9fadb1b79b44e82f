/* kprof.h: every libkprof layer's header at once (transitional: each .c file is to include only its own). */
#ifndef KPROF_KPROF_H
#define KPROF_KPROF_H

#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

#include "cuda_api.h"
#include "kprof_hash.h"
#include "histogram.h"
#include "calibrate.h"
#include "kprof_config.h"
#include "log.h"
#include "driver.h"
#include "call.h"
#include "fork.h"
#include "preload.h"
#include "timing.h"
#include "kernels.h"
#include "stats.h"
#include "graphs.h"
#include "wrap.h"
#include "snapshot.h"
#include "report.h"

#endif

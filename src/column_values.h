/* column_values.h: the short names of a cell's constructors (column.h), for the files whose column tables
 * write value expressions with them: columns.c (columns.def) and kprof-merge.c (merge-columns.def).  Not
 * for other headers: the names are short. */
#ifndef KPROF_COLUMN_VALUES_H
#define KPROF_COLUMN_VALUES_H

#include "column.h"

#define U64(x) ((struct kprof_value){ .type = KPROF_V_U64, .v.u = (uint64_t)(x) })
#define I64(x) ((struct kprof_value){ .type = KPROF_V_I64, .v.i = (int64_t)(x) })
#define F64(x) ((struct kprof_value){ .type = KPROF_V_F64, .v.d = (double)(x) })
#define FRAC(n, d) ((struct kprof_value){ .type = KPROF_V_FRAC, .v.frac = { (uint64_t)(n), (uint64_t)(d) } })
#define STR(x) ((struct kprof_value){ .type = KPROF_V_STR, .v.s = (x) })
#define FLAG(x) ((struct kprof_value){ .type = KPROF_V_FLAG, .v.flag = !!(x) })
#define DIM3(x) ((struct kprof_value){ .type = KPROF_V_DIM3, .v.dim3 = (x) })
#define NONE ((struct kprof_value){ .type = KPROF_V_NONE })

#endif

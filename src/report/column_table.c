/* column_table.c: columns.def's columns as descriptors (column.h), without the rows their values are read
 * from (columns.c), so that kprof-merge, which has rows of its own, shares them. */
#include "column.h"

#define JSON(key, order) key, order
#define CSV(header, order) header, order
#define TEXT(header, order, width, unit) header, order, width, KPROF_TU_##unit
#define TIMED KPROF_COL_TIMED
#define LABEL KPROF_COL_LABEL
#define KERNEL KPROF_COL_KERNEL
#define NAME KPROF_COL_NAME
#define KPROF_TABLE(table)
#define KPROF_COLUMN(table, id, kind, flags, value, prec, json, csv, text) \
    { KPROF_TABLE_##table, #id, KPROF_KIND_##kind, flags, prec, json, csv, text },
const struct kprof_column kprof_columns[KPROF_COLUMN_COUNT] = {
#include "columns.def"
};

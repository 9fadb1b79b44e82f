/* column.h: a report table's column (what its value is, its JSON key, CSV header, text header, width and
 * unit), columns.def's columns as such descriptors, and the text renderer of a table of columns; below the
 * report's rows (columns.h), so that kprof-merge renders its tables with them too. */
#ifndef KPROF_COLUMN_H
#define KPROF_COLUMN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "units.h"

/* What a column's value is; each format writes a kind its own way (see columns.def). */
enum kprof_kind { KPROF_KIND_TIME, KPROF_KIND_BYTES, KPROF_KIND_COUNT, KPROF_KIND_RATIO, KPROF_KIND_TEXT,
                  KPROF_KIND_FLAG, KPROF_KIND_DIM3 };

/* The text unit of a column: none, chosen when the table is rendered from the column's own values (AUTO)
 * or from those of all the table's columns of the same group (GROUP, GROUP_B, GROUP_C: columns side by
 * side that a reader compares, such as a median and its p95, share one unit), a fixed time unit (MS, S),
 * or a ratio's presentation (PCT: x 100; TIMES: a trailing "x"). */
enum kprof_text_unit { KPROF_TU_NONE, KPROF_TU_AUTO, KPROF_TU_GROUP, KPROF_TU_GROUP_B, KPROF_TU_GROUP_C, KPROF_TU_MS,
                       KPROF_TU_S, KPROF_TU_PCT, KPROF_TU_TIMES };
#define KPROF_TU_IS_GROUP(u) ((u) == KPROF_TU_GROUP || (u) == KPROF_TU_GROUP_B || (u) == KPROF_TU_GROUP_C)

/* Column flags (columns.def says what each means to the writers). */
#define KPROF_COL_TIMED  1u
#define KPROF_COL_LABEL  4u
#define KPROF_COL_KERNEL 8u
#define KPROF_COL_NAME   16u

/* The text width of a TEXT column as wide as its widest cell (or its header). */
#define KPROF_TEXT_FIT (-1)

/* One cell.  The string (STR) and the array (DIM3) are borrowed from the row. */
struct kprof_value {
    enum { KPROF_V_NONE, KPROF_V_U64, KPROF_V_I64, KPROF_V_F64, KPROF_V_FRAC, KPROF_V_STR, KPROF_V_FLAG,
           KPROF_V_DIM3 } type;
    union {
        uint64_t u;
        int64_t i;
        double d;
        struct { uint64_t num, den; } frac; /* the ratio num / den, 0 when den is 0 */
        const char *s;
        int flag;
        const unsigned *dim3;
    } v;
};

/* A ratio cell (KPROF_V_FRAC) as a double times `scale`, 0 when its denominator is: the same arithmetic as
 * scale * num / den. */
static inline double kprof_frac(struct kprof_value v, double scale)
{
    return v.v.frac.den ? scale * (double)v.v.frac.num / (double)v.v.frac.den : 0.0;
}

/* A column's cells: the value of row `row` of the rows ctx. */
typedef struct kprof_value (*kprof_getter)(const void *ctx, size_t row);

/* One column.  A place (json_order, csv_order, text_order) of 0 leaves the column out of that format. */
struct kprof_column {
    int table;                      /* enum kprof_table_id */
    const char *id;
    enum kprof_kind kind;
    unsigned flags;                 /* KPROF_COL_* */
    int prec;                       /* CSV, JSON: decimals of a real value; -1: a rounded whole number */
    const char *json_key; int json_order;
    const char *csv_header; int csv_order;
    const char *text_header; int text_order; int text_width; enum kprof_text_unit text_unit;
};

enum kprof_table_id {
#define KPROF_TABLE(table) KPROF_TABLE_##table,
#define KPROF_COLUMN(...)
#include "columns.def"
#undef KPROF_TABLE
#undef KPROF_COLUMN
    KPROF_TABLE_COUNT
};

enum kprof_column_id {
#define KPROF_TABLE(table)
#define KPROF_COLUMN(table, id, ...) KPROF_COL_##table##_##id,
#include "columns.def"
#undef KPROF_TABLE
#undef KPROF_COLUMN
    KPROF_COLUMN_COUNT
};

/* Every column of columns.def, indexed by enum kprof_column_id (column_table.c; their values are the
 * library's, columns.c). */
extern const struct kprof_column kprof_columns[KPROF_COLUMN_COUNT];

/* Text: one column of a table being rendered, in its place. */
struct kprof_text_col {
    const struct kprof_column *col; /* its kind, flags, header, width and unit */
    kprof_getter value;
    const char *label;              /* the header in place of col->text_header; NULL: col's */
    const char *mark;               /* written right after the header's name (before its unit); NULL: none */
    int group;                      /* columns of one group unit (GROUP, GROUP_B, GROUP_C) share their unit
                                       only if this is the same too (kprof-merge's own columns apart) */
    struct kprof_unit unit;         /* a time column's unit (kprof_text_measure) */
    int width;                      /* its width (kprof_text_measure) */
};
/* Text: a table of columns over the rows ctx.  timed, when not NULL, says which rows have a timed call
 * (the others write "-" in TIMED columns); a NAME column's strings are cut at name_cap characters (0: not). */
struct kprof_text_table {
    struct kprof_text_col *cols;
    size_t n;
    const void *ctx;
    int (*timed)(const void *ctx, size_t row);
    int name_cap;
};

/* Text: sets each column's unit and width: AUTO and GROUP units chosen (kprof_unit_pick) from the values
 * over rows 0 to nrows - 1 (those for which `rows`, when not NULL, holds; "-" cells left out), a fixed
 * width widened to its header's, a KPROF_TEXT_FIT one as wide as its widest cell. */
void kprof_text_measure(struct kprof_text_table *t, size_t nrows, int (*rows)(const void *ctx, size_t row));
/* Text: the table's header line, with its newline. */
void kprof_text_head(FILE *f, const struct kprof_text_table *t);
/* Text: row `row`, without its newline (the caller may add a note after the last column). */
void kprof_text_cells(FILE *f, const struct kprof_text_table *t, size_t row);

#endif

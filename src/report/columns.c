/* columns.c: the values of the report's columns (columns.def) read from the snapshot's rows (rows.h, their
 * figures computed once), and the renderers that write any table's rows as text, CSV or JSON. */
#include <string.h>
#include "cuda_api.h"
#include "kprof_config.h"
#include "kernel.h"
#include "transfers.h"
#include "snapshot.h"
#include "jsonput.h"
#include "columns.h"
#include "column_values.h"

/* ------------------------------------------------------------------------------------ the rows */

/* A kernel's launch call host time or queue time, median (i 0) or p95 (i 1), from its row (rows.h), or no
 * value. */
static struct kprof_value split(const struct kprof_kernel_row *r, enum kprof_split which, int i)
{
    struct kprof_value v = { .type = KPROF_V_NONE };
    if (r->split_known[which][i]) {
        v.type = KPROF_V_U64;
        v.v.u = r->split_ns[which][i];
    }
    return v;
}

/* 100 x part / all: nsys's Time (%); 0 when all is. */
static double pct(uint64_t part, uint64_t all)
{
    return all ? 100.0 * (double)part / (double)all : 0.0;
}

/* What a column's value expression (columns.def) sees: the table's rows `t`, and its row (rows.h). */
#define KPROF_ROW_kernels \
    const struct kprof_kernel_rows *t = ctx; \
    const struct kprof_kernel_row *r = &t->rows[row]; \
    const struct kprof_kernel *k = r->k; \
    (void)t; (void)k;
#define KPROF_ROW_copies \
    const struct kprof_copy_rows *t = ctx; \
    const struct kprof_copy_row *c = &t->rows[row]; \
    (void)t;
#define KPROF_ROW_captured \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_kernel *k = s->k.captured[row];
#define KPROF_ROW_allocations \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_alloc_stat *a = &s->allocs.alloc[row]; \
    (void)a;
#define KPROF_ROW_devices \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_device_stat *d = &s->devices.devices[row]; \
    (void)d;
#define KPROF_ROW_api \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_api_stat *a = &s->apitable.api[row]; \
    (void)a;
#define KPROF_ROW_context_init \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_ctx_init *c = &s->apitable.ctx_inits[row];

/* Whether row `row` of a table has a timed call (NULL: every row has). */
static int kernels_timed(const void *ctx, size_t row)
{
    const struct kprof_kernel_rows *t = ctx;
    return t->rows[row].k->timed > 0;
}
static int copies_timed(const void *ctx, size_t row)
{
    const struct kprof_copy_rows *t = ctx;
    return t->rows[row].c->timed > 0;
}
static int (*const row_timed[KPROF_TABLE_COUNT])(const void *ctx, size_t row) = {
    [KPROF_TABLE_kernels] = kernels_timed,
    [KPROF_TABLE_copies] = copies_timed,
};

/* ----------------------------------------------------------------------------------- the values */

/* One getter per column. */
#define KPROF_TABLE(table)
#define KPROF_COLUMN(table, id, kind, flags, value, ...) \
    static struct kprof_value get_##table##_##id(const void *ctx, size_t row) \
    { \
        KPROF_ROW_##table \
        (void)row; \
        return value; \
    }
#include "columns.def"
#undef KPROF_COLUMN

/* The columns' values, indexed by enum kprof_column_id (their descriptors: column_table.c). */
#define KPROF_COLUMN(table, id, ...) get_##table##_##id,
static const kprof_getter getters[KPROF_COLUMN_COUNT] = {
#include "columns.def"
};
#undef KPROF_COLUMN
#undef KPROF_TABLE

/* The ids of the table's columns in `format`'s order (1: JSON, 2: CSV, 3: text) into ids[KPROF_COLUMN_COUNT];
 * returns how many. */
static size_t ordered(int table, int format, int *ids)
{
    size_t n = 0;
    for (int c = 0; c < KPROF_COLUMN_COUNT; c++) {
        const struct kprof_column *col = &kprof_columns[c];
        int place = format == 1 ? col->json_order : format == 2 ? col->csv_order : col->text_order;
        if (col->table != table || place == 0)
            continue;
        size_t j = n++;
        for (; j > 0; j--) { /* insertion by place: a table has a few dozen columns at most */
            const struct kprof_column *o = &kprof_columns[ids[j - 1]];
            int op = format == 1 ? o->json_order : format == 2 ? o->csv_order : o->text_order;
            if (op <= place)
                break;
            ids[j] = ids[j - 1];
        }
        ids[j] = c;
    }
    return n;
}

/* ------------------------------------------------------------------------------------------ text */

/* The table's text columns, in their order, into cols[KPROF_COLUMN_COUNT], each time column in units[its
 * id] when units is not NULL, a column's header labels[its id] where labels is not NULL and has one; and the
 * table over ctx; returns it. */
static struct kprof_text_table text_table(int table, const void *ctx, const struct kprof_unit *units,
                                          const char *const *labels, struct kprof_text_col *cols)
{
    int ids[KPROF_COLUMN_COUNT];
    struct kprof_text_table t = { cols, ordered(table, 3, ids), ctx, row_timed[table],
                                  kprof_config.name_width > INT_MAX ? INT_MAX : (int)kprof_config.name_width };
    for (size_t i = 0; i < t.n; i++) {
        const struct kprof_column *col = &kprof_columns[ids[i]];
        cols[i] = (struct kprof_text_col){ .col = col, .value = getters[ids[i]], .width = col->text_width,
                                           .label = labels ? labels[ids[i]] : NULL,
                                           .unit = units ? units[ids[i]] : kprof_unit_at(0) };
    }
    return t;
}

void kprof_text_units(int table, const void *ctx, size_t nrows, int (*rows)(const void *ctx, size_t row),
                      struct kprof_unit *units)
{
    struct kprof_text_col cols[KPROF_COLUMN_COUNT];
    struct kprof_text_table t = text_table(table, ctx, NULL, NULL, cols);
    kprof_text_measure(&t, nrows, rows);
    for (int c = 0; c < KPROF_COLUMN_COUNT; c++)
        units[c] = kprof_unit_at(0);
    for (size_t i = 0; i < t.n; i++)
        units[cols[i].col - kprof_columns] = cols[i].unit;
}

void kprof_text_header(FILE *f, int table, const struct kprof_unit *units, const char *const *labels)
{
    struct kprof_text_col cols[KPROF_COLUMN_COUNT];
    struct kprof_text_table t = text_table(table, NULL, units, labels, cols);
    kprof_text_head(f, &t);
}

void kprof_text_row(FILE *f, int table, const void *ctx, size_t row, const struct kprof_unit *units)
{
    struct kprof_text_col cols[KPROF_COLUMN_COUNT];
    struct kprof_text_table t = text_table(table, ctx, units, NULL, cols);
    kprof_text_cells(f, &t, row);
}

/* ------------------------------------------------------------------------------------- CSV, JSON */

void kprof_csv_string(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* A number as CSV and JSON write it (times in ns, sizes in bytes); false when v is not a number. */
static int machine_number(FILE *f, const struct kprof_column *col, struct kprof_value v)
{
    double d;
    switch (v.type) {
    case KPROF_V_U64: fprintf(f, "%llu", (unsigned long long)v.v.u); return 1;
    case KPROF_V_I64: fprintf(f, "%lld", (long long)v.v.i); return 1;
    case KPROF_V_F64: d = v.v.d; break;
    case KPROF_V_FRAC: d = kprof_frac(v, 1.0); break;
    default: return 0;
    }
    if (col->prec == -2)
        kprof_json_real(f, d);
    else if (col->prec < 0)
        fprintf(f, "%llu", (unsigned long long)(d + 0.5));
    else
        fprintf(f, "%.*f", col->prec, d);
    return 1;
}

void kprof_csv_header(FILE *f, int table, unsigned skip)
{
    int ids[KPROF_COLUMN_COUNT];
    size_t n = ordered(table, 2, ids), out = 0;
    for (size_t i = 0; i < n; i++)
        if (!(kprof_columns[ids[i]].flags & skip))
            fprintf(f, "%s%s", out++ ? "," : "", kprof_columns[ids[i]].csv_header);
    fputc('\n', f);
}

void kprof_csv_row(FILE *f, int table, const void *ctx, size_t row, unsigned skip)
{
    int ids[KPROF_COLUMN_COUNT];
    size_t n = ordered(table, 2, ids), out = 0;
    for (size_t i = 0; i < n; i++) {
        const struct kprof_column *col = &kprof_columns[ids[i]];
        if (col->flags & skip)
            continue;
        if (out++)
            fputc(',', f);
        struct kprof_value v = getters[ids[i]](ctx, row);
        if (machine_number(f, col, v))
            continue;
        if (v.type == KPROF_V_STR)
            kprof_csv_string(f, v.v.s);
        else if (v.type == KPROF_V_FLAG)
            fprintf(f, "%d", v.v.flag);
        else if (v.type == KPROF_V_DIM3)
            fprintf(f, "%u,%u,%u", v.v.dim3[0], v.v.dim3[1], v.v.dim3[2]);
        /* KPROF_V_NONE: an empty field */
    }
    fputc('\n', f);
}

void kprof_json_object(FILE *f, int table, const void *ctx, size_t row, unsigned skip)
{
    int ids[KPROF_COLUMN_COUNT];
    size_t n = ordered(table, 1, ids), out = 0;
    fputc('{', f);
    for (size_t i = 0; i < n; i++) {
        const struct kprof_column *col = &kprof_columns[ids[i]];
        if (col->flags & skip)
            continue;
        fprintf(f, "%s\"%s\": ", out++ ? ", " : "", col->json_key);
        struct kprof_value v = getters[ids[i]](ctx, row);
        if (machine_number(f, col, v))
            continue;
        if (v.type == KPROF_V_STR)
            kprof_json_string(f, v.v.s);
        else if (v.type == KPROF_V_FLAG)
            fputs(v.v.flag ? "true" : "false", f);
        else if (v.type == KPROF_V_DIM3)
            fprintf(f, "[%u, %u, %u]", v.v.dim3[0], v.v.dim3[1], v.v.dim3[2]);
        else
            fputs("null", f);
    }
    fputc('}', f);
}

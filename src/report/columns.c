/* columns.c: the values of the report's columns (columns.def) over the snapshot's rows, and the renderers
 * that write any table's rows as text, CSV or JSON. */
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

/* A kernel's steady-state figures (kprof_kernel_steady), zero when no launch was timed. */
struct steady { double avg; uint64_t min, max; };
static struct steady steady(const struct kprof_kernel *k)
{
    struct steady s = { 0.0, 0, 0 };
    kprof_kernel_steady(k, &s.avg, &s.min, &s.max);
    return s;
}

/* Percentile q of a kernel's launch call host times or queue times (kprof_kernel_split), or no value. */
static struct kprof_value split(const struct kprof_kernel *k, enum kprof_split which, double q)
{
    struct kprof_value v = { .type = KPROF_V_NONE };
    if (kprof_kernel_split(k, which, q, &v.v.u))
        v.type = KPROF_V_U64;
    return v;
}

/* nsys's per-instance figures of a kernel and of a copy or memset aggregate (the first launch included). */
static struct kprof_spread nsys_k(const struct kprof_kernel *k)
{
    struct kprof_spread s;
    kprof_kernel_instances(k, &s);
    return s;
}
static struct kprof_spread nsys_c(const struct kprof_copy *c)
{
    struct kprof_spread s;
    kprof_copy_instances(c, &s);
    return s;
}

/* 100 x part / all: nsys's Time (%); 0 when all is. */
static double pct(uint64_t part, uint64_t all)
{
    return all ? 100.0 * (double)part / (double)all : 0.0;
}

/* The GPU time of every timed copy and memset: what nsys's cuda_gpu_mem_time_sum shares out. */
static uint64_t mem_ops_ns(const struct kprof_snapshot *s)
{
    uint64_t all = s->st.memsets.total_ns;
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++)
            all += s->st.copies[d][h].total_ns;
    return all;
}

/* The host time of the api table's rows (the APIs counted and called): what cuda_api_sum shares out. */
static uint64_t api_ns(const struct kprof_snapshot *s)
{
    uint64_t all = 0;
    for (size_t i = 0; i < KPROF_API_COUNT; i++)
        if (kprof_api_counted[i])
            all += s->st.api[i].total_ns;
    return all;
}

void kprof_kernel_rows_init(struct kprof_kernel_rows *t, struct kprof_kernel *const *rows, size_t n, uint64_t all_ns)
{
    t->rows = rows;
    t->n = n;
    t->all_ns = all_ns;
    t->measured_ns = 0;
    for (size_t i = 0; i < n; i++)
        t->measured_ns += rows[i]->total_ns;
}

/* What a column's value expression (columns.def) sees: the table's rows `t`, and its row. */
#define KPROF_ROW_kernels \
    const struct kprof_kernel_rows *t = ctx; \
    const struct kprof_kernel *k = t->rows[row]; \
    (void)t;


/* A row of the copies table: its labels (operation: as nsys's cuda_gpu_mem_time_sum names it) and
 * figures. */
struct copy_cell { const char *direction, *host, *operation; const struct kprof_copy *c; };
static const char *const operations[KPROF_DIR_COUNT] = {
    [KPROF_HTOH] = "[CUDA memcpy Host-to-Host]", [KPROF_HTOD] = "[CUDA memcpy Host-to-Device]",
    [KPROF_DTOH] = "[CUDA memcpy Device-to-Host]", [KPROF_DTOD] = "[CUDA memcpy Device-to-Device]",
};
static struct copy_cell copy_cell(const struct kprof_copy_rows *t, size_t row)
{
    if (t->memsets)
        return (struct copy_cell){ "memset", "", "[CUDA memset]", &t->s->st.memsets };
    int d = t->dir[row], h = t->host[row];
    return (struct copy_cell){ kprof_dir_names[d], h == KPROF_HOST_NONE ? NULL : kprof_host_mem_names[h],
                               operations[d], &t->s->st.copies[d][h] };
}

void kprof_copy_rows(struct kprof_copy_rows *t, const struct kprof_snapshot *s, int memsets)
{
    memset(t, 0, sizeof *t);
    t->s = s;
    t->memsets = memsets;
    if (memsets) {
        t->n = 1;
        return;
    }
    for (int d = 0; d < KPROF_DIR_COUNT; d++)
        for (int h = 0; h < KPROF_HOST_COUNT; h++)
            if (s->st.copies[d][h].count) {
                t->dir[t->n] = (unsigned char)d;
                t->host[t->n++] = (unsigned char)h;
            }
}

#define KPROF_ROW_copies \
    const struct kprof_copy_rows *t = ctx; \
    struct copy_cell c = copy_cell(t, row);
#define KPROF_ROW_captured \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_kernel *k = s->k.captured[row];
#define KPROF_ROW_allocations \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_alloc_stat *a = &s->st.alloc[row]; \
    (void)a;
#define KPROF_ROW_devices \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_device_stat *d = &s->st.devices[row]; \
    (void)d;
#define KPROF_ROW_api \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_api_stat *a = &s->st.api[row]; \
    (void)a;
#define KPROF_ROW_context_init \
    const struct kprof_snapshot *s = ctx; \
    const struct kprof_ctx_init *c = &s->st.ctx_inits[row];

/* Whether row `row` of a table has a timed call (NULL: every row has). */
static int kernels_timed(const void *ctx, size_t row)
{
    const struct kprof_kernel_rows *t = ctx;
    return t->rows[row]->timed > 0;
}
static int copies_timed(const void *ctx, size_t row)
{
    return copy_cell(ctx, row).c->timed > 0;
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

/* text_table.c: a table of columns (column.h) as aligned text: each time column in the unit its values
 * read best in, names escaped onto their row. */
#include <string.h>
#include "textput.h"
#include "column.h"

/* Whether the cell of column c in row `row` is written as a value (not "-"). */
static int has_value(const struct kprof_text_table *t, const struct kprof_text_col *c, struct kprof_value v,
                     size_t row)
{
    if (v.type == KPROF_V_NONE)
        return 0;
    return !(c->col->flags & KPROF_COL_TIMED) || !t->timed || t->timed(t->ctx, row);
}

/* Writes the header of column c (its mark, then its unit when it is a time, after its name) padded to
 * `width` columns, on the left when left is set; returns its length unpadded (and writes nothing when f is
 * NULL). */
static int put_header(FILE *f, const struct kprof_text_col *c, int width, int left)
{
    const char *label = c->label ? c->label : c->col->text_header, *mark = c->mark ? c->mark : "";
    int time = c->col->kind == KPROF_KIND_TIME && c->col->text_unit != KPROF_TU_NONE;
    int n = (int)(strlen(label) + strlen(mark) + (time ? strlen(c->unit.name) + 3 : 0));
    if (!f)
        return n;
    fprintf(f, "%*s%s%s", left ? 0 : width > n ? width - n : 0, "", label, mark);
    if (time)
        fprintf(f, " (%s)", c->unit.name);
    fprintf(f, "%*s", left && width > n ? width - n : 0, "");
    return n;
}

void kprof_text_measure(struct kprof_text_table *t, size_t nrows, int (*rows)(const void *ctx, size_t row))
{
    struct kprof_unit_pick own[t->n ? t->n : 1];
    memset(own, 0, sizeof own);
    for (size_t i = 0; i < t->n; i++) {
        struct kprof_text_col *c = &t->cols[i];
        c->unit = kprof_unit_at(0);
        c->width = c->col->text_width;
        int fit = c->width == KPROF_TEXT_FIT, pick = c->col->kind == KPROF_KIND_TIME &&
            (c->col->text_unit == KPROF_TU_AUTO || KPROF_TU_IS_GROUP(c->col->text_unit));
        if (fit)
            c->width = 1; /* a "-" */
        for (size_t r = 0; (fit || pick) && r < nrows; r++) {
            if (rows && !rows(t->ctx, r))
                continue;
            struct kprof_value v = c->value(t->ctx, r);
            if (!has_value(t, c, v, r))
                continue;
            if (pick)
                kprof_unit_pick_add(&own[i], v.type == KPROF_V_F64 ? v.v.d : (double)v.v.u);
            if (fit && v.type == KPROF_V_STR && kprof_text_len(v.v.s) > c->width)
                c->width = kprof_text_len(v.v.s);
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        struct kprof_text_col *c = &t->cols[i];
        struct kprof_unit_pick group = { 0 };
        switch (c->col->text_unit) {
        case KPROF_TU_AUTO: c->unit = kprof_unit_pick_best(&own[i]); break;
        case KPROF_TU_GROUP:
        case KPROF_TU_GROUP_B:
        case KPROF_TU_GROUP_C:
            for (size_t j = 0; j < t->n; j++) /* the group's values: its columns' picks together */
                if (t->cols[j].col->text_unit == c->col->text_unit && t->cols[j].group == c->group) {
                    if (own[j].max > group.max)
                        group.max = own[j].max;
                    for (int u = 0; u < KPROF_UNITS; u++)
                        group.zeros[u] += own[j].zeros[u];
                }
            c->unit = kprof_unit_pick_best(&group);
            break;
        case KPROF_TU_MS: c->unit = kprof_unit_at(2); break;
        case KPROF_TU_S: c->unit = kprof_unit_at(3); break;
        default: break;
        }
        /* A header as wide as its column, or wider, gets a space more, so that it does not run into the
         * one before it ("Imbalance Host med* (us)": a new user's helper); not the first column's. */
        if (c->width != 0 && put_header(NULL, c, 0, 0) + (i > 0) > c->width)
            c->width = put_header(NULL, c, 0, 0) + (i > 0);
    }
}

/* The text before column i: none for the first, two spaces before a TEXT column as wide as its cells, one
 * space before any other. */
static const char *sep(const struct kprof_text_table *t, size_t i)
{
    const struct kprof_column *col = t->cols[i].col;
    return i == 0 ? "" : col->kind == KPROF_KIND_TEXT && col->text_width <= 0 ? "  " : " ";
}

/* The width column i pads its cells to: a TEXT column written last is not padded. */
static int pad(const struct kprof_text_table *t, size_t i)
{
    return t->cols[i].col->kind == KPROF_KIND_TEXT && i + 1 == t->n ? 0 : t->cols[i].width;
}

void kprof_text_head(FILE *f, const struct kprof_text_table *t)
{
    for (size_t i = 0; i < t->n; i++) {
        fputs(sep(t, i), f);
        put_header(f, &t->cols[i], pad(t, i), t->cols[i].col->kind == KPROF_KIND_TEXT);
    }
    fputc('\n', f);
}

void kprof_text_cells(FILE *f, const struct kprof_text_table *t, size_t row)
{
    for (size_t i = 0; i < t->n; i++) {
        const struct kprof_text_col *c = &t->cols[i];
        const struct kprof_column *col = c->col;
        struct kprof_value v = c->value(t->ctx, row);
        int w = pad(t, i);
        char buf[64];
        fputs(sep(t, i), f);
        if (!has_value(t, c, v, row)) {
            fprintf(f, col->kind == KPROF_KIND_TEXT ? "%-*s" : "%*s", w, "-");
            continue;
        }
        switch (v.type) {
        case KPROF_V_STR:
            if ((col->flags & KPROF_COL_NAME) && t->name_cap > 0)
                kprof_text_put_capped(f, v.v.s, w, t->name_cap);
            else
                kprof_text_put(f, v.v.s, w);
            continue;
        case KPROF_V_FRAC:
            if (col->text_unit == KPROF_TU_PCT)
                snprintf(buf, sizeof buf, "%.2f", kprof_frac(v, 100.0));
            else
                snprintf(buf, sizeof buf, col->text_unit == KPROF_TU_TIMES ? "%.2fx" : "%.2f", kprof_frac(v, 1.0));
            break;
        case KPROF_V_F64:
        case KPROF_V_U64:
            if (col->kind == KPROF_KIND_BYTES && v.type == KPROF_V_U64) {
                kprof_print_bytes(f, w, v.v.u);
                continue;
            }
            if (col->kind == KPROF_KIND_TIME) {
                double x = v.type == KPROF_V_F64 ? v.v.d : (double)v.v.u;
                snprintf(buf, sizeof buf, "%.*f", kprof_unit_decimals(c->unit), x / c->unit.ns);
            } else if (v.type == KPROF_V_F64) {
                snprintf(buf, sizeof buf, "%.2f", v.v.d);
            } else {
                snprintf(buf, sizeof buf, "%llu", (unsigned long long)v.v.u);
            }
            break;
        case KPROF_V_I64:
            snprintf(buf, sizeof buf, "%lld", (long long)v.v.i);
            break;
        case KPROF_V_FLAG:
            snprintf(buf, sizeof buf, "%d", v.v.flag);
            break;
        case KPROF_V_DIM3:
            snprintf(buf, sizeof buf, "[%u,%u,%u]", v.v.dim3[0], v.v.dim3[1], v.v.dim3[2]);
            break;
        default:
            buf[0] = '\0';
        }
        fprintf(f, "%*s", w, buf);
    }
}

/* columns.h: the report's tables as lists of columns (columns.def) over the snapshot's rows, and the
 * renderers that write a row of any table as text, CSV or JSON. */
#ifndef KPROF_COLUMNS_H
#define KPROF_COLUMNS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "kernel.h"
#include "snapshot.h"
#include "rows.h"
#include "textput.h"
#include "units.h"
#include "column.h"

/* The rows each table's values are read from (the `ctx` of the renderers below); row i of a table is the
 * i-th of these.  kernels: a struct kprof_kernel_rows (the snapshot's rows.kernels or rows.graphs);
 * copies: a struct kprof_copy_rows (rows.copies, or rows.memsets: the LABEL columns left out of its CSV
 * and JSON); captured, allocations (row: enum kprof_mem), devices, api (row: the API's index),
 * context_init: the snapshot itself. */

/* Text: the unit of each time column of the table into units[column id] (KPROF_COLUMN_COUNT of them):
 * AUTO and GROUP ones chosen (kprof_unit_pick) from the values over rows 0 to nrows - 1 of ctx (those for
 * which `rows`, when not NULL, holds, hidden rows included; "-" cells left out). */
void kprof_text_units(int table, const void *ctx, size_t nrows, int (*rows)(const void *ctx, size_t row),
                      struct kprof_unit *units);
/* Text: the table's header line, with its newline, each time column's unit from units[column id] (as
 * kprof_text_units() fills it); labels, when not NULL, replaces a column's header by labels[column id]
 * where that is not NULL. */
void kprof_text_header(FILE *f, int table, const struct kprof_unit *units, const char *const *labels);
/* Text: row `row` of ctx, without its newline (the caller may add a note after the last column). */
void kprof_text_row(FILE *f, int table, const void *ctx, size_t row, const struct kprof_unit *units);
/* CSV: the table's header row (with its newline), leaving out the columns with a flag of `skip`. */
void kprof_csv_header(FILE *f, int table, unsigned skip);
/* CSV: row `row` of ctx (with its newline), leaving out the columns with a flag of `skip`. */
void kprof_csv_row(FILE *f, int table, const void *ctx, size_t row, unsigned skip);
/* CSV: a field, quoted as RFC 4180 says when it holds a comma, quote or newline. */
void kprof_csv_string(FILE *f, const char *s);

/* JSON: row `row` of ctx as one object {"key": value, ...}, leaving out the columns with a flag of `skip`. */
void kprof_json_object(FILE *f, int table, const void *ctx, size_t row, unsigned skip);

#endif

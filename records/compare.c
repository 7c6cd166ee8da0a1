/*
 * records/compare: --compare's table through the output layer.  Each card
 * is one record; its text line is a row of right-aligned cells whose
 * widths come from the widest cell of each column, the column heads
 * ride on the first row's template (as --analyze's tables do), and the
 * machine formats carry the same fields as numbers, null where a run
 * did not measure them, with "best" an object of booleans.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "lib/units.h"
#include "output/plot.h"
#include "records/compare.h"

#define NAME_WIDTH_MAX 40
#define HEADING_MAX 1024
/* a cell's text, then two characters of marks: '+' at least, '*' best */
#define MARKS 2

static const struct text_layout packed = { .style = TEXT_PACKED };
static const struct text_layout note_line = { .style = TEXT_SPACES };

/* How each numeric column shows in text. */
static const enum text_display column_display[COMPARE_COLUMNS] = {
	[COMPARE_SEQ_READ] = TEXT_AS_UNIT, [COMPARE_SEQ_WRITE] = TEXT_AS_UNIT,
	[COMPARE_BURST] = TEXT_AS_UNIT, [COMPARE_CACHE] = TEXT_SIZE,
	[COMPARE_SUSTAINED] = TEXT_AS_UNIT,
	[COMPARE_READ_QD1] = TEXT_AS_UNIT, [COMPARE_WRITE_QD1] = TEXT_AS_UNIT,
	[COMPARE_READ_QD32] = TEXT_AS_UNIT,
	[COMPARE_WRITE_QD32] = TEXT_AS_UNIT,
	[COMPARE_ERASE] = TEXT_EXACT_SIZE, [COMPARE_OPEN] = TEXT_AS_UNIT,
	[COMPARE_USABLE] = TEXT_SIZE, [COMPARE_FIRST_ERROR] = TEXT_AS_UNIT,
};

/* The widths of the text table's columns, from its cells and heads. */
struct widths {
	unsigned name;
	unsigned column[COMPARE_COLUMNS];
	unsigned label[COMPARE_LABELS];
};

static unsigned longer(unsigned width, const char *text)
{
	size_t n = 0;

	/* characters, not bytes: UTF-8 continuation bytes take no column */
	for (const char *c = text; *c; c++)
		n += ((unsigned char)*c & 0xc0) != 0x80;
	return n > width ? (unsigned)n : width;
}

static const char *cell_text(const struct compare_card *card,
			     enum compare_column c, char *buf, size_t size)
{
	const struct record_field field = { .unit = compare_columns[c].unit,
					.value = card->value[c] };

	if (!isfinite(card->value[c]))
		return "";
	return render_field_text(&field, column_display[c], 0, buf, size);
}

static void measure_widths(const struct compare *table, struct widths *w)
{
	char buf[UNITS_BUF * 2];

	w->name = longer(0, "card");
	for (unsigned i = 0; i < table->card_count; i++)
		w->name = longer(w->name, table->cards[i].name);
	if (w->name > NAME_WIDTH_MAX)
		w->name = NAME_WIDTH_MAX;
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++) {
		w->column[c] = longer(0, compare_columns[c].title);
		for (unsigned i = 0; i < table->card_count; i++)
			w->column[c] = longer(w->column[c],
				cell_text(&table->cards[i], c, buf,
					  sizeof(buf)));
	}
	for (unsigned l = 0; l < COMPARE_LABELS; l++) {
		w->label[l] = longer(0, compare_labels[l].title);
		for (unsigned i = 0; i < table->card_count; i++)
			w->label[l] = longer(w->label[l],
					     table->cards[i].label[l]);
	}
}

/* "Compared N runs of M cards:" and the column heads, then "%". */
static void heading(const struct compare *table, const struct widths *w,
		    char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "Compared %u run%s of %u "
				    "card%s:\n%-*s", table->run_count,
				    table->run_count == 1 ? "" : "s",
				    table->card_count,
				    table->card_count == 1 ? "" : "s",
				    (int)w->name, "card");

	for (unsigned c = 0; c < COMPARE_COLUMNS && n < size; c++)
		n += (size_t)snprintf(buf + n, size - n, "  %*s%*s",
				      (int)w->column[c],
				      compare_columns[c].title, MARKS, "");
	for (unsigned l = 0; l < COMPARE_LABELS && n < size; l++)
		n += (size_t)snprintf(buf + n, size - n, "  %-*s",
				      (int)w->label[l],
				      compare_labels[l].title);
	/* the heads line ends where the row's last cell does: no spaces */
	while (n > 0 && n < size && buf[n - 1] == ' ')
		buf[--n] = '\0';
	if (n < size)
		snprintf(buf + n, size - n, "\n%%");
}

/* The cells of a text row: the name, the figures, the labels. */
#define CELLS (1 + COMPARE_COLUMNS + COMPARE_LABELS)

/* The looks of one row: a template per cell, for its marks. */
struct row_looks {
	struct text_look cell[CELLS];
	char templates[CELLS][16];
};

static bool cell_known(const struct compare_card *card, unsigned cell)
{
	if (cell == 0)
		return true;
	if (cell <= COMPARE_COLUMNS)
		return isfinite(card->value[cell - 1]);
	return card->label_known[cell - 1 - COMPARE_COLUMNS];
}

/*
 * A line ends with its last known cell, unpadded: the empty cells after
 * it are left out of the text, and no line ends in spaces.
 */
static void end_row(const struct compare_card *card, struct row_looks *looks)
{
	unsigned last = CELLS - 1;
	char *t;

	while (last > 0 && !cell_known(card, last))
		looks->cell[last--] = text_hidden;
	t = looks->templates[last];
	while (last > 0 && *t && t[strlen(t) - 1] == ' ')
		t[strlen(t) - 1] = '\0';
	if (!looks->cell[last].right)
		looks->cell[last].width = 0;
}

static void set_looks(const struct compare_card *card,
		      const struct widths *w, const char *first_heading,
		      struct row_looks *looks)
{
	looks->cell[0] = (struct text_look){ .display = TEXT_AS_UNIT,
		.template = first_heading, .width = w->name };
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++) {
		bool at_least = (c == COMPARE_OPEN && card->open_at_least) ||
				(c == COMPARE_FIRST_ERROR &&
				 card->first_error_at_least);
		char *t = looks->templates[1 + c];

		snprintf(t, sizeof(looks->templates[0]), "  %%%c%c",
			 at_least ? '+' : ' ', card->best[c] ? '*' : ' ');
		looks->cell[1 + c] = (struct text_look){
			.display = column_display[c], .template = t,
			.width = w->column[c], .right = true, .unknown = "" };
	}
	for (unsigned l = 0; l < COMPARE_LABELS; l++) {
		char *t = looks->templates[1 + COMPARE_COLUMNS + l];

		snprintf(t, sizeof(looks->templates[0]), "  %%");
		looks->cell[1 + COMPARE_COLUMNS + l] = (struct text_look){
			.display = TEXT_AS_UNIT, .template = t, .unknown = "",
			.width = w->label[l] };
	}
	end_row(card, looks);
}

/* The keys of the best.* fields, one per numeric column. */
static const char *const best_keys[COMPARE_COLUMNS] = {
	[COMPARE_SEQ_READ] = "best.read_bytes_per_s",
	[COMPARE_SEQ_WRITE] = "best.write_bytes_per_s",
	[COMPARE_BURST] = "best.burst_bytes_per_s",
	[COMPARE_SUSTAINED] = "best.sustained_bytes_per_s",
	[COMPARE_READ_QD1] = "best.read_iops_qd1",
	[COMPARE_WRITE_QD1] = "best.write_iops_qd1",
	[COMPARE_READ_QD32] = "best.read_iops_qd32",
	[COMPARE_WRITE_QD32] = "best.write_iops_qd32",
	[COMPARE_OPEN] = "best.open_erase_blocks",
	[COMPARE_FIRST_ERROR] = "best.passes_to_first_error",
};

static const char *matched_by(const struct compare_card *card)
{
	if (card->by_identity)
		return "identity";
	return card->path[0] ? "path and size" : "file";
}

/*
 * A card: its name, the figures (the text row), then what only the
 * machine formats carry: where it came from and which cells are best.
 */
static int emit_card(struct render *report, const struct compare_card *card,
		     const struct widths *w, const char *first_heading)
{
	struct row_looks looks;
	struct record rec = { .kind = "compared_card", .layout = &packed };

	set_looks(card, w, first_heading, &looks);
	record_add(&rec, RECORD_LABEL, "name", &looks.cell[0], card->name, 0);
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++) {
		record_add(&rec, compare_columns[c].unit, compare_columns[c].key,
			  &looks.cell[1 + c], NULL, card->value[c]);
		if (c == COMPARE_OPEN)
			record_add(&rec, RECORD_BOOL, "open_erase_blocks_"
				  "at_least", &text_hidden, NULL,
				  isfinite(card->value[c]) ?
				  card->open_at_least : NAN);
		if (c == COMPARE_FIRST_ERROR)
			record_add(&rec, RECORD_BOOL, "passes_to_first_error_"
				  "at_least", &text_hidden, NULL,
				  isfinite(card->value[c]) ?
				  card->first_error_at_least : NAN);
	}
	for (unsigned l = 0; l < COMPARE_LABELS; l++)
		record_add(&rec, RECORD_LABEL, compare_labels[l].key,
			  &looks.cell[1 + COMPARE_COLUMNS + l],
			  card->label_known[l] ? card->label[l] : NULL, 0);
	record_add(&rec, RECORD_LABEL, "path", &text_hidden,
		  card->path[0] ? card->path : NULL, 0);
	record_add(&rec, RECORD_BYTES, "size_bytes", &text_hidden, NULL,
		  card->size_bytes ? (double)card->size_bytes : NAN);
	record_add(&rec, RECORD_LABEL, "matched_by", &text_hidden,
		  matched_by(card), 0);
	record_add(&rec, RECORD_COUNT, "runs", &text_hidden, NULL,
		  card->runs);
	record_add(&rec, RECORD_LABEL, "files", &text_hidden, card->files, 0);
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++)
		if (compare_columns[c].ranked)
			record_add(&rec, RECORD_BOOL, best_keys[c],
				  &text_hidden, NULL, card->best[c]);
	return render_record(report, &rec);
}

static int emit_note(struct render *report, const char *text,
		     const struct text_look *look)
{
	struct record rec = { .kind = "note", .layout = &note_line };

	record_add(&rec, RECORD_LABEL, "note", look, text, 0);
	return render_record(report, &rec);
}

/*
 * What the marks mean, and which rows could not be told apart safely.
 * In text, a blank line before the legend and another after it: the
 * note that follows is no continuation of "+ at least".
 */
static int emit_legend(struct render *report, const struct compare *table)
{
	static const struct text_look paragraph = { .display = TEXT_AS_UNIT,
		.template = "\n%" };
	char text[COMPARE_TEXT * 2];
	unsigned by_path = 0;
	int err;

	snprintf(text, sizeof(text), "* best of its column (or within "
		 "%.0f%% of it), among two cards or more; + at least",
		 COMPARE_TIE_FRACTION * 100);
	err = emit_note(report, text, &paragraph);
	for (unsigned i = 0; i < table->card_count; i++)
		by_path += !table->cards[i].by_identity &&
			   table->cards[i].path[0];
	if (by_path) {
		snprintf(text, sizeof(text), "%u of %u card%s matched by "
			 "path and size: their runs saved no identity, so "
			 "two cards of one size used in one reader would be "
			 "taken for one", by_path, table->card_count,
			 table->card_count == 1 ? "" : "s");
		err = err ? err : emit_note(report, text, &paragraph);
	}
	for (unsigned i = 0; !err && i < table->note_count; i++)
		err = emit_note(report, table->notes[i],
				i == 0 && !by_path ? &paragraph : NULL);
	return err;
}

int compare_report(const struct compare *table, enum render_format format,
		   const char *command, FILE *out)
{
	const struct render_meta meta = { .test = "compare",
					  .command = command };
	char first[HEADING_MAX];
	struct render *report;
	struct widths w;
	int err = 0;

	measure_widths(table, &w);
	heading(table, &w, first, sizeof(first));
	report = render_open(out, format, &meta);
	if (!report)
		return -ENOMEM;
	for (unsigned i = 0; !err && i < table->card_count; i++)
		err = emit_card(report, &table->cards[i], &w,
				i == 0 ? first : NULL);
	if (!err)
		err = emit_legend(report, table);
	/* it measures nothing: the accounting is null */
	if (render_close(report, NULL, false) && !err)
		err = -EIO;
	return err;
}

int compare_plot(const struct compare *table, FILE *out)
{
	const char *names[COMPARE_MAX_CARDS];
	const char *groups[COMPARE_COLUMNS];
	enum record_unit units[COMPARE_COLUMNS];
	double values[COMPARE_COLUMNS * COMPARE_MAX_CARDS];
	struct plot_bars bars = { .title = "flashbench --compare",
		.series = names, .series_count = table->card_count,
		.groups = groups, .units = units, .values = values };

	for (unsigned i = 0; i < table->card_count; i++)
		names[i] = table->cards[i].name;
	for (unsigned c = 0; c < COMPARE_COLUMNS; c++) {
		if (!compare_columns[c].ranked)
			continue;
		groups[bars.group_count] = compare_columns[c].title;
		units[bars.group_count] = compare_columns[c].unit;
		for (unsigned i = 0; i < table->card_count; i++)
			values[bars.group_count * table->card_count + i] =
				table->cards[i].value[c];
		bars.group_count++;
	}
	return plot_write_bars(&bars, out);
}

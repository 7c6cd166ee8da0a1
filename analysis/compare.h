/*
 * compare: saved runs of several cards read back into one table for
 * --compare - a row per card, a column per figure.  Documents of any
 * test (schema 1 to 3) give what they measured; the runs of one card
 * (the same device identity, else the same path and size) combine into
 * its row, and the best value of each column is marked.  No device is
 * touched and nothing is printed here: records/compare.c renders the table.
 */
#ifndef FLASHBENCH_COMPARE_H
#define FLASHBENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/findings.h"
#include "lib/jsonparse.h"
#include "lib/record.h"

#define COMPARE_MAX_RUNS 64		/* documents read */
#define COMPARE_MAX_CARDS COMPARE_MAX_RUNS
#define COMPARE_MAX_NOTES 32
/*
 * A value this close to the column's best is marked best too: runs of
 * one card differ by a percent or two, so a closer lead is no lead.
 */
#define COMPARE_TIE_FRACTION 0.02

/* The numeric columns, in the table's order. */
enum compare_column {
	COMPARE_SEQ_READ,	/* -t */
	COMPARE_SEQ_WRITE,	/* --write-speed, else --class-check */
	COMPARE_BURST,		/* before a write cache's end, the same */
	COMPARE_CACHE,		/* bytes written before the rate fell */
	COMPARE_SUSTAINED,	/* the rate after it */
	COMPARE_READ_QD1,	/* 4 KiB random IOPS at queue depth 1 */
	COMPARE_WRITE_QD1,
	COMPARE_READ_QD32,	/* ... and at queue depth 32 */
	COMPARE_WRITE_QD32,
	COMPARE_ERASE,		/* erase block: --detect, -a, --analyze */
	COMPARE_OPEN,		/* open erase blocks: --detect --write, -O */
	COMPARE_USABLE,		/* usable bytes: --capacity-check */
	COMPARE_FIRST_ERROR,	/* passes to the first error: --passes */
	COMPARE_COLUMNS
};

/* The label columns, after the numeric ones. */
enum compare_label {
	COMPARE_CLASSES,	/* highest class passed of each family */
	COMPARE_CAPACITY,	/* --capacity-check's verdict */
	COMPARE_LABELS
};

struct compare_column_def {
	const char *key;	/* CSV column and JSON member */
	const char *title;	/* the text table's heading */
	enum record_unit unit;
	bool ranked;		/* higher is better: its best is marked */
};

extern const struct compare_column_def compare_columns[COMPARE_COLUMNS];
extern const struct compare_column_def compare_labels[COMPARE_LABELS];

#define COMPARE_TEXT 160

/* One value of a column from one document, and how good a source. */
struct compare_values {
	double value[COMPARE_MAX_RUNS];
	unsigned count;
	unsigned rank;		/* 0 the test made for it; higher: others */
};

struct compare_raw;		/* -a and -O records kept for the analysis */

/* A row: one card, all its runs combined. */
struct compare_card {
	char key[2 * COMPARE_TEXT];	/* what its runs are grouped by */
	bool by_identity;		/* else by path and size */
	char name[COMPARE_TEXT];	/* card name, model or path */
	unsigned name_rank;		/* 0 a card name, 1 a model, 2 a path */
	char path[COMPARE_TEXT];
	uint64_t size_bytes;		/* 0: not known */
	unsigned runs;
	char files[2 * COMPARE_TEXT];	/* the documents' base names */
	/* the figures: NAN where no run measured it */
	double value[COMPARE_COLUMNS];
	bool best[COMPARE_COLUMNS];
	bool open_at_least;		/* the open count is a lower bound */
	bool first_error_at_least;	/* no error yet: it comes later */
	char label[COMPARE_LABELS][COMPARE_TEXT];	/* "" not known */
	bool label_known[COMPARE_LABELS];
	/* gathered while reading */
	unsigned measures;		/* figures, labels and -a/-O records */
	struct compare_values values[COMPARE_COLUMNS];
	unsigned open_at_least_votes;
	unsigned first_error_at_least_votes;
	struct compare_raw *raw;
};

/* A file read, by device and inode: given twice, it counts once. */
struct compare_file {
	uint64_t device;
	uint64_t inode;
	const char *path;	/* as given; the caller keeps it */
};

struct compare {
	struct compare_card cards[COMPARE_MAX_CARDS];
	unsigned card_count;
	unsigned run_count;
	struct compare_file files[COMPARE_MAX_RUNS];
	unsigned file_count;
	char notes[COMPARE_MAX_NOTES][COMPARE_TEXT];
	unsigned note_count;
};

/* A table with no cards, on the heap (it is large); NULL: no memory. */
struct compare *compare_new(void);
void compare_free(struct compare *table);

/*
 * Add a flashbench document (file names it in notes and the row).
 * Returns 0, -EINVAL when doc is no flashbench document or names no
 * device and gives no figure (--decode-*, --list-programs: no card
 * measured; why in err), -E2BIG past COMPARE_MAX_RUNS or -ENOMEM.  After
 * an error the table is fit only for compare_free.
 */
int compare_add(struct compare *table, const struct json_value *doc,
		const char *file, char *err, size_t errlen);

/*
 * Read the document at path and add it; a file read before (the same
 * device and inode, whatever the name) is not read again, and a note
 * says so.  Returns compare_add's codes or saved_run_load's (-ENOENT,
 * -EISDIR, -EIO, -EINVAL for text that is not JSON...), with why in err.
 * path must outlive the table.
 */
int compare_add_file(struct compare *table, const char *path, char *err,
		     size_t errlen);

/*
 * After the last document: each figure from its runs (the median of the
 * best source's values), the erase block and open erase blocks from -a
 * and -O records, and the best of each ranked column marked.
 */
void compare_finish(struct compare *table);

#endif

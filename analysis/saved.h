/*
 * saved: flashbench's own JSON documents read back - the runs --plot
 * draws and --compare tables, a saved --report's parts and --report's
 * parts as they end.  Documents of schema 1 and 2 are read too: their
 * keys are renamed, on reading, to the schema-3 names through the one
 * table here, so every reader above asks for schema-3 keys only.
 */
#ifndef FLASHBENCH_SAVED_H
#define FLASHBENCH_SAVED_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/jsonparse.h"
#include "lib/record.h"
#include "vm.h"

#define SAVED_MAX_FILE (64 << 20)	/* largest document read */
#define SAVED_MAX_PARAMS 32

/*
 * Parse length bytes of text into *doc, its keys under their schema-3
 * names.  Returns json_parse's codes (0, -EINVAL, -ENOMEM), why in err.
 */
int saved_run_parse(const char *text, size_t length, struct json_value **doc,
		    char *err, size_t errlen);

/*
 * Read the file at path (at most max_bytes) and parse it as
 * saved_run_parse does.  Returns 0; -EISDIR for a directory, -EFBIG past
 * max_bytes, the negative errno of opening or reading it (-ENOENT,
 * -EACCES, -EIO), or json_parse's -EINVAL or -ENOMEM; why in err.
 */
int saved_run_load(const char *path, size_t max_bytes,
		   struct json_value **doc, char *err, size_t errlen);

/* The schema-3 name of a member of a record of kind (NULL: any). */
const char *saved_key(const char *kind, const char *key);

/* A run of any test, schema 1 to 3, with "test" and "results"? */
bool saved_is_run(const struct json_value *doc);
/* A saved --report, its parts in an array? */
bool saved_is_report(const struct json_value *doc);

/* A string member, or NULL. */
const char *saved_string(const struct json_value *object, const char *key);
/*
 * A number (or true 1, false 0) at key, which may be dotted into objects
 * ("qd32.read_iops"); NAN when there is none.
 */
double saved_number(const struct json_value *object, const char *key);
/* Is rec a record of kind? */
bool saved_is_kind(const struct json_value *rec, const char *kind);

/*
 * The first record of kind in the document's results (and, when key is
 * not NULL, with the string member key equal to value), or NULL.
 */
const struct json_value *saved_find_record(const struct json_value *doc,
					   const char *kind, const char *key,
					   const char *value);

/* What a run says of itself: the members a chart labels it by. */
struct saved_run {
	const char *test;
	const char *device;		/* NULL: none named */
	struct vm_param params[SAVED_MAX_PARAMS];	/* numbers, flags */
	size_t param_count;
};

/* The run's test, device and parameters; -EINVAL when it is no run. */
int saved_run_read(const struct json_value *doc, struct saved_run *run);

/*
 * Each element of the run's "results" to sink as a record: its numbers
 * (null as NAN, arrays as the key repeated) with the units "units"
 * gives, labels left out.  Returns 0, the sink's error, or -EINVAL for
 * an element that is no object; with the element named in err.
 */
int saved_run_records(const struct json_value *doc,
		      const struct record_sink *sink, char *err,
		      size_t errlen);

#endif

/*
 * prog: the words of the program language (opcodes, series, reducers,
 * units, patterns, text formats) as tables indexed by their enums, and
 * their names.  It neither parses, lists nor runs.
 */
#include <stdlib.h>

#include "vm/prog.h"

/* Opcode properties, indexed by the enum so their order cannot drift. */
const struct vm_op_info vm_op_table[] = {
	[VM_READ] = { "read", 2, true },
	[VM_WRITE] = { "write", 2, true },
	[VM_DISCARD] = { "discard", 2, true },
	[VM_STAMP] = { "stamp", 2, true },
	[VM_VERIFY] = { "verify", 2, true },
	[VM_REPEAT] = { "repeat", 1, true },
	[VM_FOR] = { "for", 0, true },
	[VM_FOR_TIME] = { "for", 0, true },
	[VM_LET] = { "let", 0, false },
	[VM_REPORT] = { "report", 0, false },
	[VM_NEWLINE] = { "newline", 0, false },
};
_Static_assert(sizeof(vm_op_table) / sizeof(vm_op_table[0]) == VM_OP_COUNT,
	       "one vm_op_table row per opcode");

const struct vm_word vm_series_table[] = {
	[VM_SERIES_POW2] = { "pow2", 2 },
	[VM_SERIES_LINEAR] = { "linear", 3 },
	[VM_SERIES_SHUFFLE] = { "shuffle", 3 },
	[VM_SERIES_ALIGNS] = { "aligns", 3 },
	[VM_SERIES_BOUNDARIES] = { "boundaries", 4 },
	[VM_SERIES_PERMUTE] = { "permute", 3 },
};
_Static_assert(sizeof(vm_series_table) / sizeof(vm_series_table[0]) ==
	       VM_SERIES_COUNT, "one vm_series_table row per series");

const char *const vm_reduce_names[] = {
	[VM_REDUCE_NONE] = "none", [VM_REDUCE_MIN] = "min",
	[VM_REDUCE_MAX] = "max", [VM_REDUCE_AVG] = "avg",
	[VM_REDUCE_TOTAL] = "total", [VM_REDUCE_RUNS] = "runs",
	[VM_REDUCE_P50] = "p50", [VM_REDUCE_P99] = "p99",
};
_Static_assert(sizeof(vm_reduce_names) / sizeof(vm_reduce_names[0]) ==
	       VM_REDUCE_COUNT, "one name per reducer");

const struct vm_unit_info vm_unit_table[] = {
	[VM_WORD_BYTES] = { "bytes", 1, RECORD_BYTES, TEXT_AS_UNIT },
	[VM_WORD_SIZE] = { "size", 1, RECORD_BYTES, TEXT_SIZE },
	[VM_WORD_TIME] = { "time", 1, RECORD_TIME, TEXT_AS_UNIT },
	[VM_WORD_RATE] = { "rate", 2, RECORD_RATE, TEXT_AS_UNIT },
	[VM_WORD_MIB] = { "mib", 1, RECORD_BYTES, TEXT_MIB },
	[VM_WORD_MS] = { "ms", 1, RECORD_TIME, TEXT_MS },
	[VM_WORD_MBPS] = { "mbps", 2, RECORD_RATE, TEXT_MBPS },
	[VM_WORD_COUNT] = { "count", 1, RECORD_COUNT, TEXT_AS_UNIT },
	[VM_WORD_LABEL] = { "label", 0, RECORD_LABEL, TEXT_AS_UNIT },
	[VM_WORD_BOOL] = { "bool", 1, RECORD_BOOL, TEXT_AS_UNIT },
};
_Static_assert(sizeof(vm_unit_table) / sizeof(vm_unit_table[0]) ==
	       VM_UNIT_WORD_COUNT, "one vm_unit_table row per unit word");

const char *const vm_pattern_names[] = {
	[DEV_PATTERN_ZEROS] = "zeros", [DEV_PATTERN_ONES] = "ones",
	[DEV_PATTERN_RANDOM] = "random",
};
_Static_assert(sizeof(vm_pattern_names) / sizeof(vm_pattern_names[0]) ==
	       DEV_PATTERN_COUNT, "one name per pattern");

const char *const vm_style_names[] = {
	[TEXT_COLUMNS] = "columns", [TEXT_TABS] = "tabs",
	[TEXT_SPACES] = "spaces", [TEXT_PACKED] = "packed",
};
_Static_assert(sizeof(vm_style_names) / sizeof(vm_style_names[0]) ==
	       TEXT_STYLE_COUNT, "one name per text format");


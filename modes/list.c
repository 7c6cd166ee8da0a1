/*
 * list: --list-programs, each built-in test program as a record: its
 * name, its summary and its listing as compiled with the defaults.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/die.h"
#include "modes/list.h"
#include "modes/run.h"
#include "modes/sinks.h"
#include "vm/compile.h"
#include "vm/list.h"
#include "vm/programs.h"

static void print_line(void *ctx, const char *line)
{
	fprintf(ctx, "%s\n", line);
}

/*
 * A built-in program as a record of kind "program": name, summary and
 * the listing; text prints it as "# name: summary", the listing, a blank
 * line.
 */
static const struct text_look program_looks[] = {
	{ .display = TEXT_AS_UNIT, .template = "# %:" },
	{ .display = TEXT_AS_UNIT, .template = "%\n" },
	{ .display = TEXT_AS_UNIT, .template = "%" },
};
static const struct text_layout program_layout = {
	.style = TEXT_SPACES, .looks = program_looks, .look_count = 3 };

static void emit_program(struct render *report, const struct program_def *def,
			 const char *listing)
{
	struct record rec = { .kind = "program", .count = 3,
				 .layout = &program_layout };

	rec.fields[0] = (struct record_field){ RECORD_LABEL, "name", NULL,
					   def->name, 0 };
	rec.fields[1] = (struct record_field){ RECORD_LABEL, "summary", NULL,
					   def->summary, 0 };
	rec.fields[2] = (struct record_field){ RECORD_LABEL, "text", NULL,
					   listing, 0 };
	render_record(report, &rec);
}

int mode_list(struct config *cfg)
{
	FILE *out = mode_open_output(cfg);
	struct render_meta meta = { .test = "list-programs",
				    .command = cfg->command };
	struct render *report = render_open(out, cfg->format, &meta);
	struct program_params params;
	int err = 0;

	if (!report)
		runtime_error("out of memory");
	/* compiled with the options' values: the table's defaults */
	mode_set_option_params(cfg, &params);
	for (size_t i = 0; i < programs_count; i++) {
		struct vm_program *program;
		struct vm_diag diag;
		char *listing = NULL;
		size_t listing_bytes = 0;
		FILE *text = open_memstream(&listing, &listing_bytes);

		if (!text)
			runtime_error("out of memory");
		if (vm_compile(programs[i].text, params.slot,
			       PARAM_COUNT_OF, &program, &diag))
			runtime_error("built-in %s:%u:%u: %s",
				      programs[i].name, diag.line,
				      diag.column, diag.message);
		vm_list(program, print_line, text);
		vm_free(program);
		if (fclose(text))
			runtime_error("out of memory");
		emit_program(report, &programs[i], listing);
		free(listing);
	}
	err = render_close(report, NULL, false);
	mode_close_output(cfg, out, err);
	return 0;
}


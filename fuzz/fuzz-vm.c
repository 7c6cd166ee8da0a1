/*
 * fuzz-vm: --program text through the compiler, the listing, the planner
 * and, when the plan is small, the interpreter, on a fake device that does
 * no I/O.  The built-in programs' parameters are set to a small card.
 * With FUZZ_VM_LISTING=1 in the environment a listing must also compile
 * again to the same listing (off by default: vm_list writes numbers from
 * 1e17 up with an exponent and cuts expressions past 45 characters).
 */
#include "fuzz.h"
#include "vm/programs.h"
#include "vm.h"
#include "vm/compile.h"
#include "vm/list.h"

#define DEVICE_BYTES (8u << 20)
#define MAX_OPERATIONS 2000
#define MAX_TRANSFER (256u << 10)	/* larger plans are not run */

static int fake_io(uint64_t *ns)
{
	*ns = 1000;
	return 0;
}

static int fake_read(struct dev *dev, void *buf, uint64_t offset,
		     uint64_t length, uint64_t *ns)
{
	(void)dev;
	(void)buf;
	(void)offset;
	(void)length;
	return fake_io(ns);
}

static int fake_write(struct dev *dev, const void *buf, uint64_t offset,
		      uint64_t length, uint64_t *ns)
{
	(void)dev;
	(void)buf;
	(void)offset;
	(void)length;
	return fake_io(ns);
}

static int fake_discard(struct dev *dev, uint64_t offset, uint64_t length,
			uint64_t *ns)
{
	(void)dev;
	(void)offset;
	(void)length;
	return fake_io(ns);
}

static const struct dev_ops fake_ops = {
	.name = "fake", .read = fake_read, .write = fake_write,
	.discard = fake_discard,
};

static void set_params(struct program_params *params)
{
	struct vm_param *p = params->slot;

	program_params_init(params);
	p[PARAM_SIZE].value = DEVICE_BYTES;
	p[PARAM_LBS].value = 512;
	p[PARAM_BLOCKSIZE].value = 4096;
	p[PARAM_ERASESIZE].value = 1 << 20;
	p[PARAM_COUNT].value = 2;
	p[PARAM_OFFSET].value = 1 << 20;
	p[PARAM_NR].value = 2;
	p[PARAM_SPACING].value = 2 << 20;
	p[PARAM_FATNR].value = 2;
	p[PARAM_THREES].value = 1;
	p[PARAM_SCATTER_COUNT].value = 16;
	p[PARAM_SCATTER_BYTES].value = 4096;
	p[PARAM_INTERVAL_TOP].value = 64 << 10;
	p[PARAM_REGION].value = 4 << 20;
}

struct listing {
	char *text;
	size_t length, cap;
};

static void list_line(void *ctx, const char *text)
{
	struct listing *l = ctx;
	size_t n = strlen(text);

	if (l->length + n + 2 > l->cap) {
		l->cap = 2 * (l->length + n + 2);
		l->text = realloc(l->text, l->cap);
		if (!l->text)
			abort();
	}
	memcpy(l->text + l->length, text, n);
	l->length += n;
	l->text[l->length++] = '\n';
	l->text[l->length] = '\0';
}

/* Compile a listing again and list it: the same text. */
static void check_listing(const struct program_params *params,
			  const struct listing *first)
{
	struct listing second = { 0 };
	struct vm_program *program;
	struct vm_diag diag;

	if (vm_compile(first->text, params->slot, PARAM_COUNT_OF, &program,
		       &diag))
		abort();
	vm_list(program, list_line, &second);
	vm_free(program);
	if (!second.text || strcmp(first->text, second.text))
		abort();
	free(second.text);
}

static int emit(void *ctx, const struct record *record)
{
	(void)ctx;
	if (record->count > RECORD_MAX_FIELDS)
		abort();
	for (unsigned i = 0; i < record->count; i++)
		if (!record->fields[i].key)
			abort();
	return 0;
}

static void run(const struct vm_program *program)
{
	struct dev dev = { .ops = &fake_ops, .path = "fake", .fd = -1,
			   .mode = DEV_READ_WRITE, .size_bytes = DEVICE_BYTES,
			   .logical_block_bytes = 512,
			   .write_end = UINT64_MAX };
	struct vm_exec exec = { .dev = &dev, .sink = { emit, NULL },
				.max_operations = MAX_OPERATIONS };
	struct vm_plan plan;

	if (vm_plan(program, &dev, MAX_OPERATIONS, &plan))
		return;
	if (plan.operations > MAX_OPERATIONS)
		abort();
	if (plan.max_length <= MAX_TRANSFER)
		vm_run(program, &plan, &exec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct vm_program *program;
	struct vm_diag diag;
	struct listing listing = { 0 };
	struct program_params params;

	if (!text)
		return 0;
	set_params(&params);
	if (vm_compile(text, params.slot, PARAM_COUNT_OF, &program,
		       &diag) == 0) {
		vm_list(program, list_line, &listing);
		run(program);
		vm_free(program);
		if (listing.text && getenv("FUZZ_VM_LISTING"))
			check_listing(&params, &listing);
		free(listing.text);
	} else if (!memchr(diag.message, '\0', sizeof(diag.message))) {
		abort();
	}
	free(text);
	return 0;
}

/*
 * fuzz-analyze: --analyze input, pasted align and open-AU output, parsed
 * and reported as text and as JSON.
 */
#include "analyze.h"
#include "fuzz.h"

/* about 350 KiB: not on the stack */
static struct analyze_result result;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct analyze_findings findings;

	if (!text)
		return 0;
	if (analyze_text(text, &result) == 0) {
		if (result.point_count > ANALYZE_MAX_POINTS ||
		    result.run_count > ANALYZE_MAX_RUNS)
			abort();
		analyze_findings(&result, &findings);
		analyze_report(&result, false, fuzz_null());
		analyze_report(&result, true, fuzz_null());
	}
	free(text);
	return 0;
}

/*
 * fuzz-analyze: --analyze input, pasted align and open-AU output, parsed
 * and reported in every format.
 */
#include "analysis/pasted.h"
#include "fuzz.h"
#include "records/analyze.h"

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
		for (int format = 0; format < RENDER_FORMAT_COUNT; format++)
			analyze_report(&result, (enum render_format)format,
				       NULL, fuzz_null());
	}
	free(text);
	return 0;
}

/*
 * fuzz-info: the CID, CSD, SCR and SSR decoders, each given the input as
 * it is and, for CID and CSD, after "mmc:", printed as text and as JSON.
 */
#include "fuzz.h"
#include "records/info.h"

static void decode(const char *kind, const char *hex)
{
	char err[256];

	err[0] = '\0';
	for (int format = 0; format < RENDER_FORMAT_COUNT; format++)
		info_decode(kind, hex, (enum render_format)format, NULL,
			    fuzz_null(), err, sizeof(err));
	if (!memchr(err, '\0', sizeof(err)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	char *mmc;

	if (!text)
		return 0;
	mmc = malloc(strlen(text) + 5);
	if (mmc) {
		strcpy(mmc, "mmc:");
		strcat(mmc, text);
		decode("cid", mmc);
		decode("csd", mmc);
		free(mmc);
	}
	decode("cid", text);
	decode("csd", text);
	decode("scr", text);
	decode("ssr", text);
	free(text);
	return 0;
}

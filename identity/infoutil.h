/*
 * infoutil: the two string helpers the info files share (inforeg.c,
 * infosysfs.c, info.c): an error message into the caller's buffer, and a
 * bounded copy.  Not part of info's interface.
 */
#ifndef FLASHBENCH_INFOUTIL_H
#define FLASHBENCH_INFOUTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 3, 4)))
static inline void info_set_err(char *err, size_t errlen, const char *fmt,
				...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* Copy src into dst of len bytes, cut short if need be. */
static inline void info_copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

#endif

/*
 * sysattr: reading one sysfs, debugfs or procfs attribute, bounded and
 * without blocking (see sysattr.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/sysattr.h"

/* What a file that is not a regular file is, for the reason given. */
static const char *file_kind(mode_t mode)
{
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "of an unknown kind";
}

static ssize_t refuse(int err, char *why, size_t why_size, const char *text)
{
	if (why && why_size)
		snprintf(why, why_size, "%s", text);
	return -err;
}

/* 0 for a regular file; else -EINVAL, saying what it is instead. */
static ssize_t check_regular(mode_t mode, char *why, size_t why_size)
{
	char text[SYSATTR_WHY_BYTES];

	if (S_ISREG(mode))
		return 0;
	snprintf(text, sizeof(text), "not a regular file (%s)",
		 file_kind(mode));
	return refuse(EINVAL, why, why_size, text);
}

/* The open file checked again: the name may lead elsewhere by now. */
static ssize_t check_open_regular(int fd, char *why, size_t why_size)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		return refuse(errno, why, why_size, strerror(errno));
	return check_regular(st.st_mode, why, why_size);
}

/* Up to SYSATTR_MAX_BYTES + 1 bytes: one more tells a file too large. */
static ssize_t read_bounded(int fd, char *page, size_t *length)
{
	ssize_t n;

	*length = 0;
	while (*length <= SYSATTR_MAX_BYTES) {
		n = read(fd, page + *length, SYSATTR_MAX_BYTES + 1 - *length);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		*length += (size_t)n;
	}
	return 0;
}

/* Keep what fits of length bytes of page in buf, NUL-terminated. */
static ssize_t copy_value(char *buf, size_t size, const char *page,
			  size_t length)
{
	size_t kept = length < size ? length : size - 1;

	memcpy(buf, page, kept);
	buf[kept] = '\0';
	return (ssize_t)kept;
}

ssize_t sysattr_read(const char *path, char *buf, size_t size, char *why,
		     size_t why_size)
{
	char page[SYSATTR_MAX_BYTES + 1], text[SYSATTR_WHY_BYTES];
	size_t length = 0;
	struct stat st;
	ssize_t err;
	int fd;

	if (why && why_size)
		why[0] = '\0';
	buf[0] = '\0';
	/* no other kind of file is even opened: opening a device can act */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return check_regular(st.st_mode, why, why_size);
	/* O_NONBLOCK: should a FIFO be put there now, it opens at once */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0 && (errno == ENOENT || errno == ENOTDIR))
		return -errno;
	if (fd < 0)
		return refuse(errno, why, why_size, strerror(errno));
	err = check_open_regular(fd, why, why_size);
	if (!err)
		err = read_bounded(fd, page, &length);
	close(fd);
	if (err < 0 && why && why_size && !why[0])
		snprintf(why, why_size, "%s", strerror((int)-err));
	if (err < 0)
		return err;
	if (length > SYSATTR_MAX_BYTES) {
		snprintf(text, sizeof(text), "larger than %d bytes, more than "
			 "any attribute holds", SYSATTR_MAX_BYTES);
		return refuse(EFBIG, why, why_size, text);
	}
	return copy_value(buf, size, page, length);
}

/*
 * modes/undofile: the undo file's path, its checks and its words, for
 * every mode that writes one (undofile.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "lib/die.h"
#include "measure/undo/format.h"
#include "measure/undo/proof.h"
#include "measure/undo/trust.h"
#include "measure/undo/undo.h"
#include "modes/run.h"
#include "modes/undofile.h"

const char *mode_undo_path(const struct config *cfg, char *buf, size_t size,
			  char *why, size_t why_size)
{
	if (cfg->undo_path)
		return cfg->undo_path;
	if (undo_default_path(cfg->device, buf, size, why, why_size))
		return NULL;
	return buf;
}

const char *mode_undo_choose(const struct config *cfg, char *buf,
			    size_t size)
{
	char why[MESSAGE_PATH_BYTES];
	const char *path = mode_undo_path(cfg, buf, size, why, sizeof(why));

	if (!path)
		usage_error("--undo-file: %s", why);
	return path;
}

int mode_check_new_file(const struct config *cfg, const char *option,
			const char *noun, const char *path)
{
	char why[MESSAGE_PATH_BYTES];
	int err = undo_check_new(path, noun, why, sizeof(why));

	if (err == -EEXIST)
		return err;
	if (err)
		usage_error("%s: %s: %s", option, path, why);
	/* why is set for -EXDEV only: other errors are the directory's */
	err = undo_check_location(path, noun, cfg->device, why, sizeof(why));
	if (err == -EXDEV)
		usage_error("%s: %s; put it on another device", option, why);
	if (err)
		usage_error("%s: %s: %s", option, path, strerror(-err));
	return 0;
}

void mode_undo_check_new(const struct config *cfg, const char *undo_path)
{
	char command[UNDOFILE_HINT_BYTES];

	if (mode_check_new_file(cfg, "--undo-file", "undo file", undo_path) ==
	    -EEXIST)
		usage_error("--undo-file: %s exists (left by a run that did "
			    "not finish? %s puts its blocks back); remove it "
			    "to start over", undo_path,
			    mode_undo_command(command, sizeof(command),
					     undo_path, cfg->device));
}

void mode_undo_check_staged(const char *option, const char *undo_path)
{
	char staged[PATH_MAX], why[MESSAGE_PATH_BYTES];

	if (undo_staged_name(undo_path, staged, sizeof(staged)))
		usage_error("%s: %s: %s", option, undo_path,
			    strerror(ENAMETOOLONG));
	if (undo_check_stale(staged, undo_magic_header, why, sizeof(why)))
		usage_error("%s: %s %s; --keep-data saves each chunk there "
			    "first: move it away or choose another undo file",
			    option, staged, why);
}

const char *mode_undo_command(char *buf, size_t size, const char *undo_path,
			     const char *device)
{
	snprintf(buf, size, "%s --restore=%s %s", die_program_name, undo_path,
		 device);
	return buf;
}

const char *mode_undo_kept(char *buf, size_t size, const char *undo_path,
			  const char *device)
{
	char command[UNDOFILE_HINT_BYTES];

	snprintf(buf, size, "the undo file %s is kept: %s", undo_path,
		 mode_undo_command(command, sizeof(command), undo_path,
				  device));
	return buf;
}

void mode_undo_print_damage(const char *device, const struct undo_damage *d)
{
	static const char *const why[] = {
		[UNDO_DAMAGED] = "their record in the undo file is damaged",
		[UNDO_CUT] = "the undo file ends inside their record, and "
			     "the run wrote there",
		[UNDO_LOST] = "the run's stamps lie there, and the undo file "
			      "holds no record of what those blocks held",
	};

	if (d->range_known)
		fprintf(stderr, "%s: %s: bytes %llu to %llu not put back: "
			"%s\n", die_program_name, device,
			(unsigned long long)d->offset,
			(unsigned long long)(d->offset + d->length - 1),
			why[d->cause]);
	else
		fprintf(stderr, "%s: %s: the undo file's bytes %llu to %llu "
			"are %s; the blocks they held are not known\n",
			die_program_name, device,
			(unsigned long long)d->file_offset,
			(unsigned long long)(d->file_offset + d->file_bytes -
					     1), d->cause == UNDO_CUT ?
			"a record cut short" : "damaged");
}

/*
 * The proof undo_check_file gathered, judged: 0 to go on (saying so
 * when the device's identity is another's, or the file is FBUNDO01), or
 * -ENODEV (another device: exit 2) or -ESTALE (this device, written
 * since: exit 1) with why set.  A failure of the device ends here.
 */
static int check_undo_proof(const struct config *cfg, const char *path,
			    int undo_fd, struct dev *dev, char *why,
			    size_t size)
{
	struct undo_proof proof;
	char what[MESSAGE_BYTES];
	int err = undo_check_file(undo_fd, dev, &proof, why, size);

	if (err && !why[0])
		runtime_error("%s: %s", cfg->device,
			      dev_strerror(dev, what, sizeof(what)));
	if (!err && !proof.proven)
		snprintf(why, size, proof.identity_differs ?
			 "it was made for another device of the same size "
			 "(its identity differs, and the block at %llu holds "
			 "data the file neither saved nor wrote)" :
			 "the block at %llu holds data the file neither saved "
			 "nor wrote (written since the check?); nothing was "
			 "put back", (unsigned long long)proof.first_unexplained);
	if (!err && !proof.proven)
		return proof.identity_differs ? -ENODEV : -ESTALE;
	if (!err && proof.version == 1)
		fprintf(stderr, "%s: --restore: %s: an FBUNDO01 file (from an "
			"older flashbench): its records are read up to the "
			"first damaged one, none after it\n", die_program_name,
			path);
	if (!err && proof.identity_differs)
		fprintf(stderr, "%s: --restore: %s: %s is not the device the "
			"file names (its identity differs), but each of the "
			"%llu blocks it recorded below %llu holds what the file "
			"saved or wrote: restoring\n", die_program_name,
			path, cfg->device,
			(unsigned long long)proof.blocks_read,
			(unsigned long long)proof.usable_bytes);
	return err;
}

/*
 * Before --restore writes anything: is the undo file one only this user
 * could have written, and this device's?  Its descriptor, opened once:
 * the restore reads what was checked, whatever the name means by then.
 */
int mode_undo_open_proven(const struct config *cfg, const char *option,
			 const char *path)
{
	char why[MESSAGE_PATH_BYTES];
	struct dev dev;
	int undo_fd = undo_open_trusted(path, "undo file", why,
				       sizeof(why));
	int err;

	if (undo_fd == -EPERM)
		usage_error("%s: %s: %s", option, path, why);
	if (undo_fd < 0)
		runtime_error("%s: %s: %s", option, path, why);
	mode_open_device(cfg, &dev, DEV_READ_ONLY);
	err = check_undo_proof(cfg, path, undo_fd, &dev, why, sizeof(why));
	dev_close(&dev);
	if (err == -ENODEV || err == -EINVAL)
		usage_error("%s: %s: %s", option, path, why);
	/* a damaged file is no wrong argument: a failure, the file kept */
	if (err == -EBADMSG)
		runtime_error("%s: %s: %s; the file is kept", option, path,
			      why);
	if (err)
		runtime_error("%s: %s: %s", option, path, why);
	return undo_fd;
}

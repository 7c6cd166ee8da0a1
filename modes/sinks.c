/*
 * sinks: a run's output, the same for every test: the report on standard
 * output or --out, a --plot chart and the progress line beside it.
 * Records reach all of them through mode_emit_to_sinks.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/die.h"
#include "modes/sinks.h"

int mode_emit_to_sinks(void *ctx, const struct record *record)
{
	struct sinks *sinks = ctx;

	progress_clear(&sinks->progress);
	sinks->records++;
	if (sinks->also_json && render_record(sinks->also_json, record))
		return sinks->emit_error = -EIO;
	if (sinks->plot && plot_record(sinks->plot, record))
		return sinks->emit_error = -ENOMEM;
	return sinks->emit_error = record_emit(&sinks->next, record);
}

/* vm_exec.on_progress: the sinks are its ctx */
void mode_show_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct sinks *sinks = ctx;

	progress_update(&sinks->progress, done, total);
}

/*
 * Output files named on the command line (-o, --plot) are files: a
 * regular file, new or not, a FIFO or pipe (/dev/fd/N), a character
 * device such as /dev/null.  A block device - the one under test or any
 * other - or a directory is refused, named directly or through a link:
 * results written there would overwrite what it holds.
 */
static void refuse_output_kind(const char *option, const char *path,
			       mode_t mode)
{
	if (S_ISBLK(mode))
		usage_error("%s: %s: is a block device; give a file", option,
			    path);
	if (S_ISDIR(mode))
		usage_error("%s: %s: is a directory; give a file", option,
			    path);
}

/*
 * An output file that is also what the run reads would be lost: the same
 * file (out, from stat), or for one not made yet (out NULL) the same name.
 */
static void refuse_output_over(const char *option, const char *path,
			       const struct stat *out, const char *input,
			       const char *what)
{
	struct stat st;

	if (!input || strcmp(input, "-") == 0)
		return;
	if (out ? stat(input, &st) == 0 && st.st_dev == out->st_dev &&
		  st.st_ino == out->st_ino : strcmp(input, path) == 0)
		usage_error("%s: %s: is %s; give another file", option, path,
			    what);
}

static void check_output_path(const struct config *cfg, const char *option,
			      const char *path)
{
	struct stat st;
	const struct stat *out = &st;

	if (!path)
		return;
	if (!*path)
		usage_error("%s: the file name is empty", option);
	if (stat(path, &st) != 0)
		out = NULL;	/* a new file, or one open() says why not */
	else
		refuse_output_kind(option, path, st.st_mode);
	if (out && !S_ISREG(st.st_mode))
		return;		/* a pipe or /dev/null holds nothing to lose */
	if (path == cfg->plot_path)
		refuse_output_over(option, path, out, cfg->out_path,
				   "the -o file too");
	refuse_output_over(option, path, out, cfg->device,
			   "the device under test");
	for (size_t i = 0; i < cfg->file_count; i++)
		refuse_output_over(option, path, out, cfg->files[i],
				   "one of the files to analyze");
	for (int i = 0; i < cfg->plot_input_count; i++)
		refuse_output_over(option, path, out, cfg->plot_inputs[i],
				   "one of the runs to draw");
}

/* "-" names standard output, for -o and --plot alike. */
bool mode_is_stdout_name(const char *path)
{
	return path && strcmp(path, "-") == 0;
}

/*
 * Where results and charts go, checked once the options are: before
 * any device is opened or anything announced.  Results on standard
 * output that the shell pointed at a block device are refused as well.
 */
void mode_check_outputs(struct config *cfg)
{
	bool plot_to_stdout = mode_is_stdout_name(cfg->plot_path);
	struct stat st;

	if (mode_is_stdout_name(cfg->out_path))
		cfg->out_path = NULL;	/* -o - is standard output */
	if (plot_to_stdout && !cfg->plot_inputs && !cfg->out_path)
		usage_error("--plot: - is standard output, where the results "
			    "go too; give the results a file with -o");
	check_output_path(cfg, "-o", cfg->out_path);
	if (!plot_to_stdout)
		check_output_path(cfg, "--plot", cfg->plot_path);
	if ((!cfg->out_path || plot_to_stdout) &&
	    (!cfg->plot_inputs || plot_to_stdout) &&
	    fstat(STDOUT_FILENO, &st) == 0 && S_ISBLK(st.st_mode))
		usage_error("standard output is a block device; give a file "
			    "with -o");
}

/*
 * Open an output file that mode_check_outputs let through.  The name may
 * name something else by now, so nothing is created over or truncated
 * until fstat says what was opened: a block device or a directory is
 * closed unwritten.
 */
static FILE *open_output_file(const char *option, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_NOCTTY | O_CLOEXEC, 0666);
	struct stat st;
	FILE *f;

	if (fd < 0)
		runtime_error("%s: %s", path, strerror(errno));
	if (fstat(fd, &st) != 0)
		runtime_error("%s: %s", path, strerror(errno));
	if (S_ISBLK(st.st_mode) || S_ISDIR(st.st_mode)) {
		close(fd);
		refuse_output_kind(option, path, st.st_mode);
	}
	if (S_ISREG(st.st_mode) && ftruncate(fd, 0) != 0)
		runtime_error("%s: %s", path, strerror(errno));
	f = fdopen(fd, "w");
	if (!f)
		runtime_error("%s: %s", path, strerror(errno));
	return f;
}

FILE *mode_open_plot_output(const struct config *cfg)
{
	return mode_is_stdout_name(cfg->plot_path) ? stdout :
	       open_output_file("--plot", cfg->plot_path);
}

void mode_write_plot(const struct config *cfg, struct plot *plot)
{
	FILE *f = mode_open_plot_output(cfg);

	if (plot_write(plot, f) | (f == stdout ? fflush(f) : fclose(f)))
		runtime_error("%s: write error", cfg->plot_path);
	plot_free(plot);
}

FILE *mode_open_output(const struct config *cfg)
{
	if (cfg->out_path)
		return open_output_file("-o", cfg->out_path);
	return cfg->results_on_stderr ? stderr : stdout;
}

/* The results' stream as a message names it. */
static const char *output_name(const struct config *cfg)
{
	return cfg->out_path ? cfg->out_path : cfg->results_on_stderr ?
	       "standard error" : "standard output";
}

/* Close -o's file; the standard streams stay open, flushed. */
static int close_output(FILE *out)
{
	return out == stdout || out == stderr ? fflush(out) : fclose(out);
}

void mode_output_name_device(const struct config *cfg, const struct dev *dev,
			struct render_meta *meta, struct devname *names)
{
	const struct info_device idev = { .path = cfg->device,
		.size_bytes = dev->size_bytes,
		.logical_block_bytes = dev->logical_block_bytes,
		.simulated = !dev_has(dev, DEV_CAP_HOST_NODE),
		.debugfs_root = cfg->debugfs_root };

	meta->device = cfg->device;
	meta->device_size = dev->size_bytes;
	meta->logical_block_size = dev->logical_block_bytes;
	if (cfg->format != RENDER_JSON)
		return;		/* only JSON's header names them */
	devname_read(&idev, cfg->sysfs_root, names);
	meta->device_identity = names->has_identity ? names->identity : NULL;
	meta->device_name = names->name;
}

/* Start a test's output; meta gets the command line and the device. */
void mode_output_open(const struct config *cfg, const struct dev *dev,
		 struct render_meta *meta, struct sinks *sinks)
{
	*sinks = (struct sinks){ .out = mode_open_output(cfg) };
	meta->command = cfg->command;
	mode_output_name_device(cfg, dev, meta, &sinks->device);
	sinks->report = render_open(sinks->out, cfg->format, meta);
	if (!sinks->report)
		runtime_error("out of memory");
	sinks->next = (struct record_sink){ render_record, sinks->report };
	if (cfg->also_json) {
		sinks->also_json = render_open(cfg->also_json, RENDER_JSON,
					       meta);
		if (!sinks->also_json)
			runtime_error("out of memory");
	}
	if (cfg->plot_path) {
		sinks->plot = plot_new(NULL);
		if (!sinks->plot || plot_begin_run(sinks->plot, meta, NULL))
			runtime_error("out of memory");
	}
	progress_start(&sinks->progress, stderr, meta->test,
		       cfg->format == RENDER_TEXT && !cfg->quiet);
}

/*
 * Finish the report (marked incomplete when err is -EINTR), the output
 * file and the chart.  A record the report or the chart could not take
 * ends the program here.
 */
void mode_output_close(const struct config *cfg, struct sinks *sinks,
		  const struct dev *dev, int err)
{
	const char *name = output_name(cfg);

	progress_end(&sinks->progress);
	if (sinks->emit_error == -ENOMEM)
		runtime_error("out of memory");
	if (sinks->also_json &&
	    render_close(sinks->also_json, &dev->stats, err == -EINTR) &&
	    !err)
		runtime_error("--report: write error");
	if ((render_close(sinks->report, &dev->stats, err == -EINTR) &&
	     !err) || sinks->emit_error)
		runtime_error("%s: write error", name);
	if (close_output(sinks->out))
		runtime_error("%s: write error", name);
	if (sinks->plot)
		mode_write_plot(cfg, sinks->plot);
}

/* The end of output written with mode_open_output: a write error is fatal. */
void mode_close_output(const struct config *cfg, FILE *out, int err)
{
	if (close_output(out))
		err = -EIO;
	if (err)
		runtime_error("%s: write error", output_name(cfg));
}


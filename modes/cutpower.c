/*
 * modes/cutpower: the cut and the way back (cutpower.h).  Commands run
 * through /bin/sh -c with standard input from /dev/null and standard
 * output joined to standard error (the log may be standard output).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/die.h"
#include "modes/cutpower.h"
#include "modes/devwait.h"

extern char **environ;

/* The simulated card's cut: this far into the cycle, in card time. */
#define SIM_CUT_MIN_NS 1000000ULL		/* 1 ms */
#define SIM_CUT_MAX_NS 1000000000ULL		/* 1 s */
/* A simulated card that writes this long past its cut never cut. */
#define SIM_OVERRUN_NS (60 * 1000000000ULL)
/* The cut command runs after a write drawn from 1 to this. */
#define COMMAND_WRITES_MAX 200
/*
 * After the cut command ended well, the device may answer this long and
 * this many writes more (a USB disconnect takes a moment to reach the
 * block layer); then the command did not cut.
 */
#define KEEPS_WRITING_NS (3 * 1000000000ULL)
#define KEEPS_WRITING_WRITES 32
/* A command still running this long while the device writes on. */
#define COMMAND_RUNS_NS (60 * 1000000000ULL)
/* After --power-command, the device has this long to come back. */
#define BACK_WITHIN_NS (60 * 1000000000ULL)

uint64_t mode_cut_draw(uint64_t *rng, uint64_t lo, uint64_t hi)
{
	uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return hi - lo == UINT64_MAX ? z : lo + z % (hi - lo + 1);
}

void mode_cut_setup(struct mode_cut *c, const struct config *cfg,
		    const struct dev *dev, uint64_t seed, uint64_t start,
		    uint64_t end)
{
	*c = (struct mode_cut){ .cfg = cfg, .start = start, .end = end,
				.rng = seed ^ 0x637574ULL };
	if (!dev_has(dev, DEV_CAP_HOST_NODE)) {
		if (cfg->cut_command || cfg->power_command)
			usage_error("--%s: a simulated card's power is cut by "
				    "flashbench itself; leave it out",
				    cfg->cut_command ? "cut-command" :
				    "power-command");
		c->way = MODE_CUT_SIM;
	} else {
		c->way = cfg->cut_command ? MODE_CUT_COMMAND : MODE_CUT_HAND;
	}
	if (cfg->power_command && !cfg->cut_command)
		usage_error("--power-command goes with --cut-command");
	devfind_key_of(cfg->device, NULL, &c->key);
	snprintf(c->node, sizeof(c->node), "%s", cfg->device);
}

const char *mode_cut_how(const struct mode_cut *c)
{
	static const char *const how[] = {
		[MODE_CUT_SIM] = "the simulated card's power fails at a seeded "
				 "moment of each cycle",
		[MODE_CUT_COMMAND] = "--cut-command runs after a seeded write "
				     "of each cycle",
		[MODE_CUT_HAND] = "you cut the power by hand, once a cycle",
	};

	return how[c->way];
}

/* The wall clock, or the card's own for a simulated card. */
static uint64_t card_now_ns(const struct dev *dev)
{
	return dev_has(dev, DEV_CAP_MODEL_TIME) ? dev->stats.time_ns :
	       dev_now_ns();
}

void mode_cut_arm(struct mode_cut *c, struct dev *dev, uint32_t cycle)
{
	int err;

	c->cycle = cycle;
	c->writes = c->writes_since = 0;
	c->child = 0;
	c->ran = false;
	c->cycle_start_ns = card_now_ns(dev);
	switch (c->way) {
	case MODE_CUT_SIM:
		c->at = mode_cut_draw(&c->rng, SIM_CUT_MIN_NS, SIM_CUT_MAX_NS);
		err = dev_power_cut(dev, c->at);
		if (err)
			runtime_error("--power-cut: %s: the power cannot be "
				      "cut: %s", c->cfg->device,
				      strerror(-err));
		break;
	case MODE_CUT_COMMAND:
		c->at = mode_cut_draw(&c->rng, 1, COMMAND_WRITES_MAX);
		break;
	case MODE_CUT_HAND:
		fprintf(stderr, "%s: cycle %u: cut the power now: pull the "
			"card or its reader\n", die_program_name, cycle);
		break;
	}
}

/* cmd through /bin/sh, standard output to standard error; its pid. */
static pid_t start_command(const char *option, const char *cmd)
{
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	posix_spawn_file_actions_t actions;
	pid_t pid;
	int err;

	fflush(NULL);
	posix_spawn_file_actions_init(&actions);
	posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null",
					 O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&actions, STDERR_FILENO,
					 STDOUT_FILENO);
	err = posix_spawn(&pid, "/bin/sh", &actions, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&actions);
	if (err)
		runtime_error("%s: cannot run '%s': %s", option, cmd,
			      strerror(err));
	return pid;
}

/* A command's end: a failure (not 0) ends the run, the range written. */
static void command_ended(const struct mode_cut *c, const char *option,
			  const char *cmd, int wstatus)
{
	if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)
		return;
	if (WIFEXITED(wstatus))
		runtime_error("%s: '%s' failed (exit %d); bytes %llu to %llu "
			      "of %s hold the run's stamps", option, cmd,
			      WEXITSTATUS(wstatus),
			      (unsigned long long)c->start,
			      (unsigned long long)c->end - 1, c->cfg->device);
	runtime_error("%s: '%s' was killed by signal %d; bytes %llu to %llu "
		      "of %s hold the run's stamps", option, cmd,
		      WTERMSIG(wstatus), (unsigned long long)c->start,
		      (unsigned long long)c->end - 1, c->cfg->device);
}

/* The cut command, while it runs: has it ended, and well? */
static void watch_command(struct mode_cut *c)
{
	int wstatus;
	pid_t got = waitpid(c->child, &wstatus, WNOHANG);

	if (got != c->child)
		return;
	c->child = 0;
	command_ended(c, "--cut-command", c->cfg->cut_command, wstatus);
	c->ran = true;
	c->ran_ns = dev_now_ns();
}

static void kept_writing(const struct mode_cut *c, const char *how)
{
	runtime_error("--cut-command: '%s' %s, but %s kept writing (%llu "
		      "writes); bytes %llu to %llu hold the run's stamps",
		      c->cfg->cut_command, how, c->cfg->device,
		      (unsigned long long)c->writes_since,
		      (unsigned long long)c->start,
		      (unsigned long long)c->end - 1);
}

void mode_cut_after_write(struct mode_cut *c, const struct dev *dev)
{
	c->writes++;
	if (c->way == MODE_CUT_SIM &&
	    card_now_ns(dev) - c->cycle_start_ns > c->at + SIM_OVERRUN_NS)
		runtime_error("--power-cut: %s: the simulated card kept "
			      "writing long past its cut", c->cfg->device);
	if (c->way != MODE_CUT_COMMAND)
		return;
	if (!c->child && !c->ran && c->writes == c->at) {
		fprintf(stderr, "%s: cycle %u: running the cut command after "
			"write %llu\n", die_program_name, c->cycle,
			(unsigned long long)c->writes);
		c->child = start_command("--cut-command", c->cfg->cut_command);
		c->ran_ns = dev_now_ns();
		return;
	}
	if (c->child)
		watch_command(c);
	if (c->child && dev_now_ns() - c->ran_ns > COMMAND_RUNS_NS)
		kept_writing(c, "is still running");
	if (c->ran && ++c->writes_since >= KEEPS_WRITING_WRITES &&
	    dev_now_ns() - c->ran_ns > KEEPS_WRITING_NS)
		kept_writing(c, "ran");
}

bool mode_cut_seen(int err)
{
	return err == -EIO || err == -ENODEV || err == -ENOMEDIUM ||
	       err == -ENXIO || err == -ENOENT || err == -ESHUTDOWN;
}

/*
 * Wait for a command to end, however many signals come; -EINTR when
 * one stopped the run (the command is left to end by itself).
 */
static int wait_command(const struct mode_cut *c, pid_t pid,
			const char *option, const char *cmd)
{
	int wstatus;

	while (waitpid(pid, &wstatus, 0) < 0) {
		if (errno != EINTR)
			runtime_error("%s: '%s': %s", option, cmd,
				      strerror(errno));
		if (*c->cfg->stop)
			return -EINTR;
	}
	command_ended(c, option, cmd, wstatus);
	return 0;
}

/*
 * The node now holding another device than the run's, known by its
 * identity: refused, the run ends (a device cannot be judged against
 * another's log).
 */
static void refuse_another(const struct mode_cut *c)
{
	struct devfind_key now;
	char was[DEVNAME_BYTES + 32], is[DEVNAME_BYTES + 32];
	struct stat st;

	if (!c->key.has_identity || stat(c->node, &st) != 0 ||
	    !S_ISBLK(st.st_mode))
		return;
	devfind_key_of(c->node, NULL, &now);
	if (!now.has_identity || devfind_same(&now, &c->key))
		return;
	runtime_error("--power-cut: %s came back as another device (%s, not "
		      "%s); it is not verified", c->node,
		      devfind_key_text(&now, is, sizeof(is)),
		      devfind_key_text(&c->key, was, sizeof(was)));
}

/* The device at node opened for the run, answering: 0, or why not. */
static int try_open(struct dev *dev, const char *node,
		    struct mode_cut_return *back)
{
	int err;

	snprintf(back->node, sizeof(back->node), "%s", node);
	back->read_only = false;
	err = mode_open_answering(dev, back->node, DEV_READ_WRITE);
	if (err == -EROFS || err == -EACCES) {
		err = mode_open_answering(dev, back->node, DEV_READ_ONLY);
		back->read_only = err == 0;
	}
	return err;
}

static int wait_device(struct mode_cut *c, struct dev *dev,
		       struct mode_cut_return *back);

/* Found the node with the run's key, opened and answering? */
static bool found(struct mode_cut *c, struct dev *dev,
		  struct mode_cut_return *back)
{
	char node[PATH_MAX];

	if (devfind_node(&c->key, c->node, NULL, node, sizeof(node)) != 0 &&
	    c->key.has_identity) {
		refuse_another(c);
		return false;
	}
	if (!c->key.has_identity)	/* nothing else can be it */
		snprintf(node, sizeof(node), "%s", c->node);
	if (try_open(dev, node, back) != 0)
		return false;
	snprintf(c->node, sizeof(c->node), "%s", node);
	dev->path = c->node;
	dev_allow_writes(dev, c->start, c->end);
	return true;
}

/* Each open starts its counts afresh: the run's go on from before. */
static int wait_keeping_stats(struct mode_cut *c, struct dev *dev,
			      struct mode_cut_return *back)
{
	struct dev_stats stats = dev->stats;
	int err = wait_device(c, dev, back);

	if (err || back->dead)
		*dev = (struct dev){ .ops = NULL, .path = c->node, .fd = -1 };
	dev->stats.time_ns += stats.time_ns;
	dev->stats.bytes_read += stats.bytes_read;
	dev->stats.bytes_written += stats.bytes_written;
	dev->stats.bytes_discarded += stats.bytes_discarded;
	dev->stats.operations += stats.operations;
	return err;
}

/* What mode_wait_until asks: is the device back? */
struct cut_wait {
	struct mode_cut *c;
	struct dev *dev;
	struct mode_cut_return *back;
};

static bool back_yet(void *ctx)
{
	struct cut_wait *w = ctx;

	return found(w->c, w->dev, w->back);
}

/* Look for the device until it answers, a signal, or the deadline. */
static int wait_device(struct mode_cut *c, struct dev *dev,
		       struct mode_cut_return *back)
{
	uint64_t deadline = c->cfg->power_command ?
			    dev_now_ns() + BACK_WITHIN_NS : 0;
	struct cut_wait w = { c, dev, back };
	char what[PATH_MAX + 64];
	int err;

	snprintf(what, sizeof(what), "waiting for %s to come back", c->node);
	fprintf(stderr, "%s: cycle %u: %s%s\n", die_program_name, c->cycle,
		what, c->way == MODE_CUT_HAND ? ": put the card back" :
		c->cfg->power_command ? "" : " (power it on, or stop here "
		"and --verify the log later)");
	err = mode_wait_until(c->cfg, "power-cut", what, back_yet, &w,
			      deadline);
	if (err == -ETIMEDOUT) {
		back->dead = true;
		err = 0;
	}
	return err;
}

int mode_cut_back(struct mode_cut *c, struct dev *dev,
		  struct mode_cut_return *back)
{
	int err;

	*back = (struct mode_cut_return){ .dead = false };
	snprintf(back->node, sizeof(back->node), "%s", c->node);
	if (c->way == MODE_CUT_SIM) {
		err = dev_power_on(dev);
		if (err && err != -ENODEV)
			runtime_error("--power-cut: %s: the power does not come "
				      "back: %s", c->cfg->device,
				      strerror(-err));
		back->dead = err == -ENODEV;
		return 0;
	}
	dev_close(dev);		/* its descriptor is the old card's */
	if (c->child &&
	    wait_command(c, c->child, "--cut-command", c->cfg->cut_command))
		return -EINTR;
	c->child = 0;
	if (c->cfg->power_command &&
	    wait_command(c, start_command("--power-command",
					  c->cfg->power_command),
			 "--power-command", c->cfg->power_command))
		return -EINTR;
	return wait_keeping_stats(c, dev, back);
}

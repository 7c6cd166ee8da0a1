# flashbench: build, test and install.
# make            build flashbench and erase
# make check      run the test suite (root adds the loop-device tests)
# make install    honours PREFIX, BINDIR, MANDIR and DESTDIR

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wformat=2
CPPFLAGS += -D_GNU_SOURCE
ALL_CFLAGS = -std=gnu11 $(WARNINGS) $(CFLAGS) -MMD -MP
LDLIBS += -lm

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install

# every module; the two programs add their own main
MODULES = cli units lfsr dev blockdev sim vm programs report analysis analyze info json \
	plot progress speed detect
MODULE_OBJS = $(addsuffix .o,$(filter $(MODULES),$(basename $(wildcard *.c))))
PROGRAMS = flashbench erase
UNIT_TESTS = $(basename $(wildcard tests/unit-*.c))

all: $(PROGRAMS)

%.o: %.c
	$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

flashbench: flashbench.o $(MODULE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

erase: erase.o $(MODULE_OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

tests/unit-%: tests/unit-%.c $(MODULE_OBJS)
	$(CC) $(CPPFLAGS) -I. -Itests $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

check: all $(UNIT_TESTS)
	sh tests/run.sh

# the same suite under AddressSanitizer and UndefinedBehaviorSanitizer
check-sanitize:
	$(MAKE) clean
	$(MAKE) check CFLAGS="-O1 -g -fsanitize=address,undefined \
		-fno-omit-frame-pointer -fno-sanitize-recover=all"
	$(MAKE) clean

install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 755 $(PROGRAMS) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 644 flashbench.1 erase.1 $(DESTDIR)$(MANDIR)/man1

clean:
	rm -f $(PROGRAMS) *.o *.d tests/*.o tests/*.d $(UNIT_TESTS)

-include $(wildcard *.d tests/*.d)

.PHONY: all check check-sanitize install clean

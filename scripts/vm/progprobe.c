// SPDX-License-Identifier: GPL-2.0
/* progprobe: load each BPF program of an object ALONE (every other
 * program's autoload off), optionally attach it, and print libbpf's full
 * debug output (CO-RE relocations, kfunc/extern resolution, feature
 * sanitization, the verifier log on failure). One line per program:
 *   PROG<TAB>name<TAB>section<TAB>load ok|FAIL(err)<TAB>attach ok|FAIL(err)|-
 * Built against the libbpf that fastaudit links (libbpf-sys's libbpf.a).
 *
 * Usage: progprobe [-a] [-v] [-s] OBJ [PROG...]
 *   -a  also attach each loaded program (and detach it at once)
 *   -v  libbpf debug output (else warnings only, which include the
 *       verifier log of a failed load)
 *   -s  verifier statistics (log_level 4) of loaded programs
 *   PROG  only these programs (default: all) */
#include <bpf/libbpf.h>
#include <bpf/bpf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int verbose;

static int print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stdout, fmt, ap);
}

static int one(const char *path, const char *name, int do_attach, int stats)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		printf("open %s: %s\n", path, strerror(errno));
		return -1;
	}
	struct bpf_program *p, *want = NULL;
	bpf_object__for_each_program(p, obj) {
		int me = strcmp(bpf_program__name(p), name) == 0;
		bpf_program__set_autoload(p, me);
		if (me)
			want = p;
	}
	if (!want) {
		printf("PROG\t%s\t-\tno such program\t-\n", name);
		bpf_object__close(obj);
		return -1;
	}
	if (stats)
		bpf_program__set_log_level(want, 4);
	printf("=== %s (%s)\n", name, bpf_program__section_name(want));
	fflush(stdout);
	int err = bpf_object__load(obj);
	char attach[128] = "-";
	if (!err && do_attach) {
		/* SEC("tracepoint") names no target: a syscall tracepoint that
		 * every kernel here has, chosen by the program's name. */
		struct bpf_link *l;
		if (strcmp(bpf_program__section_name(want), "tracepoint") == 0) {
			const char *tp = strstr(name, "uring_enter") ? "sys_enter_io_uring_enter" :
					 strstr(name, "enter") ? "sys_enter_chmod" : "sys_exit_chmod";
			l = bpf_program__attach_tracepoint(want, "syscalls", tp);
		} else {
			l = bpf_program__attach(want);
		}
		if (l) {
			strcpy(attach, "attach ok");
			bpf_link__destroy(l);
		} else {
			snprintf(attach, sizeof(attach), "attach FAIL(%d %s)", -errno, strerror(errno));
		}
	}
	char load[128];
	if (err)
		snprintf(load, sizeof(load), "load FAIL(%d %s)", err, strerror(-err));
	else
		strcpy(load, "load ok");
	printf("PROG\t%s\t%s\t%s\t%s\n", name, bpf_program__section_name(want), load, attach);
	fflush(stdout);
	bpf_object__close(obj);
	return err ? -1 : 0;
}

int main(int argc, char **argv)
{
	int do_attach = 0, stats = 0, c;
	while ((c = getopt(argc, argv, "avs")) != -1) {
		if (c == 'a')
			do_attach = 1;
		else if (c == 'v')
			verbose = 1;
		else if (c == 's')
			stats = 1;
		else
			return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: progprobe [-a] [-v] [-s] OBJ [PROG...]\n");
		return 2;
	}
	const char *path = argv[optind++];
	libbpf_set_print(print);
	int failed = 0;
	if (optind < argc) {
		for (; optind < argc; optind++)
			failed += one(path, argv[optind], do_attach, stats) != 0;
		return failed ? 1 : 0;
	}
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	if (!obj) {
		fprintf(stderr, "open %s: %s\n", path, strerror(errno));
		return 1;
	}
	struct bpf_program *p;
	char **names = NULL;
	int n = 0;
	bpf_object__for_each_program(p, obj) {
		names = realloc(names, sizeof(*names) * (n + 1));
		names[n++] = strdup(bpf_program__name(p));
	}
	bpf_object__close(obj);
	for (int i = 0; i < n; i++)
		failed += one(path, names[i], do_attach, stats) != 0;
	return failed ? 1 : 0;
}

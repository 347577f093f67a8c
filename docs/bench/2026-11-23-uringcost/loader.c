/* loader OBJ: load and attach every program of OBJ, print "ready", wait for stdin EOF. */
#include <bpf/libbpf.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
	struct bpf_object *o = bpf_object__open_file(argv[1], NULL);
	if (!o || bpf_object__load(o)) { fprintf(stderr, "load failed\n"); return 1; }
	struct bpf_program *p;
	bpf_object__for_each_program(p, o) {
		if (!bpf_program__attach(p)) { fprintf(stderr, "attach %s failed\n", bpf_program__name(p)); return 1; }
	}
	printf("ready\n"); fflush(stdout);
	char b[16]; while (read(0, b, sizeof b) > 0) {}
	return 0;
}

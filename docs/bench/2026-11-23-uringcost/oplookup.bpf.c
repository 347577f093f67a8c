#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
char LICENSE[] SEC("license") = "GPL";
struct { __uint(type, BPF_MAP_TYPE_ARRAY); __uint(max_entries, 64); __type(key, __u32); __type(value, __u64); } ops SEC(".maps");
SEC("tp_btf/io_uring_submit_req") int uc_submit(__u64 *ctx) {
	struct io_kiocb *req = (struct io_kiocb *)ctx[0];
	__u32 op = req->opcode;
	__u64 *v = bpf_map_lookup_elem(&ops, &op);
	return v && *v ? 1 : 0;
}
SEC("tp_btf/io_uring_complete") int uc_complete(__u64 *ctx) {
	struct io_kiocb *req = bpf_core_cast((void *)ctx[1], struct io_kiocb);
	__u32 op = req->opcode;
	__u64 *v = bpf_map_lookup_elem(&ops, &op);
	return v && *v ? 1 : 0;
}

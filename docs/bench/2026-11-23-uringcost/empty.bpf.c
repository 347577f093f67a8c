#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
char LICENSE[] SEC("license") = "GPL";
SEC("tp_btf/io_uring_submit_req") int uc_submit(__u64 *ctx) { return 0; }
SEC("tp_btf/io_uring_complete") int uc_complete(__u64 *ctx) { return 0; }

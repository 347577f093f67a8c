/* SPDX-License-Identifier: GPL-2.0 */
/* io_uring ops: the auxiliary records an op's URINGOP (or its
 * io_uring_enter's SYSCALL) needs, sent under the stamp of the event
 * they belong to: the names an op's prep took, their lookups' inputs
 * when an io-wq worker resolves them (a punt), a connect's or bind's
 * address, the file an open opened, the CWD and the inodes a worker
 * changed. Each sender is a function of its own (__noinline): a frame
 * beside the judging's, not under it. */
#ifndef FA_URING_SENDERS_BPF_H
#define FA_URING_SENDERS_BPF_H

#include "uring_state.bpf.h"
#include "uring_enter.bpf.h"
#include "dentry.bpf.h"
#include "objects.bpf.h"
#include "auxsample.bpf.h"
#include "paths.bpf.h"

/* The inodes the current io-wq worker changed running the request of
 * objects key `key`, their list closed (new inodes read again) by the
 * first of its readers; NULL if it noted none. */
static __always_inline struct fa_objs *uring_worker_objs(__u32 key)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct fa_objs *h = bpf_map_lookup_elem(&objs, &tid);
	if (!h || !key)
		return 0;
	if (h->key == key)
		fa_objs_close(key, 0);
	return h->owner == key ? h : 0;
}

/* The CWD and objects of the op an io-wq worker ran for the request at
 * `req` (the objects it noted while running it: objects.bpf.h), sent
 * under its URINGOP's head as a syscall's are; FA_EV_AUX_LOST if one
 * found no room. SQPOLL rings' ops run by io-wq are not followed
 * (docs/differences.md); those the SQPOLL thread runs are (fa_uring_sq_submit). */
__noinline int fa_uring_worker_paths(__u64 req, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	struct task_struct *task = bpf_get_current_task_btf();
	struct io_kiocb *r = (struct io_kiocb *)req;
	/* A SQPOLL ring's requests took their names outside any audit
	 * context: the worker's lookups add them, named (not followed). */
	if (!io_worker_key(task) || BPF_CORE_READ(r, ctx, sq_data))
		return 0;
	send_cwd(task, &m, &lost);
	__u32 key = uring_work_key((__u64)&r->work, BPF_CORE_READ(r, opcode));
	struct fa_objs *h = uring_worker_objs(key);
	if (!h)
		return lost;
	struct fa_objs *p = aux_reserve(&m, &lost, FA_AUX_OBJS, sizeof(*p));
	if (!p)
		return lost;
	bpf_probe_read_kernel(p, sizeof(*p), h);
	aux_submit(p);
	return lost;
}

/* The working directory of the current thread's io_uring_enter (its
 * context took it with its first name; it has not changed since: no op
 * changes it), under that syscall's stamp. */
__noinline int fa_uring_enter_cwd(__u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	send_cwd(bpf_get_current_task_btf(), &m, &lost);
	return 0;
}

/* Newer kernels (Debian's 7.2 and 7.3) keep an op's names in a struct
 * delayed_filename, the struct filename * its prep took until the issue
 * completes it, where older ones (6.18 and before) hold that pointer
 * itself. The ops' layouts with that wrapper: */
struct delayed_filename___fa {
	struct filename *__incomplete_filename;
} __attribute__((preserve_access_index));
struct io_open___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_statx___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_mkdir___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_unlink___delayed { struct delayed_filename___fa filename; } __attribute__((preserve_access_index));
struct io_rename___delayed {
	struct delayed_filename___fa oldpath;
	struct delayed_filename___fa newpath;
} __attribute__((preserve_access_index));
struct io_link___delayed {
	struct delayed_filename___fa oldpath;
	struct delayed_filename___fa newpath;
} __attribute__((preserve_access_index));

/* Whether this kernel's preps copy names without taking them (the
 * wrapper above: Linux 7.x). The attempt that issues the op takes them
 * then (complete_getname()), in its own thread's context: inside
 * io_uring_enter for an inline attempt, else the io-wq worker's or the
 * SQPOLL thread's, where they come first, as a syscall's do. A
 * relocated constant: the verifier drops the branch not taken. */
static __always_inline int uring_delayed_names(void)
{
	return bpf_core_type_exists(struct delayed_filename___fa);
}

/* Name `field` of op struct `type` at cmd, as this kernel holds it (a
 * field whose type does not match is absent to CO-RE: the wrapper's test
 * is false on older kernels, and the branch not taken is never verified). */
#define URING_NAME(type, cmd, field)                                                   \
	(bpf_core_field_exists(struct type##___delayed, field)                          \
		 ? BPF_CORE_READ((struct type##___delayed *)(cmd), field.__incomplete_filename) \
		 : BPF_CORE_READ((struct type *)(cmd), field))

/* Send the file names the prep of request `req` (op `op`) took, as the
 * io_uring_enter context of thread tid holds them from `index` on,
 * under that syscall's stamp. */
__noinline int fa_uring_prep_names(__u64 req, __u32 op, __u32 index, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	struct filename *names[2] = {};
	void *cmd = (void *)req;
	switch (op) {
	case FA_IORING_OP_OPENAT:
	case FA_IORING_OP_OPENAT2:
		names[0] = URING_NAME(io_open, cmd, filename);
		break;
	case FA_IORING_OP_STATX:
		names[0] = URING_NAME(io_statx, cmd, filename);
		break;
	case FA_IORING_OP_MKDIRAT:
		names[0] = URING_NAME(io_mkdir, cmd, filename);
		break;
	case FA_IORING_OP_UNLINKAT:
		names[0] = URING_NAME(io_unlink, cmd, filename);
		break;
	case FA_IORING_OP_RENAMEAT:
		names[0] = URING_NAME(io_rename, cmd, oldpath);
		names[1] = URING_NAME(io_rename, cmd, newpath);
		break;
	case FA_IORING_OP_SYMLINKAT:
	case FA_IORING_OP_LINKAT:
		names[0] = URING_NAME(io_link, cmd, oldpath);
		names[1] = URING_NAME(io_link, cmd, newpath);
		break;
	default:
		/* setxattr, getxattr: their name is counted, not spelled. */
		break;
	}
	for (int i = 0; i < 2; i++) {
		if (i >= (int)uring_prep_names(op))
			break;
		struct name_out *o = name_out_get();
		if (!o)
			break;
		long len = names[i] ? bpf_probe_read_kernel_str(o->body.name, sizeof(o->body.name),
								BPF_CORE_READ(names[i], name))
				    : 0;
		o->body.index = index + i;
		o->body.len = len > 0 ? len - 1 : 0;
		name_output(&m, &lost, FA_AUX_URING_NAME, o);
	}
	return 0;
}

/* Where a named request submitted inside io_uring_enter has its names:
 * from its submission until an io-wq worker issues it. */
struct uring_req_at {
	__u32 index;   /* its first name's place among the syscall's names */
	__u32 tid;     /* the submitting thread */
	__u64 stamp;   /* its io_uring_enter's entry stamp */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, struct uring_req_at);
} uring_req_names SEC(".maps");

/* The inputs of request req's (op `op`) lookups into r, its names from
 * `index` on among its event's FA_AUX_URING_NAME ones. */
static __always_inline void uring_lookup_inputs(struct fa_aux_uring_punt *r, __u64 req, __u32 op,
						 __u32 index)
{
	void *cmd = (void *)req;
	r->index = index;
	r->op = op;
	r->open_flags = 0;
	r->dfd = AT_FDCWD;
	r->dfd2 = AT_FDCWD;
	r->pad = 0;
	switch (op) {
	case FA_IORING_OP_OPENAT:
	case FA_IORING_OP_OPENAT2:
		r->open_flags = BPF_CORE_READ((struct io_open *)cmd, how.flags);
		r->dfd = BPF_CORE_READ((struct io_open *)cmd, dfd);
		break;
	case FA_IORING_OP_STATX:
		r->open_flags = BPF_CORE_READ((struct io_statx *)cmd, flags);
		r->dfd = BPF_CORE_READ((struct io_statx *)cmd, dfd);
		break;
	case FA_IORING_OP_MKDIRAT:
		r->dfd = BPF_CORE_READ((struct io_mkdir *)cmd, dfd);
		break;
	case FA_IORING_OP_UNLINKAT:
		r->dfd = BPF_CORE_READ((struct io_unlink *)cmd, dfd);
		break;
	case FA_IORING_OP_RENAMEAT:
		r->dfd = BPF_CORE_READ((struct io_rename *)cmd, old_dfd);
		r->dfd2 = BPF_CORE_READ((struct io_rename *)cmd, new_dfd);
		break;
	case FA_IORING_OP_SYMLINKAT:
	case FA_IORING_OP_LINKAT:
		r->dfd = BPF_CORE_READ((struct io_link *)cmd, old_dfd);
		r->dfd2 = BPF_CORE_READ((struct io_link *)cmd, new_dfd);
		break;
	}
}

/* An io-wq worker issued request req (op `op`): if it was submitted
 * inside an io_uring_enter (punted after an inline attempt, or linked
 * after one), the worker's lookups fill in that syscall's entries for its
 * names (shared through the struct filename), as long as the syscall has
 * not written its record yet: say where they are, under its stamp, so
 * user space can show them so. A request never issued (a cancelled link)
 * sends nothing. */
__noinline int fa_uring_punted(__u64 req, __u32 op, __u32 key)
{
	struct uring_req_at *at = bpf_map_lookup_elem(&uring_req_names, &req);
	if (!at)
		return 0;
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = at->tid,
		.stamp = at->stamp,
	};
	struct fa_aux_uring_punt *r = aux_reserve(&m, &lost, FA_AUX_URING_PUNT, sizeof(*r));
	if (!r)
		return 0;
	uring_lookup_inputs(r, req, op, at->index);
	aux_submit(r);
	bpf_map_delete_elem(&uring_req_names, &req);
	/* What the worker changed names what its lookups found (the
	 * directory, a link's source) even once the workload removed it. */
	struct fa_objs *h = uring_worker_objs(key);
	if (!h)
		return 0;
	struct fa_objs *p = aux_reserve(&m, &lost, FA_AUX_URING_PUNT_OBJS, sizeof(*p));
	if (!p)
		return 0;
	bpf_probe_read_kernel(p, sizeof(*p), h);
	aux_submit(p);
	return 0;
}

/* Where bind's prep copied the address in its request's async data
 * `data`: a struct io_async_msghdr's `addr`, or (a 2026 fix, backported
 * to stable kernels) the data itself. Nothing the BPF side can read
 * names the layout (the op table is no symbol without KALLSYMS_ALL), so
 * the first word tells: the message header starts with an iovec pointer
 * (NULL, or a kernel address), an address with its family. */
static __always_inline __u64 bind_addr_offset(void *data)
{
	__u64 w = 0;
	bpf_probe_read_kernel(&w, sizeof(w), data);
	__u16 family = (__u16)w;
	if (family && family < FA_AF_MAX && (w >> 48) != 0xffff)
		return 0;
	return bpf_core_field_offset(struct io_async_msghdr, addr);
}

/* SOCKADDR for a connect or bind request inside io_uring_enter: its
 * prep copied the address (move_addr_to_kernel, audit_sockaddr), so the
 * syscall's context holds it, whatever the attempts return. connect's is
 * read from the caller's memory, bind's from the copy its prep made (the
 * request keeps no pointer to the caller's). */
__noinline int fa_uring_sockaddr(__u64 req, __u32 op, __u64 stamp)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = (__u32)bpf_get_current_pid_tgid(),
		.stamp = stamp,
	};
	void *addr;
	int len, user = op == FA_IORING_OP_CONNECT;
	if (user) {
		struct io_connect *c = (struct io_connect *)req;
		addr = BPF_CORE_READ(c, addr);
		len = BPF_CORE_READ(c, addr_len);
	} else {
		void *data = BPF_CORE_READ((struct io_kiocb *)req, async_data);
		if (!bpf_core_field_exists(struct io_bind, addr_len) || !data)
			return 0;
		addr = data + bind_addr_offset(data);
		len = BPF_CORE_READ((struct io_bind *)req, addr_len);
	}
	if (!addr || len <= 0 || len > FA_SOCKADDR_MAX)
		return 0;
	struct fa_sockaddr *r = aux_reserve(&m, &lost, AUDIT_SOCKADDR, sizeof(*r));
	if (!r)
		return 0;
	__u64 n = len;
	barrier_var(n);
	r->len = len;
	r->read = 0;
	long err = n <= FA_SOCKADDR_MAX ? (user ? bpf_probe_read_user(r->addr, n, addr)
					       : bpf_probe_read_kernel(r->addr, n, addr))
				       : -1;
	if (err == 0)
		r->read = n;
	aux_submit(r);
	return 0;
}

/* The file an open issued inline inside io_uring_enter opened (fd
 * `res`), for the name at `index`: the kernel's lookup resolved that
 * name in the syscall's context. */
__noinline int fa_uring_opened(__u64 req, __s32 res, __u32 index, __u64 stamp, __u32 tid)
{
	__u32 lost = 0;
	struct fa_msg m = {
		.kind = FA_MSG_AUX,
		.tid = tid,
		.stamp = stamp,
	};
	/* A fixed-file slot (file_slot set) is no descriptor. */
	if (BPF_CORE_READ((struct io_open *)req, file_slot))
		return 0;
	struct file *f = fd_file(bpf_get_current_task_btf(), res);
	if (!f)
		return 0;
	struct fa_aux_uring_obj *r = aux_reserve(&m, &lost, FA_AUX_URING_OBJ, sizeof(*r));
	if (!r)
		return 0;
	r->index = index;
	r->pad = 0;
	r->obj.flags = FA_OBJ_OPENED;
	r->obj.parent_ino = 0;
	r->obj.parent_dev = 0;
	r->obj.name_len = 0;
	r->obj.name[0] = 0;
	obj_fill(&r->obj, BPF_CORE_READ(f, f_inode), 0);
	aux_submit(r);
	return 0;
}

#endif

/* SPDX-License-Identifier: GPL-2.0 */
/* IPC and IPC_SET_PERM: the owner and mode of the System V object (queue,
 * semaphore set, shared memory segment) a syscall touched, as the
 * kernel's audit_ipc_obj notes them (ipc/util.c: ipcperms, called by
 * every permission check, and ipcctl_obtain_check, by IPC_SET and
 * IPC_RMID; ipc/shm.c: SHM_LOCK and SHM_UNLOCK), and for IPC_SET the new
 * owner and mode the caller gave (audit_ipc_set_perm).
 *
 * The object lives in the kernel (struct kern_ipc_perm in the task's ipc
 * namespace), where neither the syscall's arguments nor its exit show it
 * as noted: after IPC_RMID it is gone, after IPC_SET changed. So it is
 * looked up at the syscall's entry, as the kernel will look it up, in
 * the namespace's idr (by id; by index for the *_STAT commands; by key,
 * among the indices in use, for the get syscalls), and kept for the
 * exit, which decides from the arguments and the outcome whether the
 * kernel reached the note (ipc_noted). An object changed or removed by
 * another task between the entry and the kernel's own lookup is shown
 * as it was at the entry (docs/differences.md). The functions that note
 * it (ipcperms, ipcctl_obtain_check) would be exact with fentry, which
 * kernels without a function tracer refuse; these hooks run everywhere.
 * Native syscalls only. */
#ifndef FA_IPC_BPF_H
#define FA_IPC_BPF_H

#include "arch.bpf.h"
#include "subject.bpf.h"
#include "handover.bpf.h"
#include "auxsample.bpf.h"

#define FA_IPC_PRIVATE 0
#define FA_IPC_CREAT 01000
#define FA_IPC_EXCL 02000
#define FA_IPC_RMID 0
#define FA_IPC_SET 1
#define FA_IPC_STAT 2
#define FA_IPC_INFO 3
#define FA_MSG_STAT 11
#define FA_MSG_STAT_ANY 13
#define FA_SEM_GETPID 11
#define FA_SEM_GETVAL 12
#define FA_SEM_GETALL 13
#define FA_SEM_GETZCNT 15
#define FA_SEM_SETVAL 16
#define FA_SEM_SETALL 17
#define FA_SEM_STAT 18
#define FA_SEM_STAT_ANY 20
#define FA_SEMVMX 32767
#define FA_SHM_LOCK 11
#define FA_SHM_UNLOCK 12
#define FA_SHM_STAT 13
#define FA_SHM_STAT_ANY 15
#define FA_SHM_RND 020000
#define FA_SHM_REMAP 040000
#define FA_SHMLBA 4096
#define FA_IPC_KEY_SCAN 32768   /* IPCMNI: indices looked at for a key */

/* The namespace's object tables (struct ipc_namespace ids[]). */
enum ipc_kind { IPC_SEM_IDS = 0, IPC_MSG_IDS = 1, IPC_SHM_IDS = 2 };

/* What the entry found, for the exit. */
struct ipc_entry {
	__u32 found;
	__u32 uid;
	__u32 gid;
	__u32 mode;
	__u32 nsems;    /* a semaphore set's size */
	__u32 pad;
	__u64 segsz;    /* a shared memory segment's size */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, FA_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct ipc_entry);
} ipc_entries SEC(".maps");

/* The table of a native System V IPC syscall (-1: not one), by the rules
 * crate's syscall_sets::SYSV_MSG, SYSV_SEM, SYSV_SHM. */
static __always_inline int sysv_ipc_kind(__u32 nr)
{
	if (FA_SYSV_MSG64(nr))
		return IPC_MSG_IDS;
	if (FA_SYSV_SEM64(nr))
		return IPC_SEM_IDS;
	if (FA_SYSV_SHM64(nr))
		return IPC_SHM_IDS;
	return -1;
}

static __always_inline int is_sysv_ipc(__u32 nr)
{
	return sysv_ipc_kind(nr) >= 0;
}

#define FA_XA_CHUNK_MASK 63

/* The radix tree entry at `index` of xarray head `entry`
 * (__radix_tree_lookup): internal entries (low bits 10, above 4096) are
 * nodes, descended by (index >> shift) & 63; 0 when absent. */
static __always_inline void *xa_entry_at(void *entry, unsigned long index)
{
	__u64 e = (__u64)entry;
	if ((e & 3) != 2)
		return index == 0 ? entry : 0;
	if (e <= 4096)
		return 0;
	__u8 top = BPF_CORE_READ((struct xa_node *)(e - 2), shift);
	if (top > 60 || (index >> top) > FA_XA_CHUNK_MASK)
		return 0;
	/* Indices of at most 24 bits: four levels of six. */
	for (int level = 0; level < 5; level++) {
		if ((e & 3) != 2)
			return (void *)e;
		if (e <= 4096)
			return 0;   /* a retry or sibling entry */
		struct xa_node *node = (struct xa_node *)(e - 2);
		__u8 shift = BPF_CORE_READ(node, shift);
		__u32 off = (index >> (shift & 63)) & FA_XA_CHUNK_MASK;
		if (bpf_core_read(&e, sizeof(e), &node->slots[off]))
			return 0;
		if (shift == 0)
			return (e & 3) == 2 ? 0 : (void *)e;
	}
	return 0;
}

/* The object at index idx of table ids (ipc_obtain_object_idr). */
static __always_inline struct kern_ipc_perm *ipc_at(struct ipc_ids *ids, __u32 idx)
{
	void *head = BPF_CORE_READ(ids, ipcs_idr.idr_rt.xa_head);
	__u32 base = BPF_CORE_READ(ids, ipcs_idr.idr_base);
	return xa_entry_at(head, (unsigned long)(idx - base));
}

/* ipc_obtain_object_check's object for id: the one at the id's index
 * (its low 15 bits, or 24 with ipcmni_extend) whose id is all of it. */
static __always_inline struct kern_ipc_perm *ipc_by_id(struct ipc_ids *ids, int id)
{
	if (id < 0)
		return 0;
	struct kern_ipc_perm *p = ipc_at(ids, id & 0x7fff);
	if (p && BPF_CORE_READ(p, id) == id)
		return p;
	p = ipc_at(ids, id & 0xffffff);
	if (p && BPF_CORE_READ(p, id) == id)
		return p;
	return 0;
}

struct key_scan {
	struct ipc_ids *ids;
	int key;
	struct kern_ipc_perm *found;
};

static long key_scan_step(__u32 idx, struct key_scan *k)
{
	struct kern_ipc_perm *p = ipc_at(k->ids, idx);
	if (p && BPF_CORE_READ(p, key) == k->key && !BPF_CORE_READ(p, deleted)) {
		k->found = p;
		return 1;
	}
	return 0;
}

/* ipc_findkey: the object with key `key`, among the indices in use. */
static __always_inline struct kern_ipc_perm *ipc_by_key(struct ipc_ids *ids, int key)
{
	int max = BPF_CORE_READ(ids, max_idx);
	if (max < 0)
		return 0;
	struct key_scan k = { .ids = ids, .key = key };
	__u32 n = (__u32)max + 1;
	bpf_loop(n < FA_IPC_KEY_SCAN ? n : FA_IPC_KEY_SCAN, key_scan_step, &k, 0);
	return k.found;
}

/* At a native System V IPC syscall's entry (registers regs): find the
 * object the kernel is going to look up, and keep it for the exit. */
static __noinline void ipc_entry(struct task_struct *task, struct pt_regs *regs, __u32 nr)
{
	int kind = sysv_ipc_kind(nr);
	if (kind < 0)
		return;
	struct ipc_namespace *ns = BPF_CORE_READ(task, nsproxy, ipc_ns);
	/* &ns->ids[kind], with this kernel's offset and size of each table */
	struct ipc_ids *ids = (void *)ns + bpf_core_field_offset(struct ipc_namespace, ids) +
			      (kind & 3) * bpf_core_type_size(struct ipc_ids);
	int id = (int)regs_arg(regs, 0, 0);
	int cmd = (int)regs_arg(regs, 0, nr == FA_NR64_semctl ? 2 : 1);
	struct kern_ipc_perm *p;
	if (nr == FA_NR64_msgget || nr == FA_NR64_semget || nr == FA_NR64_shmget)
		p = id == FA_IPC_PRIVATE ? 0 : ipc_by_key(ids, id);
	else if ((nr == FA_NR64_msgctl && (cmd == FA_MSG_STAT || cmd == FA_MSG_STAT_ANY)) ||
		 (nr == FA_NR64_semctl && (cmd == FA_SEM_STAT || cmd == FA_SEM_STAT_ANY)) ||
		 (nr == FA_NR64_shmctl && (cmd == FA_SHM_STAT || cmd == FA_SHM_STAT_ANY)))
		p = id < 0 ? 0 : ipc_at(ids, id & 0x7fff);   /* an index, not an id */
	else
		p = ipc_by_id(ids, id);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ipc_entry e = {};
	if (p) {
		e.found = 1;
		e.uid = BPF_CORE_READ(p, uid.val);
		e.gid = BPF_CORE_READ(p, gid.val);
		e.mode = BPF_CORE_READ(p, mode);
		/* kern_ipc_perm is the first member of each object. */
		if (kind == IPC_SEM_IDS)
			e.nsems = BPF_CORE_READ((struct sem_array *)p, sem_nsems);
		else if (kind == IPC_SHM_IDS)
			e.segsz = BPF_CORE_READ((struct shmid_kernel *)p, shm_segsz);
	}
	bpf_map_update_elem(&ipc_entries, &tid, &e, BPF_ANY);
}

/* Whether the kernel noted the object e found, for the syscall of s:
 * the checks the kernel makes before its note, and the errors only they
 * return. */
static __always_inline int ipc_noted(struct subject *s, const struct ipc_entry *e)
{
	struct task_struct *task = s->task;
	__u32 nr = s->nr;
	long ret = s->ret;
	__u64 a[4] = { arg(s, 0), arg(s, 1), arg(s, 2), arg(s, 3) };
	int cmd;
	if (nr == FA_NR64_msgget)
		return !((a[1] & FA_IPC_CREAT) && (a[1] & FA_IPC_EXCL));
	if (nr == FA_NR64_semget) {
		/* nsems checked against SEMMSL, then the set's size, first. */
		int nsems = (int)a[1];
		int semmsl = BPF_CORE_READ(task, nsproxy, ipc_ns, sem_ctls[0]);
		return !((a[2] & FA_IPC_CREAT) && (a[2] & FA_IPC_EXCL)) && nsems >= 0 &&
		       nsems <= semmsl && (__u32)nsems <= e->nsems;
	}
	if (nr == FA_NR64_shmget)
		return !((a[2] & FA_IPC_CREAT) && (a[2] & FA_IPC_EXCL)) && a[1] <= e->segsz;
	if (nr == FA_NR64_msgsnd)
		/* size, type and the message's copy come first */
		return ret != -EINVAL && ret != -EFAULT && ret != -ENOMEM;
	if (nr == FA_NR64_msgrcv)
		return ret != -EINVAL && ret != -ENOMEM;
	if (nr == FA_NR64_semop || nr == FA_NR64_semtimedop)
		/* nsops, the operations' copy, the timeout, then sem_num
		 * against the set's size (EFBIG) */
		return ret != -EINVAL && ret != -E2BIG && ret != -ENOMEM && ret != -EFAULT &&
		       ret != -EFBIG;
	if (nr == FA_NR64_shmat) {
		__u64 addr = a[1], flg = a[2];
		if (addr & (FA_SHMLBA - 1)) {
			if (!(flg & FA_SHM_RND))
				return 0;
			addr &= ~(__u64)(FA_SHMLBA - 1);
		}
		return !(addr == 0 && (flg & FA_SHM_REMAP));
	}
	if (nr == FA_NR64_msgctl || nr == FA_NR64_shmctl) {
		cmd = (int)a[1];
		if (cmd < 0 || cmd == FA_IPC_INFO || cmd > 15)
			return 0;
		if (nr == FA_NR64_msgctl && cmd != FA_IPC_RMID && cmd != FA_IPC_SET &&
		    cmd != FA_IPC_STAT && cmd != FA_MSG_STAT && cmd != FA_MSG_STAT_ANY)
			return 0;
		if (nr == FA_NR64_shmctl && cmd > FA_IPC_STAT && cmd != FA_SHM_LOCK &&
		    cmd != FA_SHM_UNLOCK && cmd != FA_SHM_STAT && cmd != FA_SHM_STAT_ANY)
			return 0;
		/* IPC_SET's buffer is copied in first */
		return ret != -EINVAL && !(cmd == FA_IPC_SET && ret == -EFAULT);
	}
	if (nr == FA_NR64_semctl) {
		cmd = (int)a[2];
		if (cmd == FA_IPC_RMID || cmd == FA_IPC_SET)
			return ret != -EINVAL && !(cmd == FA_IPC_SET && ret == -EFAULT);
		if (cmd == FA_IPC_STAT || cmd == FA_SEM_STAT || cmd == FA_SEM_STAT_ANY)
			return ret != -EINVAL;
		if (cmd == FA_SEM_SETVAL) {
			/* the value's range, then semnum, come first */
			int val = (int)a[3], semnum = (int)a[1];
			return val >= 0 && val <= FA_SEMVMX && semnum >= 0 &&
			       (__u32)semnum < e->nsems;
		}
		/* GETPID..GETZCNT, GETALL, SETALL: the check comes first */
		return cmd >= FA_SEM_GETPID && cmd <= FA_SEM_SETALL;
	}
	return 0;
}

/* IPC (and IPC_SET_PERM) for the System V IPC syscall of s, when the
 * kernel noted an object during it. IPC_SET's new values are the
 * caller's buffer, which IPC_SET only reads: its struct ipc64_perm first
 * (uid at 4, gid at 8, mode at 20), a queue's msg_qbytes at 88 (passed
 * on as an int, widened to unsigned long by audit_ipc_set_perm). */
static __always_inline void send_ipc(struct subject *s, const struct fa_msg *m, __u32 *lost)
{
	__u32 nr = s->nr;
	if (s->compat || !is_sysv_ipc(nr) || !s->returned)
		return;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct ipc_entry *e = bpf_map_lookup_elem(&ipc_entries, &tid);
	if (!e)
		return;
	if (e->found && ipc_noted(s, e)) {
		struct fa_ipc *r = aux_reserve(m, lost, AUDIT_IPC, sizeof(*r));
		if (r) {
			__builtin_memset(r, 0, sizeof(*r));
			r->uid = e->uid;
			r->gid = e->gid;
			r->mode = (__u16)e->mode;
			int semctl = nr == FA_NR64_semctl;
			int set = semctl ? (int)arg(s, 2) == FA_IPC_SET :
					   (nr == FA_NR64_msgctl || nr == FA_NR64_shmctl) &&
						   (int)arg(s, 1) == FA_IPC_SET;
			/* semctl's buffer is its fourth argument, the others' third */
			__u64 buf = arg(s, semctl ? 3 : 2);
			/* read straight into the record: uid and gid are adjacent */
			if (set && !bpf_probe_read_user(&r->perm_uid, 8, (void *)(buf + 4)) &&
			    !bpf_probe_read_user(&r->perm_mode, 4, (void *)(buf + 20))) {
				r->has_perm = 1;
				r->perm_mode &= 0xffff;   /* umode_t */
				int qbytes = 0;
				if (nr == FA_NR64_msgctl)
					bpf_probe_read_user(&qbytes, sizeof(qbytes), (void *)(buf + 88));
				r->qbytes = (__u64)(__s64)qbytes;
			} else {
				r->perm_uid = r->perm_gid = r->perm_mode = 0;
			}
			aux_submit(r);
		}
	}
	if (entry_args_consumable())
		bpf_map_delete_elem(&ipc_entries, &tid);
}

#endif

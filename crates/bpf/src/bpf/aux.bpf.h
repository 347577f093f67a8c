/* SPDX-License-Identifier: GPL-2.0 */
/* The records the kernel writes after SYSCALL (PATH, CWD, EXECVE,
 * SOCKADDR, ...): each travels as its own ring-buffer sample, submitted
 * before the event it belongs to and tagged with the event's tid and
 * stamp (struct fa_aux_head), so that records of any size and number
 * need no room in struct fa_event. */
#ifndef FA_AUX_BPF_H
#define FA_AUX_BPF_H

#include "subject.bpf.h"
/* The record families' senders (each reserves through auxsample.bpf.h). */
#include "execve.bpf.h"      /* BPRM_FCAPS, EXECVE */
#include "special.bpf.h"     /* MMAP, OPENAT2, CAPSET, FD_PAIR, SOCKADDR, OBJ_PID, SOCKETCALL */
#include "kmodule.bpf.h"     /* KERN_MODULE */
#include "mqueue.bpf.h"      /* MQ_OPEN, MQ_SENDRECV, MQ_NOTIFY, MQ_GETSETATTR */
#include "ipc.bpf.h"         /* IPC, IPC_SET_PERM */
#include "ntp.bpf.h"         /* TIME_ADJNTPVAL, TIME_INJOFFSET */
#include "paths.bpf.h"       /* CWD, PATH */

/* Send the auxiliary records of the syscall of s before its event, whose
 * head m will be; returns FA_EV_AUX_LOST if one found no room. Each
 * record family adds its sender here, in the kernel's record order. */
static __always_inline __u32 emit_aux(struct subject *s, const struct fa_msg *m)
{
	__u32 lost = 0;
	/* BPRM_FCAPS (the aux list), then show_special's one record
	 * (SOCKETCALL, IPC, MQ_*, EXECVE, MMAP, OPENAT2, CAPSET, KERN_MODULE,
	 * TIME_*), FD_PAIR, SOCKADDR. */
	send_exec_records(s, m, &lost);
	send_socketcall(s, m, &lost);
	send_ipc(s, m, &lost);
	send_mq(s, m, &lost);
	send_mmap(s, m, &lost);
	send_openat2(s, m, &lost);
	send_capset(s, m, &lost);
	send_kern_module(s, m, &lost);
	send_ntp(s, m, &lost);
	send_fd_pair(s, m, &lost);
	send_sockaddr(s, m, &lost);
	send_obj_pid(s, m, &lost);
	emit_paths(s, m, &lost);   /* CWD, PATH: last, as audit_log_exit writes them */
	return lost;
}

#endif

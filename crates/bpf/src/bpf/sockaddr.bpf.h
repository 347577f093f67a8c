/* SPDX-License-Identifier: GPL-2.0 */
/* Where a socket syscall's address is: the one it passed (connect, bind, sendto,
 * sendmsg: the kernel's move_addr_to_kernel) or got back (accept,
 * accept4, recvfrom, recvmsg, getsockname, getpeername:
 * move_addr_to_user), read at the syscall's exit from the caller's
 * memory, where both still are: a passed address is the caller's own
 * buffer, and a returned one was copied there with its length. Also the
 * syscall's sockaddr family, for saddr_fam= tests. */
#ifndef FA_SOCKADDR_BPF_H
#define FA_SOCKADDR_BPF_H

#include "subject.bpf.h"

/* How a socket syscall carries its address. */
enum sa_way {
	SA_NONE,
	SA_PASSED,        /* (address, length) arguments */
	SA_RETURNED,      /* (address, pointer to the length) arguments */
	SA_MSG_PASSED,    /* struct msghdr argument: msg_name, msg_namelen */
	SA_MSG_RETURNED,
};

/* Where the syscall's address is: its way, the address argument and the
 * length argument. ia32 sendmsg/recvmsg (compat msghdr) and socketcall
 * are not followed. */
static __always_inline enum sa_way sockaddr_args(__u32 nr, __u32 compat, int *a, int *l)
{
	if (compat) {
		if (nr == FA_NR32_connect || nr == FA_NR32_bind) {
			*a = 1, *l = 2;
			return SA_PASSED;
		}
		if (nr == FA_NR32_sendto) {
			*a = 4, *l = 5;
			return SA_PASSED;
		}
		if (nr == FA_NR32_accept4 || nr == FA_NR32_getsockname || nr == FA_NR32_getpeername) {
			*a = 1, *l = 2;
			return SA_RETURNED;
		}
		if (nr == FA_NR32_recvfrom) {
			*a = 4, *l = 5;
			return SA_RETURNED;
		}
		return SA_NONE;
	}
	if (nr == FA_NR64_connect || nr == FA_NR64_bind) {
		*a = 1, *l = 2;
		return SA_PASSED;
	}
	if (nr == FA_NR64_sendto) {
		*a = 4, *l = 5;
		return SA_PASSED;
	}
	if (nr == FA_NR64_accept || nr == FA_NR64_accept4 || nr == FA_NR64_getsockname ||
	    nr == FA_NR64_getpeername) {
		*a = 1, *l = 2;
		return SA_RETURNED;
	}
	if (nr == FA_NR64_recvfrom) {
		*a = 4, *l = 5;
		return SA_RETURNED;
	}
	if (nr == FA_NR64_sendmsg)
		return SA_MSG_PASSED;
	if (nr == FA_NR64_recvmsg)
		return SA_MSG_RETURNED;
	return SA_NONE;
}

/* The address the kernel audited for the syscall of s: its user pointer
 * and the kernel's length; 0 when there is none. A passed address is
 * audited once it is copied in (the descriptor was a socket, the length
 * fits a sockaddr_storage); a returned one only on success, with the
 * length the kernel stored back. */
static __always_inline unsigned long sockaddr_of(struct subject *s, __u32 *len)
{
	int a = 0, l = 0;
	enum sa_way way = sockaddr_args(s->nr, s->compat, &a, &l);
	if (way == SA_NONE || !s->returned)
		return 0;
	long ret = s->ret;
	unsigned long addr = 0;
	int n = 0;
	if (way == SA_PASSED || way == SA_MSG_PASSED) {
		if (ret == -EBADF || ret == -ENOTSOCK || ret == -EFAULT)
			return 0;
		if (way == SA_PASSED) {
			addr = arg6(s, a);
			n = (int)arg6(s, l);
		} else {
			void *msg = (void *)arg(s, 1);
			bpf_probe_read_user(&addr, 8, msg);
			bpf_probe_read_user(&n, 4, msg + 8);
			if (n > FA_SOCKADDR_MAX)
				n = FA_SOCKADDR_MAX; /* __copy_msghdr clamps it */
		}
		if (!addr || n <= 0 || n > FA_SOCKADDR_MAX)
			return 0;
	} else {
		if (failed(ret))
			return 0;
		void *lenp;
		if (way == SA_RETURNED) {
			addr = arg6(s, a);
			lenp = (void *)arg6(s, l);
		} else {
			void *msg = (void *)arg(s, 1);
			bpf_probe_read_user(&addr, 8, msg);
			lenp = msg + 8;
		}
		if (!addr || !lenp || bpf_probe_read_user(&n, 4, lenp) || n <= 0)
			return 0;
	}
	*len = n;
	return addr;
}

/* The syscall's sockaddr family, for saddr_fam= tests: whether it has an
 * audited address (else the test fails, whatever its operator, as the
 * kernel's audit_filter_rules has no sockaddr to compare), and the family. */
static __always_inline int sockaddr_family(struct subject *s, __u32 *family)
{
	__u32 len = 0;
	unsigned long addr = sockaddr_of(s, &len);
	__u16 fam = 0;
	if (!addr || bpf_probe_read_user(&fam, sizeof(fam), (void *)addr))
		return 0;
	*family = fam;
	return 1;
}

#endif

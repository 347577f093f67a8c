/* SPDX-License-Identifier: GPL-2.0 */
/* Reading kernel objects' fields: by a plain load where the kernel casts
 * pointers to their BTF type (bpf_rdonly_cast, Linux 6.2+; the load faults
 * safely as a probe read does, 0 for a bad pointer), by a probe read
 * before. A probe read is a helper call; the ids, registers, identities
 * and walks read a dozen fields per syscall judged or object looked at,
 * and as probe reads they were most of an audited open's cost (an open
 * with one file watch: 1.1 us over the hook's dispatch, 0.8 us of it
 * reading; measured on 6.18, 2026-11-26). */
#ifndef FA_LOAD_BPF_H
#define FA_LOAD_BPF_H

/* Field `field` (one member access, as BPF_CORE_READ's single step) of
 * the kernel object of type `type` at `ptr`. A name's length that bounds
 * a copy (the exe and cwd walks' d_name.len) stays a probe read: as a
 * plain load, clang dropped the mask the verifier needs as the bound
 * ("unbounded memory access"). */
#define FA_GET(ptr, type, field)                                                 \
	(bpf_ksym_exists(bpf_rdonly_cast) ? bpf_core_cast((ptr), type)->field    \
					  : BPF_CORE_READ((type *)(ptr), field))

#endif

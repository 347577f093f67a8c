/* SPDX-License-Identifier: GPL-2.0 */
/* An auxiliary record's ring-buffer sample (struct fa_aux_head and its
 * payload): reserved under its event's head, then submitted or given
 * back. Each record family's sender builds its records in one. */
#ifndef FA_AUXSAMPLE_BPF_H
#define FA_AUXSAMPLE_BPF_H

#include "maps.bpf.h"

/* Reserve an auxiliary sample of `size` payload bytes (a constant at each
 * call site) of record `type`, under the event head m (its tid and
 * stamp); 0 when the ring buffer is full, counted, and *lost then
 * becomes FA_EV_AUX_LOST for the event. */
static __always_inline void *aux_reserve(const struct fa_msg *m, __u32 *lost, __u32 type, __u32 size)
{
	struct fa_aux_head *h = bpf_ringbuf_reserve(&events, sizeof(*h) + size, 0);
	if (!h) {
		count(FA_STAT_AUX_LOST);
		*lost = FA_EV_AUX_LOST;
		return 0;
	}
	h->msg = *m;
	h->msg.kind = FA_MSG_AUX;
	h->rec_type = type;
	h->len = size;
	return h + 1;
}

/* Queue a payload aux_reserve returned. */
static __always_inline void aux_submit(void *payload)
{
	bpf_ringbuf_submit((struct fa_aux_head *)payload - 1, BPF_RB_NO_WAKEUP);
}

/* Give back a payload aux_reserve returned, unsent. */
static __always_inline void aux_discard(void *payload)
{
	bpf_ringbuf_discard((struct fa_aux_head *)payload - 1, BPF_RB_NO_WAKEUP);
}

#endif

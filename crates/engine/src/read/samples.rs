//! Ring-buffer samples back into events: every sample starts with a
//! `struct fa_msg`; an event's auxiliary samples (the data of its PATH,
//! CWD, EXECVE, ... records) come before it with its tid and stamp, and
//! are held here until the event arrives.

use crate::payload::{read, Aux};
use fastaudit_bpf::types::{fa_aux_head, fa_event, fa_event_flag, fa_msg, fa_msg_kind};
use std::collections::HashMap;

/// Threads whose auxiliary samples may wait at once; past this the oldest
/// waits (whose event was lost) are dropped.
const MAX_WAITING: usize = 1 << 16;

/// Events of one thread whose samples may wait at once. A syscall's come
/// right before it (one at a time); io_uring requests handed off (a
/// SQPOLL thread's when prepared; with names delayed, any queued for
/// io-wq, under the submitter's thread) send theirs first, and their
/// events follow when they have run, a whole batch later, io-wq workers
/// finishing in any order: as many as the BPF side keeps requests
/// handed off (uring_sq_reqs).
const MAX_STAMPS: usize = 4096;

/// Pairs auxiliary samples with their events.
#[derive(Default)]
pub(crate) struct Samples {
    /// By tid: (stamp, samples) of events still to come, oldest first.
    waiting: HashMap<u32, Vec<(u64, Vec<Aux>)>>,
    ready: Vec<Ready>,
}

/// A complete event: with its executable's path, its task's LSM label
/// (empty: none) and its auxiliary records.
pub(crate) type Ready = (fa_event, Vec<u8>, Vec<u8>, Vec<Aux>);

impl Samples {
    /// Take one ring-buffer sample.
    pub(crate) fn push(&mut self, data: &[u8]) {
        let Some(msg) = read::<fa_msg>(data) else {
            return;
        };
        if msg.kind == fa_msg_kind::FA_MSG_AUX.0 {
            let Some(head) = read::<fa_aux_head>(data) else {
                return;
            };
            let start = std::mem::size_of::<fa_aux_head>();
            let end = start.saturating_add(head.len as usize).min(data.len());
            let aux = Aux {
                ty: head.rec_type,
                data: data[start..end].to_vec(),
            };
            if self.waiting.len() >= MAX_WAITING && !self.waiting.contains_key(&msg.tid) {
                self.waiting.clear();
            }
            let slots = self.waiting.entry(msg.tid).or_default();
            match slots
                .iter_mut()
                .rev()
                .find(|(stamp, _)| *stamp == msg.stamp)
            {
                Some((_, auxes)) => auxes.push(aux),
                None => {
                    // The oldest: an event whose own sample was lost.
                    if slots.len() >= MAX_STAMPS {
                        slots.remove(0);
                    }
                    slots.push((msg.stamp, vec![aux]));
                }
            }
        } else if msg.kind == fa_msg_kind::FA_MSG_EVENT.0 {
            let Some(mut ev) = read::<fa_event>(data) else {
                return;
            };
            // The executable's path follows the event, exe_len bytes.
            let size = std::mem::size_of::<fa_event>();
            let exe = match data[size..].get(..ev.exe_len as usize) {
                Some(exe) => exe.to_vec(),
                None => {
                    ev.flags |= fa_event_flag::FA_EV_EXE_TOO_LONG.0;
                    Vec::new()
                }
            };
            // Then the LSM label, subj_len bytes.
            let subj = data
                .get(size.saturating_add(ev.exe_len as usize)..)
                .and_then(|rest| rest.get(..ev.subj_len as usize))
                .map(<[u8]>::to_vec)
                .unwrap_or_default();
            // An op issued inside io_uring_enter has no records of its
            // own: what waits is that syscall's (sent as its ops' preps ran).
            let inline = ev.flags & fa_event_flag::FA_EV_URING_INLINE.0 != 0;
            let aux = match inline {
                true => Vec::new(),
                false => self.take_waiting(msg.tid, msg.stamp),
            };
            self.ready.push((ev, exe, subj, aux));
        }
    }

    /// The samples of thread tid's event `stamp`; those waiting much
    /// longer are dropped (their event was lost).
    fn take_waiting(&mut self, tid: u32, stamp: u64) -> Vec<Aux> {
        /// Longer than any request waits to run (ns).
        const STALE: u64 = 10_000_000_000;
        let Some(slots) = self.waiting.get_mut(&tid) else {
            return Vec::new();
        };
        let aux = match slots.iter().position(|(s, _)| *s == stamp) {
            Some(i) => slots.remove(i).1,
            None => Vec::new(),
        };
        slots.retain(|(s, _)| s.saturating_add(STALE) > stamp);
        if slots.is_empty() {
            self.waiting.remove(&tid);
        }
        aux
    }

    /// The complete events read so far (each with its executable's path
    /// and auxiliary records), in ring order; `room` (empty) takes their
    /// place, so that its capacity is used again.
    pub(crate) fn take(&mut self, room: Vec<Ready>) -> Vec<Ready> {
        std::mem::replace(&mut self.ready, room)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::payload::bytes;
    use fastaudit_bpf::types::fa_msg_kind;

    fn aux(tid: u32, stamp: u64, ty: u32) -> Vec<u8> {
        // SAFETY: all-zero is a valid value of these integer structs.
        let mut h: fa_aux_head = unsafe { std::mem::zeroed() };
        h.msg.kind = fa_msg_kind::FA_MSG_AUX.0;
        h.msg.tid = tid;
        h.msg.stamp = stamp;
        h.rec_type = ty;
        bytes(&h)
    }

    fn event(tid: u32, stamp: u64) -> Vec<u8> {
        // SAFETY: as above.
        let mut e: fa_event = unsafe { std::mem::zeroed() };
        e.msg.kind = fa_msg_kind::FA_MSG_EVENT.0;
        e.msg.tid = tid;
        e.msg.stamp = stamp;
        bytes(&e)
    }

    #[test]
    fn a_threads_events_find_their_samples_in_any_order() {
        let mut s = Samples::default();
        // A SQPOLL thread prepared two requests; the second ran first.
        s.push(&aux(7, 100, 1));
        s.push(&aux(7, 200, 2));
        s.push(&aux(7, 200, 3));
        s.push(&event(7, 200));
        s.push(&event(7, 100));
        // A thread whose event was lost long ago: its samples go.
        s.push(&aux(8, 1, 9));
        s.push(&aux(8, 20_000_000_000, 4));
        s.push(&event(8, 20_000_000_000));
        let got: Vec<Vec<u32>> = s
            .take(Vec::new())
            .iter()
            .map(|r| r.3.iter().map(|a| a.ty).collect())
            .collect();
        assert_eq!(got, [vec![2, 3], vec![1], vec![4]]);
        assert!(s.waiting.is_empty(), "{:?}", s.waiting.keys());
    }
}

//! Ring-buffer samples back into events: every sample starts with a
//! `struct fa_msg`; an event's auxiliary samples (the data of its PATH,
//! CWD, EXECVE, ... records) come before it with its tid and stamp, and
//! are held here until the event arrives.

use fastaudit_bpf::types::{fa_aux_head, fa_event, fa_event_flag, fa_msg, fa_msg_kind};
use std::collections::HashMap;

/// One auxiliary record's data, as the BPF side sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Aux {
    /// The record type (`AUDIT_*`) or `FA_AUX_*` kind its payload is laid out for.
    pub ty: u32,
    /// The payload: a struct of the BPF header's, `len` bytes of it.
    pub data: Vec<u8>,
}

/// Threads whose auxiliary samples may wait at once; past this the oldest
/// waits (whose event was lost) are dropped.
const MAX_WAITING: usize = 1 << 16;

/// Pairs auxiliary samples with their events.
#[derive(Default)]
pub(crate) struct Samples {
    waiting: HashMap<u32, (u64, Vec<Aux>)>,
    ready: Vec<Ready>,
}

/// A complete event: with its executable's path, its task's LSM label
/// (empty: none) and its auxiliary records.
pub(crate) type Ready = (fa_event, Vec<u8>, Vec<u8>, Vec<Aux>);

pub(crate) fn read<T: Copy>(data: &[u8]) -> Option<T> {
    // SAFETY: T is a plain repr(C) struct of integers and byte arrays
    // (generated from fastaudit.h), and data holds at least its size.
    (data.len() >= std::mem::size_of::<T>())
        .then(|| unsafe { std::ptr::read_unaligned(data.as_ptr().cast::<T>()) })
}

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
            let slot = self.waiting.entry(msg.tid).or_default();
            // Samples of an earlier event whose own sample was lost.
            if slot.0 != msg.stamp {
                *slot = (msg.stamp, Vec::new());
            }
            slot.1.push(aux);
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
                false => match self.waiting.remove(&msg.tid) {
                    Some((stamp, aux)) if stamp == msg.stamp => aux,
                    _ => Vec::new(),
                },
            };
            self.ready.push((ev, exe, subj, aux));
        }
    }

    /// The complete events read so far (each with its executable's path
    /// and auxiliary records), in ring order; `room` (empty) takes their
    /// place, so that its capacity is used again.
    pub(crate) fn take(&mut self, room: Vec<Ready>) -> Vec<Ready> {
        std::mem::replace(&mut self.ready, room)
    }
}

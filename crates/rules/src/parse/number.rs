//! Warnings for numbers auditctl reads with C's `strtoul`/`strtol` and
//! stores in 32 bits without a check: text after the digits is ignored,
//! and a number too big (or too negative) wraps to another value.
//! The value itself is computed where auditctl computes it; these only
//! say when what was written is not what is taken.

use super::State;
use crate::cnum::Conv;
use crate::warning::Warning;

impl State<'_> {
    /// Record a warning about the line being parsed.
    pub(super) fn warn(&mut self, w: Warning) {
        self.out.warnings.push(w);
    }

    /// Warn when C's conversion of `text` stopped before its end (`end`
    /// is C's `endptr`; 0 means no digit was read at all, so 0 is taken).
    pub(super) fn note_end(&mut self, what: &str, text: &[u8], end: usize) {
        if end == 0 {
            self.warn(Warning::NotANumber {
                what: what.into(),
                text: text.to_vec(),
            });
        } else if end < text.len() {
            self.warn(Warning::TrailingText {
                what: what.into(),
                text: text.to_vec(),
                read: text[..end].to_vec(),
            });
        }
    }

    /// A `strtoul` result stored in 32 bits: warn about junk and wrapping.
    pub(super) fn note_u32(&mut self, what: &str, text: &[u8], c: Conv<u64>) -> u32 {
        self.note_end(what, text, c.end);
        let taken = c.value as u32;
        if c.range_error || c.value > u64::from(u32::MAX) {
            self.warn(Warning::OutOfRange {
                what: what.into(),
                text: text.to_vec(),
                taken: taken.to_string(),
            });
        }
        taken
    }

    /// A `strtol` result stored in 32 bits, where `lo..=hi` survives
    /// unchanged: warn about junk and wrapping.
    pub(super) fn note_i64(
        &mut self,
        what: &str,
        text: &[u8],
        c: Conv<i64>,
        lo: i64,
        hi: i64,
    ) -> u32 {
        self.note_end(what, text, c.end);
        let taken = c.value as u32;
        if c.range_error || c.value < lo || c.value > hi {
            let shown = if lo < 0 {
                (taken as i32).to_string()
            } else {
                taken.to_string()
            };
            self.warn(Warning::OutOfRange {
                what: what.into(),
                text: text.to_vec(),
                taken: shown,
            });
        }
        taken
    }

    /// A negative id (`-F uid=-5`, `sessionid=-5`) read with `strtol`:
    /// -1 is the documented spelling of "unset"; other values are taken
    /// as huge unsigned ids, which no one has.
    pub(super) fn note_negative_id(&mut self, what: &str, text: &[u8], c: Conv<i64>) -> u32 {
        self.note_end(what, text, c.end);
        let taken = c.value as u32;
        if c.range_error || c.value < i64::from(i32::MIN) {
            self.warn(Warning::OutOfRange {
                what: what.into(),
                text: text.to_vec(),
                taken: taken.to_string(),
            });
        } else if c.value < -1 {
            self.warn(Warning::Negative {
                what: what.into(),
                text: text.to_vec(),
                taken,
            });
        }
        taken
    }
}

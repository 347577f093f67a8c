//! Filter keys: `-k key`, `-F key=`, and the `-k` of `-l`/`-D`. A rule's
//! keys are joined with `\x01` into one field, as the kernel keeps them.

use super::{err, show, State, SyntaxError};
use crate::abi;
use crate::warning::Warning;

impl State<'_> {
    /// `-k` and `-F key=`: append to the rule's key, joined with `\x01`.
    pub(super) fn process_key(&mut self, k: &[u8]) -> Result<(), SyntaxError> {
        let sep = usize::from(!self.key.is_empty());
        if k.len() + self.key.len() + sep > abi::MAX_KEY_LEN {
            return err(format!(
                "key {} exceeds the size limit ({} bytes for all keys of a rule)",
                show(k),
                abi::MAX_KEY_LEN
            ));
        }
        if k.contains(&abi::KEY_SEPARATOR) {
            self.warn(Warning::KeyIllegalChar(k.to_vec()));
        }
        if !self.key.is_empty() {
            self.key.push(abi::KEY_SEPARATOR);
        }
        self.key.extend_from_slice(k);
        Ok(())
    }

    /// `-l -k key` / `-D -k key`: auditctl copies at most the key size.
    pub(super) fn append_key_truncated(&mut self, k: &[u8]) {
        let room = abi::MAX_KEY_LEN.saturating_sub(self.key.len());
        if k.len() > room {
            self.warn(Warning::KeyTruncated {
                key: k.to_vec(),
                kept: room,
            });
        }
        let k = &k[..k.len().min(room)];
        self.key.extend_from_slice(k);
    }
}

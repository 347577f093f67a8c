//! A rule as the kernel takes it over netlink (`struct audit_rule_data`),
//! for loading rules auditctl cannot send (this machine's auditctl 3.0.9
//! predates the io_uring list).

use crate::abi::{self, field};
use crate::rule::Rule;

/// Fields one `audit_rule_data` holds (`AUDIT_MAX_FIELDS`).
const MAX_FIELDS: usize = 64;

impl Rule {
    /// The rule's `struct audit_rule_data` (native byte order), appended
    /// at the end of its list (no prepend flag): loading a rule set's
    /// rules in their order gives the kernel the same lists.
    pub fn to_data(&self) -> Vec<u8> {
        let n = self.fields.len().min(MAX_FIELDS);
        let mut fields = [0u32; MAX_FIELDS];
        let mut values = [0u32; MAX_FIELDS];
        let mut flags = [0u32; MAX_FIELDS];
        let mut buf = Vec::new();
        for (i, f) in self.fields.iter().take(n).enumerate() {
            fields[i] = f.field;
            flags[i] = f.op;
            values[i] = if field::is_string(f.field) {
                buf.extend_from_slice(&f.text);
                f.text.len() as u32
            } else {
                f.value
            };
        }
        let mut b = Vec::with_capacity(16 + 4 * (abi::BITMASK_WORDS + 3 * MAX_FIELDS) + buf.len());
        let mut put = |v: u32| b.extend_from_slice(&v.to_ne_bytes());
        put(self.list & abi::list::MASK);
        put(self.action);
        put(n as u32);
        self.mask.iter().for_each(|&w| put(w));
        fields.iter().for_each(|&w| put(w));
        values.iter().for_each(|&w| put(w));
        flags.iter().for_each(|&w| put(w));
        put(buf.len() as u32);
        b.extend_from_slice(&buf);
        b
    }
}

#[cfg(test)]
mod tests {
    use crate::abi::{action, list, op};
    use crate::{Field, Rule};

    #[test]
    fn an_io_uring_rule_as_the_kernel_takes_it() {
        let mut r = Rule::empty();
        r.list = list::URING_EXIT;
        r.action = action::ALWAYS;
        r.add_syscall(18); // openat
        r.fields.push(Field {
            field: crate::abi::field::FILTERKEY,
            op: op::EQUAL,
            value: 2,
            text: b"ok".to_vec(),
        });
        let d = r.to_data();
        let word = |i: usize| u32::from_ne_bytes(d[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!((word(0), word(1), word(2)), (7, 2, 1));
        assert_eq!(word(3), 1 << 18, "the op's bit in the mask");
        assert_eq!(word(3 + 64), crate::abi::field::FILTERKEY);
        assert_eq!(word(3 + 128), 2, "a string's value is its length");
        assert_eq!(word(3 + 192), op::EQUAL);
        assert_eq!(word(3 + 256), 2);
        assert_eq!(&d[d.len() - 2..], b"ok");
    }
}
